package io.replaylab.oracle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.replaylab.evidence.Check;

/**
 * The target's effects at one moment (SPEC R6): the (identity, amount) rows in the database's
 * order, saved to a file (one {@code id<TAB>amount} per line, so memory stays bounded), their
 * count and a digest of the rows as a multiset (the sum of the rows' SHA-256), which no
 * collation or row order changes.
 */
public record TargetSnapshot(Path file, long rows, String digest) {

    private static final int LINES_PER_BUCKET = 100_000;

    /**
     * Equality, or the exact difference as multisets of (identity, amount) rows. Equal digests
     * settle it at once; otherwise both files are spread over bucket files by row and compared one
     * bucket at a time, so the answer depends neither on the database's sort order (collations,
     * numeric vs. text amounts) nor on memory.
     */
    public SnapshotDiff diff(TargetSnapshot after) {
        if (rows == after.rows() && digest.equals(after.digest())) {
            return new SnapshotDiff(true, 0, 0, List.of(), List.of());
        }
        int buckets = (int) Math.min(256, Math.max(1, (rows + after.rows()) / LINES_PER_BUCKET + 1));
        Path dir = null;
        try {
            dir = Files.createTempDirectory("replay-lab-snapshot-diff-");
            spread(file, dir, "b", buckets);
            spread(after.file(), dir, "a", buckets);
            long onlyBefore = 0;
            long onlyAfter = 0;
            TreeSet<String> exBefore = new TreeSet<>();
            TreeSet<String> exAfter = new TreeSet<>();
            for (int k = 0; k < buckets; k++) {
                Map<String, Integer> balance = new HashMap<>();
                count(dir.resolve("b" + k), balance, 1);
                count(dir.resolve("a" + k), balance, -1);
                for (Map.Entry<String, Integer> e : balance.entrySet()) {
                    int n = e.getValue();
                    if (n > 0) {
                        onlyBefore += n;
                        keepFirst(exBefore, e.getKey());
                    } else if (n < 0) {
                        onlyAfter -= n;
                        keepFirst(exAfter, e.getKey());
                    }
                }
            }
            return new SnapshotDiff(onlyBefore == 0 && onlyAfter == 0, onlyBefore, onlyAfter, List.copyOf(exBefore), List.copyOf(exAfter));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot compare snapshots " + file + " and " + after.file(), e);
        } finally {
            if (dir != null) {
                Spill.delete(dir);
            }
        }
    }

    /** Writes each {@code id<TAB>amount} line of a snapshot into its bucket. */
    private static void spread(Path snapshot, Path dir, String side, int buckets) throws IOException {
        Spill.Writer[] out = new Spill.Writer[buckets];
        try (BufferedReader in = Files.newBufferedReader(snapshot, StandardCharsets.UTF_8)) {
            for (int k = 0; k < buckets; k++) {
                out[k] = new Spill.Writer(dir.resolve(side + k));
            }
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                int tab = line.lastIndexOf('\t');
                byte[] id = line.substring(0, Math.max(0, tab)).getBytes(StandardCharsets.UTF_8);
                byte[] amount = line.substring(tab + 1).getBytes(StandardCharsets.UTF_8);
                long h = Spill.hash(id, 0, id.length);
                out[Spill.bucket(h, buckets)].record(h, id, amount); // snapshot amounts are compared as their text
            }
            for (Spill.Writer w : out) {
                w.close(); // a failed flush must fail the diff, not shorten it
            }
        } finally {
            for (Spill.Writer w : out) {
                Spill.closeQuietly(w);
            }
        }
    }

    private static void count(Path bucket, Map<String, Integer> balance, int sign) throws IOException {
        try (Spill.Reader r = new Spill.Reader(bucket)) {
            while (r.next()) {
                String row = new String(r.buf, r.id, r.idLen, StandardCharsets.UTF_8) + "=" + Spill.amountText(r.buf, r.amount);
                balance.merge(row, sign, Integer::sum);
            }
        }
    }

    private static void keepFirst(TreeSet<String> examples, String row) {
        examples.add(row);
        if (examples.size() > Finding.EXAMPLES) {
            examples.pollLast();
        }
    }

    /** As the R6 check: the exact inbox identities and amounts are equal before and after. */
    public Check equalityCheck(TargetSnapshot after) {
        SnapshotDiff d = diff(after);
        return Check.of("target identical before and after", "R6", rows + " rows, sha256 " + digest.substring(0, 12),
                after.rows() + " rows, sha256 " + after.digest().substring(0, 12) + (d.equal() ? "" : "; " + d.describe()), d.equal());
    }
}
