package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import io.replaylab.oracle.RecordParser.Parsed;
import org.junit.jupiter.api.Test;

/** The fast flat reader never disagrees with the Jackson definition; it declines what it does not read. */
class PaymentJsonTest {
    private static final RecordParser PARSER = RecordParsers.paymentJson();

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theReferencePayloadIsReadByTheFastReader() {
        byte[] v = utf8("{\"id\": \"rl-ab12.replay-17\", \"account\": \"acc-3\", \"amount\": -2500}");
        assertThat(PaymentJson.flat(v)).isEqualTo(Parsed.of("rl-ab12.replay-17", -2500));
        assertThat(PARSER.parse((byte[]) null, v)).isEqualTo(Parsed.of("rl-ab12.replay-17", -2500));
        assertThat(text("k", "{\"amount\":7,\"id\":\"x\"}")).isEqualTo(Parsed.of("x", 7));
    }

    @Test
    void malformedRecordsKeepTheirReasons() {
        assertThat(text(null, null).malformedReason()).isEqualTo("null value");
        assertThat(text(null, "[1]").malformedReason()).isEqualTo("not a JSON object");
        assertThat(text(null, "{\"id\": \"a\", \"amount\": ").malformedReason()).isEqualTo("not JSON");
        assertThat(text(null, "{\"amount\": 1}").malformedReason()).isEqualTo("missing id");
        assertThat(text(null, "{\"id\": \"a\", \"amount\": 1.5}").malformedReason()).isEqualTo("non-integer amount: 1.5");
        assertThat(text(null, "{\"id\": \"a\", \"amount\": \"12\"}").malformedReason()).isEqualTo("non-integer amount: 12");
        assertThat(text(null, "{\"id\": \"a\", \"amount\": 99999999999999999999}").malformedReason())
                .isEqualTo("non-integer amount: 99999999999999999999");
    }

    @Test
    void theFastReaderAgreesWithJacksonOnAnAwkwardCorpus() {
        List<String> corpus = List.of(
                "{}", " { } ", "{\"id\":\"a\",\"amount\":0}", "{\"id\":\"a\",\"amount\":-0}", "{\"id\":\"a\",\"amount\":007}",
                "{\"id\":\"a\",\"amount\":+7}", "{\"id\":\"a\",\"amount\":-}", "{\"id\":\"a\",\"amount\":1e3}", "{\"id\":\"a\",\"amount\":1E3}",
                "{\"id\":\"a\",\"amount\":12abc}", "{\"id\":\"a\",\"amount\":true}", "{\"id\":\"a\",\"amount\":null}",
                "{\"id\":\"a\",\"amount\":{\"v\":1}}", "{\"id\":\"a\",\"amount\":[1]}", "{\"id\":5,\"amount\":1}", "{\"id\":\"\",\"amount\":1}",
                "{\"id\":\"  \",\"amount\":1}", "{\"id\":\"a\",\"amount\":1,\"amount\":\"x\"}", "{\"id\":\"a\",\"amount\":\"x\",\"amount\":2}",
                "{\"id\":\"a\",\"id\":\"b\",\"amount\":1}", "{\"id\":\"a\",\"amount\":1} trailing", "{\"id\":\"a\",\"amount\":1}}",
                "{\"id\":\"a\" \"amount\":1}", "{\"id\":\"a\",,\"amount\":1}", "{\"id\":\"a\",\"amount\":1,}", "{\"i\\u0064\":\"a\",\"amount\":1}",
                "{\"id\":\"a\\\"b\",\"amount\":1}", "{\"id\":\"zahlung-ä\",\"amount\":1}", "{\"id\":\"a\tb\",\"amount\":1}",
                "\uFEFF{\"id\":\"a\",\"amount\":1}", "{\"id\":\"a\",\"amount\":922337203685477580}", "{\"id\":\"a\",\"amount\":9223372036854775807}",
                "{\"id\":\"a\",\"amount\":-9223372036854775808}", "{\"id\":\"a\",\"amount\":9223372036854775808}", "{\"id\":\"a\",\"amount\":1",
                "{\"id\":\"a\",\"amount\":1 ", "\n\t{\"id\" :\r\n\"a\" , \"amount\" : 42 }\n", "{\"nested\":{\"id\":\"x\"},\"id\":\"a\",\"amount\":1}",
                "", " ", "null", "\"{}\"", "{\"id\":\"a\",\"amount\":1}\u0000");
        int fast = 0;
        for (String s : corpus) {
            byte[] v = utf8(s);
            Parsed f = PaymentJson.flat(v);
            if (f != null) {
                fast++;
                assertThat(f).as(s).isEqualTo(PaymentJson.jackson(v));
            }
            assertThat(PARSER.parse(null, v)).as(s).isEqualTo(PaymentJson.jackson(v));
        }
        assertThat(fast).as("inputs the fast reader took").isGreaterThan(10);
    }

    @Test
    void theFastReaderAgreesWithJacksonOnMutatedPayloads() {
        Random rnd = new Random(42);
        String alphabet = "{}[]\":,. -+0123456789eEabcdintoumlrux\\\t\n";
        byte[] base = utf8("{\"id\": \"p-1\", \"account\": \"acc-3\", \"amount\": 1250}");
        int fast = 0;
        for (int round = 0; round < 200_000; round++) {
            byte[] v = base.clone();
            int edits = 1 + rnd.nextInt(3);
            for (int e = 0; e < edits; e++) {
                int at = rnd.nextInt(v.length);
                byte c = (byte) alphabet.charAt(rnd.nextInt(alphabet.length()));
                switch (rnd.nextInt(3)) {
                    case 0 -> v[at] = c;
                    case 1 -> v = splice(v, at, new byte[] {c}, 0);
                    default -> v = splice(v, at, new byte[0], 1);
                }
            }
            Parsed f = PaymentJson.flat(v);
            if (f != null) {
                fast++;
                assertThat(f).as(new String(v, StandardCharsets.UTF_8)).isEqualTo(PaymentJson.jackson(v));
            }
        }
        assertThat(fast).as("mutants the fast reader took").isGreaterThan(10_000);
    }

    private static byte[] splice(byte[] v, int at, byte[] insert, int remove) {
        remove = Math.min(remove, v.length - at);
        byte[] out = new byte[v.length - remove + insert.length];
        System.arraycopy(v, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(v, at + remove, out, at + insert.length, v.length - at - remove);
        return out;
    }

    private static Parsed text(String key, String value) {
        return PARSER.parse(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }
}
