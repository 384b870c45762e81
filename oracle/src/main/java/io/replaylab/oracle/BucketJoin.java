package io.replaylab.oracle;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.replaylab.evidence.Status;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;

/**
 * The comparison as a partitioned hash join: both sides are spilled to bucket files by a hash of
 * the identity's UTF-8 bytes, then each bucket is joined in memory. Memory is bounded by one bucket
 * per join thread, whatever the topic's size, and each side is read exactly once from its system.
 *
 * <p>A bucket's source file is loaded as one byte array and indexed by an open-addressing table of
 * record positions; the target file is streamed through it. No object is made per record (only per
 * discrepancy), which is what keeps the join cheap next to the reads it follows.
 */
final class BucketJoin implements AutoCloseable {
    private static final int RECORDS_PER_BUCKET = 250_000;
    private static final int MAX_BUCKETS = 256;
    private static final int MAX_JOIN_THREADS = 4;
    private static final int SPILL_BUFFER = 1 << 15;
    private static final int MAX_FIELD = 0xFFFF;
    private static final Comparator<long[]> BY_PARTITION_OFFSET = Comparator.comparingLong((long[] k) -> k[0]).thenComparingLong(k -> k[1]);

    private final Path dir;
    private final int buckets;
    private final DataOutputStream[] source;
    private final DataOutputStream[] target;
    private final int[] sourceInBucket;
    private final Examples<long[]> malformed = new Examples<>(BY_PARTITION_OFFSET);
    private long malformedCount;
    private long sourceCount;
    private long targetCount;

