package io.replaylab.oracle;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import io.replaylab.evidence.Status;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;

/**
 * The comparison as a partitioned hash join: both sides are spilled to bucket files by hash of
 * the identity, then each bucket is joined in memory. Memory is bounded by one bucket, whatever
 * the topic's size, and each side is read exactly once from its system.
 */
final class BucketJoin implements AutoCloseable {
    private static final int RECORDS_PER_BUCKET = 100_000;
    private static final int MAX_BUCKETS = 256;

    private final Path dir;
    private final int buckets;
    private final DataOutputStream[] source;
    private final DataOutputStream[] target;
    private final Examples<long[]> malformed = new Examples<>(Comparator.comparingLong((long[] k) -> k[0]).thenComparingLong(k -> k[1]));
    private long malformedCount;
    private long sourceCount;
    private long targetCount;

    BucketJoin(long expectedRecords) {
        this.buckets = (int) Math.min(MAX_BUCKETS, Math.max(4, expectedRecords / RECORDS_PER_BUCKET + 1));
        try {
            this.dir = Files.createTempDirectory("replay-lab-oracle-");
            this.source = new DataOutputStream[buckets];
            this.target = new DataOutputStream[buckets];
            for (int b = 0; b < buckets; b++) {
                source[b] = open(dir.resolve("s" + b));
                target[b] = open(dir.resolve("t" + b));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the oracle's scratch files", e);
        }
    }

    void source(int partition, long offset, String id, String amount) throws IOException {
        DataOutputStream out = source[bucket(id)];
        out.writeUTF(id);
        out.writeUTF(amount);
        out.writeInt(partition);
        out.writeLong(offset);
        sourceCount++;
    }

    void malformed(int partition, long offset, String reason) {
        malformedCount++;
        malformed.offer(new long[] {partition, offset}, "p" + partition + "@" + offset + ": " + reason);
    }

    void target(String id, String amount) throws IOException {
        DataOutputStream out = target[bucket(id)];
        out.writeUTF(id);
        out.writeUTF(amount);
        targetCount++;
    }

    /** One source identity within a bucket. */
    private static final class Src {
        final String amount;
        final int partition;
        final long offset;
        int copies = 1;
        int effects;

        Src(String amount, int partition, long offset) {
            this.amount = amount;
            this.partition = partition;
            this.offset = offset;
        }
    }

    Comparison judge(Cut cut, String namespace, OffsetSnapshot committed) throws IOException {
        for (int b = 0; b < buckets; b++) {
            source[b].close();
            target[b].close();
        }
        Map<Integer, Long> frontier = new HashMap<>();
        if (committed != null) {
            for (PartitionOffsets p : committed.partitions()) {
                if (p.topic().equals(cut.topic()) && p.hasCommitted()) {
                    frontier.put(p.partition(), p.committed());
                }
            }
        }
        long missing = 0;
        long duplicated = 0;
        long unexpected = 0;
        long mismatched = 0;
        long sourceDuplicates = 0;
        long holes = 0;
        Examples<long[]> missingEx = new Examples<>(Comparator.comparingLong((long[] k) -> k[0]).thenComparingLong(k -> k[1]));
        Examples<String> duplicatedEx = new Examples<String>(Comparator.<String>naturalOrder());
        Examples<String> unexpectedEx = new Examples<String>(Comparator.<String>naturalOrder());
        Examples<String> mismatchedEx = new Examples<String>(Comparator.<String>naturalOrder());
        Examples<String> sourceDupEx = new Examples<String>(Comparator.<String>naturalOrder());
        Map<Integer, long[]> firstHole = new TreeMap<>();
        Map<Integer, String> firstHoleId = new HashMap<>();
        for (int b = 0; b < buckets; b++) {
            Map<String, Src> src = new HashMap<>();
            try (DataInputStream in = read(dir.resolve("s" + b))) {
                while (true) {
                    String id;
                    try {
                        id = in.readUTF();
                    } catch (EOFException eof) {
                        break;
                    }
                    String amount = in.readUTF();
                    int partition = in.readInt();
                    long offset = in.readLong();
                    Src prev = src.get(id);
                    if (prev == null) {
                        src.put(id, new Src(amount, partition, offset));
                    } else {
                        prev.copies++;
                    }
                }
            }
            Map<String, Integer> ghosts = new HashMap<>();
            try (DataInputStream in = read(dir.resolve("t" + b))) {
                while (true) {
                    String id;
                    try {
                        id = in.readUTF();
                    } catch (EOFException eof) {
                        break;
                    }
                    String amount = in.readUTF();
                    Src s = src.get(id);
                    if (s == null) {
                        ghosts.merge(id, 1, Integer::sum);
                        continue;
                    }
                    s.effects++;
                    if (!s.amount.equals(amount)) {
                        mismatched++;
                        mismatchedEx.offer(id, id + " source " + s.amount + " target " + amount);
                    }
                }
            }
            unexpected += ghosts.size();
            ghosts.keySet().forEach(g -> unexpectedEx.offer(g, g));
            for (Map.Entry<String, Src> e : src.entrySet()) {
                Src s = e.getValue();
                if (s.copies > 1) {
                    sourceDuplicates++;
                    sourceDupEx.offer(e.getKey(), e.getKey() + " at " + s.copies + " offsets");
                }
                if (s.effects == 0) {
                    missing++;
                    missingEx.offer(new long[] {s.partition, s.offset}, e.getKey() + " (p" + s.partition + "@" + s.offset + ", amount " + s.amount + ")");
                    Long c = frontier.get(s.partition);
                    if (c != null && s.offset < c) {
                        holes++;
                        long[] first = firstHole.get(s.partition);
                        if (first == null || s.offset < first[0]) {
                            firstHole.put(s.partition, new long[] {s.offset, c});
                            firstHoleId.put(s.partition, e.getKey());
                        }
                    }
                } else if (s.effects > 1) {
                    duplicated++;
                    duplicatedEx.offer(e.getKey(), e.getKey() + " x" + s.effects);
                }
            }
        }
        List<String> holeEx = new ArrayList<>();
        firstHole.forEach((p, h) -> {
            if (holeEx.size() < Finding.EXAMPLES) {
                holeEx.add(cut.topic() + "-" + p + " committed " + h[1] + " but offset " + h[0] + " (" + firstHoleId.get(p) + ") has no effect");
            }
        });
        Finding missingF = new Finding("missing", missing, missingEx.texts());
        Finding duplicatedF = new Finding("duplicated", duplicated, duplicatedEx.texts());
        Finding unexpectedF = new Finding("unexpected", unexpected, unexpectedEx.texts());
        Finding mismatchedF = new Finding("mismatched", mismatched, mismatchedEx.texts());
        Finding malformedF = new Finding("malformed", malformedCount, malformed.texts());
        Finding sourceDupF = new Finding("source-duplicates", sourceDuplicates, sourceDupEx.texts());
        Finding holesF = committed == null ? null : new Finding("holes", holes, holeEx);
        List<String> bad = new ArrayList<>();
        for (Finding f : new Finding[] {missingF, duplicatedF, unexpectedF, mismatchedF, holesF}) {
            if (f != null && f.count() > 0) {
                bad.add(f.count() + " " + f.kind());
            }
        }
        Status status = bad.isEmpty() ? Status.PASS : Status.FAIL;
        String reason = bad.isEmpty() ? sourceCount + " source records, " + targetCount + " effects: every identity and amount matches"
                + (malformedCount > 0 ? "; " + malformedCount + " malformed source record(s) listed" : "")
                : String.join(", ", bad);
        return new Comparison(status, reason, cut, namespace, sourceCount, targetCount, missingF, duplicatedF, unexpectedF, mismatchedF,
                malformedF, sourceDupF, holesF);
    }

    private int bucket(String id) {
        return Math.floorMod(id.hashCode() * 0x9E3779B9, buckets);
    }

    private static DataOutputStream open(Path f) throws IOException {
        return new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(f), 1 << 16));
    }

    private static DataInputStream read(Path f) throws IOException {
        return new DataInputStream(new BufferedInputStream(Files.newInputStream(f), 1 << 16));
    }

    @Override
    public void close() {
        for (int b = 0; b < buckets; b++) {
            try {
                source[b].close();
                target[b].close();
            } catch (IOException ignored) {
                // closing scratch files
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(f -> f.toFile().delete());
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // temp files
        }
    }

    /** The first few examples by a key order, in bounded memory. */
    private static final class Examples<K> {
        private final TreeMap<K, String> best;

        Examples(Comparator<K> order) {
            this.best = new TreeMap<>(order);
        }

        void offer(K key, String text) {
            if (best.size() < Finding.EXAMPLES) {
                best.put(key, text);
            } else if (best.comparator().compare(key, best.lastKey()) < 0) {
                best.put(key, text);
                best.pollLastEntry();
            }
        }

        List<String> texts() {
            return List.copyOf(best.values());
        }
    }
}
