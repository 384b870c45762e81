package io.replaylab.harness.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Deterministic synthetic payments: the same seed gives the same records. Amounts are integer
 * minor units, some negative (refunds). Malformed records are mixed in at seeded positions.
 */
public final class SyntheticPayments {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SyntheticPayments() {
    }

    /** One record to send: key and value (value may be null: a tombstone); {@code good} for a valid payment. */
    public record Generated(String key, String value, boolean good, String id, String account, long amount) {
    }

    public static List<Generated> generate(String namespace, int count, long seed, int accounts, int malformed) {
        if (count < 0 || malformed < 0) {
            throw new IllegalArgumentException("the count and the malformed count must be >= 0");
        }
        if (accounts < 1) {
            throw new IllegalArgumentException("the number of accounts must be >= 1, was " + accounts);
        }
        Random rnd = new Random(seed);
        List<Generated> out = new ArrayList<>(count + malformed);
        for (int i = 0; i < count; i++) {
            String account = "acc-" + rnd.nextInt(accounts);
            long amount = rnd.nextInt(10) == 0 ? -(1 + rnd.nextInt(5_000)) : 1 + rnd.nextInt(100_000);
            String id = namespace + "-" + i;
            out.add(new Generated(account, json(id, account, amount), true, id, account, amount));
        }
        Random bad = new Random(seed ^ 0x5DEECE66DL);
        TreeSet<Integer> positions = new TreeSet<>();
        while (positions.size() < malformed) {
            positions.add(bad.nextInt(count + malformed));
        }
        int k = 0;
        for (int pos : positions) {
            String key = "acc-bad-" + k;
            String value = switch (k % 4) {
                case 0 -> "this is not json #" + k;
                case 1 -> "{\"account\": \"acc-0\", \"amount\": 100}";
                case 2 -> JSON.createObjectNode().put("id", namespace + "-bad-" + k).put("account", "acc-0").put("amount", 12.5).toString();
                default -> null;
            };
            out.add(pos, new Generated(key, value, false, null, null, 0));
            k++;
        }
        return out;
    }

    /** A valid payment's value, written by Jackson (so an id or account with quotes or backslashes stays valid JSON). */
    public static String json(String id, String account, long amount) {
        return JSON.createObjectNode().put("id", id).put("account", account).put("amount", amount).toString();
    }
}