    BucketJoin(long expectedRecords) {
        this.buckets = (int) Math.min(MAX_BUCKETS, Math.max(4, expectedRecords / RECORDS_PER_BUCKET + 1));
        this.sourceInBucket = new int[buckets];
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

    /** One source record (called from one thread). */
    void source(int partition, long offset, String id, String amount) throws IOException {
        byte[] key = field(id, "message id");
        int b = bucket(hash(key, 0, key.length));
        DataOutputStream out = source[b];
        out.writeShort(key.length);
        out.write(key);
        writeAmount(out, amount);
        out.writeInt(partition);
        out.writeLong(offset);
        if (++sourceInBucket[b] < 0) {
            throw new IllegalStateException("more than 2^31 source records in one bucket");
        }
        sourceCount++;
    }

    void malformed(int partition, long offset, String reason) {
        malformedCount++;
        malformed.offer(new long[] {partition, offset}, "p" + partition + "@" + offset + ": " + reason);
    }

    /** One target effect (called from one thread, which may differ from the source's). */
    void target(String id, String amount) throws IOException {
        byte[] key = field(id, "message id");
        DataOutputStream out = target[bucket(hash(key, 0, key.length))];
        out.writeShort(key.length);
        out.write(key);
        writeAmount(out, amount);
        targetCount++;
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
        Tally t = joinAll(frontier);
        List<String> holeEx = new ArrayList<>();
        t.firstHole.forEach((p, h) -> {
            if (holeEx.size() < Finding.EXAMPLES) {
                holeEx.add(cut.topic() + "-" + p + " committed " + h.committed + " but offset " + h.offset + " (" + h.id + ") has no effect");
            }
        });
        Finding missingF = new Finding("missing", t.missing, t.missingEx.texts());
        Finding duplicatedF = new Finding("duplicated", t.duplicated, t.duplicatedEx.texts());
        Finding unexpectedF = new Finding("unexpected", t.unexpected, t.unexpectedEx.texts());
        Finding mismatchedF = new Finding("mismatched", t.mismatched, t.mismatchedEx.texts());
        Finding malformedF = new Finding("malformed", malformedCount, malformed.texts());
        Finding sourceDupF = new Finding("source-duplicates", t.sourceDuplicates, t.sourceDupEx.texts());
        Finding holesF = committed == null ? null : new Finding("holes", t.holes, holeEx);
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

    /** Buckets are independent: a few threads take them in turn, each with its own tally, merged at the end. */
    private Tally joinAll(Map<Integer, Long> frontier) throws IOException {
        int threads = Math.max(1, Math.min(Math.min(MAX_JOIN_THREADS, Runtime.getRuntime().availableProcessors()), buckets));
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread th = new Thread(r, "oracle-join");
            th.setDaemon(true);
            return th;
        });
        try {
            List<Future<Tally>> parts = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                parts.add(pool.submit(() -> {
                    Tally mine = new Tally();
                    for (int b = next.getAndIncrement(); b < buckets; b = next.getAndIncrement()) {
                        joinBucket(b, frontier, mine);
                    }
                    return mine;
                }));
            }
            Tally all = new Tally();
            for (Future<Tally> f : parts) {
                all.add(f.get());
            }
            return all;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while comparing", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private void joinBucket(int b, Map<Integer, Long> frontier, Tally t) throws IOException {
        byte[] s = Files.readAllBytes(dir.resolve("s" + b));
        int n = sourceInBucket[b];
        int[] at = new int[n];
        int[] copies = new int[n]; // 0 for a later copy of an identity already indexed
        int[] effects = new int[n];
        int[] table = new int[tableSize(n)];
        int mask = table.length - 1;
        int pos = 0;
        for (int i = 0; i < n; i++) {
            at[i] = pos;
            int idLen = u16(s, pos);
            int idOff = pos + 2;
            int amtLen = u16(s, idOff + idLen);
            pos = idOff + idLen + 2 + amtLen + 12;
            int slot = (int) hash(s, idOff, idLen) & mask;
            while (true) {
                int r = table[slot] - 1;
                if (r < 0) {
                    table[slot] = i + 1;
                    copies[i] = 1;
                    break;
                }
                if (Arrays.equals(s, at[r] + 2, at[r] + 2 + u16(s, at[r]), s, idOff, idOff + idLen)) {
                    copies[r]++;
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        Map<String, Integer> ghosts = new HashMap<>();
        byte[] id = new byte[MAX_FIELD];
        byte[] amt = new byte[MAX_FIELD];
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(dir.resolve("t" + b)), 1 << 16))) {
            while (true) {
                int idLen;
                try {
                    idLen = in.readUnsignedShort();
                } catch (EOFException eof) {
                    break;
                }
                in.readFully(id, 0, idLen);
                int amtLen = in.readUnsignedShort();
                in.readFully(amt, 0, amtLen);
                int slot = (int) hash(id, 0, idLen) & mask;
                int r;
                while (true) {
                    r = table[slot] - 1;
                    if (r < 0 || Arrays.equals(s, at[r] + 2, at[r] + 2 + u16(s, at[r]), id, 0, idLen)) {
                        break;
                    }
                    slot = (slot + 1) & mask;
                }
                if (r < 0) {
                    ghosts.merge(new String(id, 0, idLen, StandardCharsets.UTF_8), 1, Integer::sum);
                    continue;
                }
                effects[r]++;
                int srcAmt = at[r] + 2 + u16(s, at[r]);
                if (!Arrays.equals(s, srcAmt + 2, srcAmt + 2 + u16(s, srcAmt), amt, 0, amtLen)) {
                    String key = idAt(s, at[r]);
                    t.mismatched++;
                    t.mismatchedEx.offer(key, key + " source " + amountAt(s, at[r]) + " target " + new String(amt, 0, amtLen, StandardCharsets.UTF_8));
                }
            }
        }
        t.unexpected += ghosts.size();
        ghosts.keySet().forEach(g -> t.unexpectedEx.offer(g, g));
        for (int i = 0; i < n; i++) {
            if (copies[i] == 0) {
                continue;
            }
            if (copies[i] > 1) {
                String key = idAt(s, at[i]);
                t.sourceDuplicates++;
                t.sourceDupEx.offer(key, key + " at " + copies[i] + " offsets");
            }
            if (effects[i] == 0) {
                int tail = at[i] + 2 + u16(s, at[i]);
                tail += 2 + u16(s, tail);
                int partition = i32(s, tail);
                long offset = i64(s, tail + 4);
                String key = idAt(s, at[i]);
                t.missing++;
                t.missingEx.offer(new long[] {partition, offset}, key + " (p" + partition + "@" + offset + ", amount " + amountAt(s, at[i]) + ")");
                Long c = frontier.get(partition);
                if (c != null && offset < c) {
                    t.holes++;
                    t.hole(partition, offset, c, key);
                }
            } else if (effects[i] > 1) {
                String key = idAt(s, at[i]);
                t.duplicated++;
                t.duplicatedEx.offer(key, key + " x" + effects[i]);
            }
        }
    }

