package io.replaylab.oracle;

import static io.replaylab.oracle.Spill.i32;
import static io.replaylab.oracle.Spill.i64;

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
    /** Small enough that a bucket's index and bytes stay mostly in cache during its join. */
    private static final int RECORDS_PER_BUCKET = 50_000;
    private static final int MAX_BUCKETS = 256;
    private static final int MAX_JOIN_THREADS = 4;
    private static final int MAX_FIELD = 0xFFFF;
    private static final Comparator<long[]> BY_PARTITION_OFFSET = Comparator.comparingLong((long[] k) -> k[0]).thenComparingLong(k -> k[1]);

    private final Path dir;
    private final int buckets;
    private final Spill.Writer[] source;
    private final Spill.Writer[] target;
    private final int[] sourceInBucket;
    private final Examples<long[]> malformed = new Examples<>(BY_PARTITION_OFFSET);
    private volatile boolean abandoned;
    /** Null: no archived records were given (not a share group, or nobody watched), and no archived findings are made. */
    private Map<Integer, Map<Long, ArchivedRecord>> archived;
    private final Examples<long[]> archivedMalformedEx = new Examples<>(BY_PARTITION_OFFSET);
    private long sourceCount;
    private long targetCount;

    BucketJoin(long expectedRecords) {
        this.buckets = (int) Math.min(MAX_BUCKETS, Math.max(4, expectedRecords / RECORDS_PER_BUCKET + 1));
        this.sourceInBucket = new int[buckets];
        this.source = new Spill.Writer[buckets];
        this.target = new Spill.Writer[buckets];
        try {
            this.dir = Files.createTempDirectory("replay-lab-oracle-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the oracle's scratch directory", e);
        }
        try {
            for (int b = 0; b < buckets; b++) {
                source[b] = new Spill.Writer(dir.resolve("s" + b));
                target[b] = new Spill.Writer(dir.resolve("t" + b));
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot create the oracle's scratch files in " + dir, e);
        }
    }

    /** The records a share group archived (before any record is read): one without an effect is archived or rejected, not missing. */
    void archived(String topic, java.util.Collection<ArchivedRecord> records) {
        archived = new HashMap<>();
        for (ArchivedRecord r : records) {
            if (!r.partition().topic().equals(topic)) {
                throw new IllegalArgumentException("archived record " + r.partition() + "@" + r.offset() + " is not of the source topic " + topic
                        + ": give the oracle the archived records of its own topic only");
            }
            archived.computeIfAbsent(r.partition().partition(), p -> new HashMap<>()).put(r.offset(), r);
        }
    }

    private ArchivedRecord archivedAt(int partition, long offset) {
        Map<Long, ArchivedRecord> p = archived == null ? null : archived.get(partition);
        return p == null ? null : p.get(offset);
    }

    /** The comparison will not be judged (one side failed): the other side may stop reading. */
    void abandon() {
        abandoned = true;
    }

    boolean abandoned() {
        return abandoned;
    }

    /** One source record (called from one thread). */
    void source(int partition, long offset, String id, long amount) throws IOException {
        byte[] key = field(id.getBytes(StandardCharsets.UTF_8), "message id", id);
        long h = Spill.hash(key, 0, key.length);
        int b = bucket(h);
        source[b].record(h, key, amount, partition, offset);
        if (++sourceInBucket[b] < 0) {
            throw new IllegalStateException("more than 2^31 source records in one bucket");
        }
        sourceCount++;
    }

    void malformed(int partition, long offset, String reason) {
        malformed.offer(new long[] {partition, offset}, "p" + partition + "@" + offset + ": " + reason);
        ArchivedRecord a = archivedAt(partition, offset);
        if (a != null && !a.rejected()) { // listed as malformed all the same; lost with nobody's word, it counts as archived too
            archivedMalformedEx.offer(new long[] {partition, offset}, "p" + partition + "@" + offset + " (malformed) " + a.fate());
        } // a REJECT of a record nobody can read is the consumer's word on it: the malformed finding lists it
    }

    /** One target effect with an integer amount (called from one thread, which may differ from the source's). */
    void target(byte[] id, long amount) throws IOException {
        byte[] key = field(id, "message id", null);
        long h = Spill.hash(key, 0, key.length);
        target[bucket(h)].record(h, key, amount);
        targetCount++;
    }

    /** One target effect with an exact decimal amount in its canonical text (no trailing zeros, no exponent). */
    void target(byte[] id, String exactAmount) throws IOException {
        if (exactAmount.indexOf('.') < 0) {
            try {
                target(id, Long.parseLong(exactAmount)); // an integer has one form: the integer one
                return;
            } catch (NumberFormatException beyondLong) {
                // stays text
            }
        }
        byte[] key = field(id, "message id", null);
        long h = Spill.hash(key, 0, key.length);
        target[bucket(h)].record(h, key, field(exactAmount.getBytes(StandardCharsets.UTF_8), "amount", exactAmount));
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
        Finding missingF = new Finding("missing", t.missingEx.count(), t.missingEx.texts());
        Finding duplicatedF = new Finding("duplicated", t.duplicatedEx.count(), t.duplicatedEx.texts());
        Finding unexpectedF = new Finding("unexpected", t.unexpectedEx.count(), t.unexpectedEx.texts());
        Finding mismatchedF = new Finding("mismatched", t.mismatchedEx.count(), t.mismatchedEx.texts());
        Finding malformedF = new Finding("malformed", malformed.count(), malformed.texts());
        Finding sourceDupF = new Finding("source-duplicates", t.sourceDupEx.count(), t.sourceDupEx.texts());
        Finding holesF = committed == null ? null : new Finding("holes", t.holes, holeEx);
        t.archivedEx.addAll(archivedMalformedEx);
        Finding archivedF = archived == null ? null : new Finding("archived", t.archivedEx.count(), t.archivedEx.texts());
        Finding rejectedF = archived == null ? null : new Finding("rejected", t.rejectedEx.count(), t.rejectedEx.texts());
        List<String> bad = new ArrayList<>();
        for (Finding f : new Finding[] {missingF, duplicatedF, unexpectedF, mismatchedF, holesF, archivedF, rejectedF}) {
            if (f != null && f.count() > 0) {
                bad.add(f.count() + " " + f.kind());
            }
        }
        Status status = bad.isEmpty() ? Status.PASS : Status.FAIL;
        String reason = bad.isEmpty() ? sourceCount + " source records, " + targetCount + " effects: every identity and amount matches"
                + (malformed.count() > 0 ? "; " + malformed.count() + " malformed source record(s) listed" : "")
                : String.join(", ", bad);
        return new Comparison(status, reason, cut, namespace, sourceCount, targetCount, missingF, duplicatedF, unexpectedF, mismatchedF,
                malformedF, sourceDupF, holesF, archivedF, rejectedF);
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
        // per source record: [position in s, copies (0 for a later copy of an indexed identity), effects], side by side for locality
        int[] rec = new int[3 * n];
        // open addressing: (hash fragment << 32) | (record + 1); the fragment spares most probes a look into s
        long[] table = new long[tableSize(n)];
        int mask = table.length - 1;
        int pos = 0;
        for (int i = 0; i < n; i++) {
            rec[3 * i] = pos;
            long h = i64(s, pos);
            int idLen = Spill.idLength(s, pos);
            int idOff = Spill.idAt(pos);
            int a = idOff + idLen;
            pos = a + Spill.amountLength(s, a) + 12;
            int r = find(table, mask, h, rec, s, s, idOff, idLen);
            if (r >= 0) {
                rec[3 * r + 1]++;
            } else {
                table[-r - 1] = (h & FRAGMENT) | (i + 1);
                rec[3 * i + 1] = 1;
            }
        }
        Map<String, Integer> ghosts = new HashMap<>();
        try (Spill.Reader in = new Spill.Reader(dir.resolve("t" + b))) {
            while (in.next()) {
                byte[] buf = in.buf;
                int r = find(table, mask, in.hash, rec, s, buf, in.id, in.idLen);
                if (r < 0) {
                    ghosts.merge(new String(buf, in.id, in.idLen, StandardCharsets.UTF_8), 1, Integer::sum);
                    continue;
                }
                rec[3 * r + 2]++;
                int srcAmt = Spill.amountAt(s, rec[3 * r]);
                if (!Spill.sameAmount(s, srcAmt, buf, in.amount)) {
                    String key = idAt(s, rec[3 * r]);
                    t.mismatchedEx.offer(key, key + " source " + Spill.amountText(s, srcAmt) + " target " + Spill.amountText(buf, in.amount));
                }
            }
        }
        ghosts.keySet().forEach(g -> t.unexpectedEx.offer(g, g));
        for (int i = 0; i < n; i++) {
            int at = rec[3 * i];
            int copies = rec[3 * i + 1];
            int effects = rec[3 * i + 2];
            if (copies == 0) {
                continue;
            }
            if (copies > 1) {
                String key = idAt(s, at);
                t.sourceDupEx.offer(key, key + " at " + copies + " offsets");
            }
            if (effects == 0) {
                int a = Spill.amountAt(s, at);
                int tail = a + Spill.amountLength(s, a);
                int partition = i32(s, tail);
                long offset = i64(s, tail + 4);
                String key = idAt(s, at);
                ArchivedRecord archival = archivedAt(partition, offset);
                if (archival != null) { // no effect, and the broker will never deliver it again: a readable record's effect is lost either way
                    String text = key + " (p" + partition + "@" + offset + ") " + archival.fate();
                    if (archival.rejected()) {
                        t.rejectedEx.offer(new long[] {partition, offset}, text);
                    } else {
                        t.archivedEx.offer(new long[] {partition, offset}, text);
                    }
                    continue;
                }
                t.missingEx.offer(new long[] {partition, offset}, key + " (p" + partition + "@" + offset + ", amount " + Spill.amountText(s, a) + ")");
                Long c = frontier.get(partition);
                if (c != null && offset < c) {
                    t.holes++;
                    t.hole(partition, offset, c, key);
                }
            } else if (effects > 1) {
                String key = idAt(s, at);
                t.duplicatedEx.offer(key, key + " x" + effects);
            }
        }
    }

    private static final long FRAGMENT = 0xFFFFFFFF00000000L;

    /** The indexed record whose identity equals {@code key[off, off+len)}, or {@code -(free slot) - 1}. */
    private static int find(long[] table, int mask, long h, int[] rec, byte[] s, byte[] key, int off, int len) {
        long fragment = h & FRAGMENT;
        for (int slot = (int) h & mask;; slot = (slot + 1) & mask) {
            long e = table[slot];
            if (e == 0) {
                return -slot - 1;
            }
            if ((e & FRAGMENT) == fragment) {
                int r = (int) e - 1;
                int at = rec[3 * r];
                int id = Spill.idAt(at);
                if (Arrays.equals(s, id, id + Spill.idLength(s, at), key, off, off + len)) {
                    return r;
                }
            }
        }
    }

    private static String idAt(byte[] s, int at) {
        return new String(s, Spill.idAt(at), Spill.idLength(s, at), StandardCharsets.UTF_8);
    }

    private static byte[] field(byte[] b, String what, String text) {
        if (b.length > MAX_FIELD) {
            String shown = text != null ? text : new String(b, 0, 120, StandardCharsets.UTF_8);
            throw new IllegalArgumentException("a " + what + " of " + b.length + " bytes is longer than the oracle's limit of " + MAX_FIELD
                    + ": " + shown.substring(0, Math.min(40, shown.length())) + "...");
        }
        return b;
    }

    private int bucket(long hash) {
        return Spill.bucket(hash, buckets);
    }

    private static int tableSize(int n) {
        int size = 16;
        while (size < 2 * n) {
            size <<= 1;
        }
        return size;
    }

    @Override
    public void close() {
        for (int b = 0; b < buckets; b++) {
            Spill.closeQuietly(source[b]);
            Spill.closeQuietly(target[b]);
        }
        Spill.delete(dir);
    }

    /** One join thread's counts and examples; tallies add up. */
    private static final class Tally {
        long holes;
        final Examples<long[]> missingEx = new Examples<>(BY_PARTITION_OFFSET);
        final Examples<long[]> archivedEx = new Examples<>(BY_PARTITION_OFFSET);
        final Examples<long[]> rejectedEx = new Examples<>(BY_PARTITION_OFFSET);
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
            holes += o.holes;
            missingEx.addAll(o.missingEx);
            archivedEx.addAll(o.archivedEx);
            rejectedEx.addAll(o.rejectedEx);
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
    /** A finding's count and its first examples in {@code order}: each offer counts once, whether kept or not. */
    private static final class Examples<K> {
        private final TreeMap<K, String> best;
        private long count;

        Examples(Comparator<K> order) {
            this.best = new TreeMap<>(order);
        }

        void offer(K key, String text) {
            count++;
            keep(key, text);
        }

        private void keep(K key, String text) {
            if (best.size() < Finding.EXAMPLES) {
                best.put(key, text);
            } else if (best.comparator().compare(key, best.lastKey()) < 0) {
                best.put(key, text);
                best.pollLastEntry();
            }
        }

        void addAll(Examples<K> other) {
            count += other.count;
            other.best.forEach(this::keep);
        }

        long count() {
            return count;
        }

        List<String> texts() {
            return List.copyOf(best.values());
        }
    }
}