    private static String idAt(byte[] s, int at) {
        return new String(s, at + 2, u16(s, at), StandardCharsets.UTF_8);
    }

    private static String amountAt(byte[] s, int at) {
        int a = at + 2 + u16(s, at);
        return new String(s, a + 2, u16(s, a), StandardCharsets.UTF_8);
    }

    private static void writeAmount(DataOutputStream out, String amount) throws IOException {
        byte[] a = field(amount, "amount");
        out.writeShort(a.length);
        out.write(a);
    }

    private static byte[] field(String text, String what) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_FIELD) {
            throw new IllegalArgumentException("a " + what + " of " + b.length + " bytes is longer than the oracle's limit of " + MAX_FIELD
                    + ": " + text.substring(0, 40) + "...");
        }
        return b;
    }

    private int bucket(long hash) {
        return (int) Math.floorMod(hash >>> 40, (long) buckets); // high bits: the table slot uses the low ones
    }

    private static int tableSize(int n) {
        int size = 16;
        while (size < 2 * n) {
            size <<= 1;
        }
        return size;
    }

    /** FNV-1a over the bytes, then a 64-bit finalizer so both the high (bucket) and low (slot) bits mix. */
    static long hash(byte[] b, int off, int len) {
        long h = 0xcbf29ce484222325L;
        for (int i = off; i < off + len; i++) {
            h ^= b[i] & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    private static int u16(byte[] b, int i) {
        return ((b[i] & 0xff) << 8) | (b[i + 1] & 0xff);
    }

    private static int i32(byte[] b, int i) {
        return ((b[i] & 0xff) << 24) | ((b[i + 1] & 0xff) << 16) | ((b[i + 2] & 0xff) << 8) | (b[i + 3] & 0xff);
    }

    private static long i64(byte[] b, int i) {
        return ((long) i32(b, i) << 32) | (i32(b, i + 4) & 0xffffffffL);
    }

    private static DataOutputStream open(Path f) throws IOException {
        return new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(f), SPILL_BUFFER));
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

    /** One join thread's counts and examples; tallies add up. */
    private static final class Tally {
        long missing;
        long duplicated;
        long unexpected;
        long mismatched;
        long sourceDuplicates;
        long holes;
        final Examples<long[]> missingEx = new Examples<>(BY_PARTITION_OFFSET);
        final Examples<String> duplicatedEx = new Examples<String>(Comparator.<String>naturalOrder());
        final Examples<String> unexpectedEx = new Examples<String>(Comparator.<String>naturalOrder());
        final Examples<String> mismatchedEx = new Examples<String>(Comparator.<String>naturalOrder());
        final Examples<String> sourceDupEx = new Examples<String>(Comparator.<String>naturalOrder());
        final Map<Integer, Hole> firstHole = new TreeMap<>();

        void hole(int partition, long offset, long committed, String id) {
            Hole h = firstHole.get(partition);
            if (h == null || offset < h.offset) {
                firstHole.put(partition, new Hole(offset, committed, id));
            }
        }

        void add(Tally o) {
            missing += o.missing;
            duplicated += o.duplicated;
            unexpected += o.unexpected;
            mismatched += o.mismatched;
            sourceDuplicates += o.sourceDuplicates;
            holes += o.holes;
            missingEx.addAll(o.missingEx);
            duplicatedEx.addAll(o.duplicatedEx);
            unexpectedEx.addAll(o.unexpectedEx);
            mismatchedEx.addAll(o.mismatchedEx);
            sourceDupEx.addAll(o.sourceDupEx);
            o.firstHole.forEach((p, h) -> hole(p, h.offset, h.committed, h.id));
        }
    }

    private record Hole(long offset, long committed, String id) {
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

        void addAll(Examples<K> other) {
            other.best.forEach(this::offer);
        }

        List<String> texts() {
            return List.copyOf(best.values());
        }
    }
}
