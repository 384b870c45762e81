package io.replaylab.oracle;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.replaylab.kafka.OffsetSnapshot;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The independent judge: reads the source topic up to a cut and the target's effects, and compares
 * exact identities and amounts (SPEC R6, R11, R12, R16). It trusts neither the consumer's logs nor
 * its counters. Both sides are spilled to bucket files by identity and joined one bucket at a
 * time, so memory stays bounded whatever the topic's size.
 *
 * <pre>{@code
 * Cut cut = Oracle.cut(bootstrap, "lab-x.source");
 * try (Target target = Target.open(TargetSpec.sqlite(Path.of("target.db"), "lab-x/g1"))) {
 *     Comparison c = Oracle.compare(SourceSpec.topic(bootstrap, "lab-x.source").upTo(cut), target, committedOffsets);
 *     TargetSnapshot before = Oracle.snapshot(target, Path.of("before.tsv"));
 * }
 * }</pre>
 */
public final class Oracle {
    private static final Logger log = LoggerFactory.getLogger(Oracle.class);

    private Oracle() {
    }

    /** The topic's end offsets now. */
    public static Cut cut(String bootstrap, String topic) {
        return cut(bootstrap, topic, SourceSpec.DEFAULT_TIMEOUT);
    }

    /** The topic's end offsets now; {@link OracleReadException} when the broker does not answer within {@code timeout}. */
    public static Cut cut(String bootstrap, String topic, Duration timeout) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap)) {
            List<TopicPartition> parts = partitions(c, topic, timeout);
            Map<Integer, Long> end = new HashMap<>();
            c.endOffsets(parts, timeout).forEach((tp, o) -> end.put(tp.partition(), o));
            return new Cut(topic, Instant.now(), end);
        } catch (TimeoutException e) {
            throw new OracleReadException("the broker at " + bootstrap + " did not answer within " + timeout.toSeconds()
                    + " s (reading the end offsets of topic " + topic + "): " + e.getMessage(), e);
        }
    }

    public static Comparison compare(SourceSpec source, Target target) {
        return compare(source, target, null);
    }

    /** Compares source and target; with {@code committed} (a describe of the group) it also checks the frontier (R11). */
    public static Comparison compare(SourceSpec source, Target target, OffsetSnapshot committed) {
        return join(source, committed, target.spec().namespace(), join -> readTarget(target, join));
    }

    /** One side's reader: spills its effects into the join. */
    private interface TargetSide {
        void read(BucketJoin join) throws IOException;
    }

    /**
     * The source read up to its cut and the target side read at the same time (they spill to separate
     * bucket files), then judged; either side's failure abandons the other and is the one reported.
     */
    private static Comparison join(SourceSpec source, OffsetSnapshot committed, String targetName, TargetSide targetSide) {
        Cut cut = source.cut() != null ? source.cut() : cut(source.bootstrap(), source.topic(), source.timeout());
        try (BucketJoin join = new BucketJoin(cut.total())) {
            long t0 = System.nanoTime();
            CompletableFuture<Long> targetRead = CompletableFuture.supplyAsync(() -> {
                try {
                    targetSide.read(join);
                    return System.nanoTime();
                } catch (IOException e) {
                    join.abandon();
                    throw new UncheckedIOException(e);
                } catch (RuntimeException e) {
                    join.abandon(); // a bad target (query, NULL, float, unreadable output) fails the comparison: the source read stops early
                    throw e;
                }
            });
            try {
                readTopic(source, cut, join, sourceSink(join));
            } catch (IOException | RuntimeException e) {
                join.abandon(); // the target read stops at its next row; its files are deleted only after it has
                try {
                    targetRead.join();
                } catch (CompletionException | CancellationException ignored) {
                    // the source's failure is the one to report
                }
                throw e;
            }
            long t1 = System.nanoTime();
            long t2 = join(targetRead);
            long t3 = System.nanoTime();
            Comparison c = join.judge(cut, targetName, committed);
            log.info("oracle: source {} ms, target {} ms (in parallel), compare {} ms: {}", (t1 - t0) / 1_000_000, (t2 - t0) / 1_000_000,
                    (System.nanoTime() - t3) / 1_000_000, c.counts());
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException("oracle scratch files failed: " + e.getMessage(), e);
        }
    }

    /**
     * Compares the source with an output topic, the target of a consume-transform-produce program:
     * every source record must be in the output exactly once with the same identity and amount, both
     * read {@code read_committed} (an aborted or still-open transaction's records do not count). The
     * output's records are read with {@code output}'s parser and up to its own cut (taken now when it
     * has none: with read_committed that is the last stable offset). With {@code committed} the
     * frontier is checked too (R11). The same bounded-memory join as {@link #compare}.
     */
    public static Comparison compareTopics(SourceSpec source, SourceSpec output, OffsetSnapshot committed) {
        Cut outputCut = output.cut() != null ? output.cut() : cut(output.bootstrap(), output.topic(), output.timeout());
        return join(source, committed, "topic " + output.topic() + " (read_committed)", join -> readTopic(output, outputCut, join, new RecordSink() {
            @Override
            public void ok(int partition, long offset, String id, long amount) throws IOException {
                join.target(utf8(id), amount);
            }

            @Override
            public void malformed(int partition, long offset, String reason) {
                throw new IllegalArgumentException("the output record " + output.topic() + "-" + partition + "@" + offset
                        + " cannot be read as an effect: " + reason);
            }
        }));
    }

    /** How many records of a topic a reader with {@code isolation} sees, in all and for the given identities. */
    public record TopicCount(IsolationLevel isolation, long records, Map<String, Long> ofIds) {
    }

    /**
     * Reads a whole topic as a reader with {@code isolation} would ({@code READ_UNCOMMITTED} sees the
     * records of open and aborted transactions, {@code READ_COMMITTED} does not) and counts its
     * records, and those with each of {@code ids}. Records its parser cannot read count in the total only.
     */
    public static TopicCount count(SourceSpec topic, IsolationLevel isolation, Set<String> ids) {
        Map<String, Long> of = new HashMap<>();
        ids.forEach(id -> of.put(id, 0L));
        long[] total = {0};
        readAll(topic, isolation, (r, p) -> {
            total[0]++;
            if (p.ok() && of.containsKey(p.id())) {
                of.merge(p.id(), 1L, Long::sum);
            }
        });
        return new TopicCount(isolation, total[0], Map.copyOf(of));
    }

    /**
     * What a source topic holds, read with its spec's parser (read_committed, up to its end now): the
     * source set an experiment expects effects for, when a producer other than the lab's filled it.
     *
     * @param records every record read
     * @param parsed the records the parser read (the rest are malformed: quarantined, no effect expected)
     * @param distinctIds the identities among them (a producer that sent a payment twice has fewer ids than records)
     * @param sumOfAmounts the sum of the parsed records' amounts
     * @param endOffsets per partition, the offset after its last record
     * @param malformedExamples up to five reasons, with their positions
     * @param firstRecord the first record as text (key, value, headers), at most 300 characters, or null for an empty topic
     */
    public record SourceSummary(String topic, long records, long parsed, long distinctIds, long sumOfAmounts, Map<Integer, Long> endOffsets,
            List<String> malformedExamples, String firstRecord) {
        public SourceSummary {
            endOffsets = Map.copyOf(endOffsets);
            malformedExamples = List.copyOf(malformedExamples);
        }
    }

    /**
     * Reads the whole topic with its parser: counts, sum, ends, and the first record to show (see
     * {@link SourceSummary}). Meant for an experiment's topic: its identities are held in memory.
     */
    public static SourceSummary summarize(SourceSpec topic) {
        long[] n = new long[3];
        Set<String> ids = new HashSet<>();
        Map<Integer, Long> end = new java.util.TreeMap<>();
        List<String> bad = new ArrayList<>();
        String[] first = new String[1];
        readAll(topic, IsolationLevel.READ_COMMITTED, (r, p) -> {
            n[0]++;
            end.merge(r.partition(), r.offset() + 1, Math::max);
            if (first[0] == null) {
                first[0] = describe(r);
            }
            if (p.ok()) {
                n[1]++;
                n[2] += p.amount();
                ids.add(p.id());
            } else if (bad.size() < 5) {
                bad.add("p" + r.partition() + "@" + r.offset() + ": " + p.malformedReason());
            }
        });
        return new SourceSummary(topic.topic(), n[0], n[1], ids.size(), n[2], end, bad, first[0]);
    }

    private static String describe(ConsumerRecord<byte[], byte[]> r) {
        StringBuilder sb = new StringBuilder("p" + r.partition() + "@" + r.offset() + " key=")
                .append(r.key() == null ? "null" : new String(r.key(), StandardCharsets.UTF_8))
                .append(" value=").append(r.value() == null ? "null" : new String(r.value(), StandardCharsets.UTF_8));
        for (org.apache.kafka.common.header.Header h : r.headers()) {
            sb.append(" header ").append(h.key()).append('=').append(h.value() == null ? "null" : new String(h.value(), StandardCharsets.UTF_8));
        }
        return sb.length() <= 300 ? sb.toString() : sb.substring(0, 297) + "...";
    }

    /** Every record of the topic up to its end for this isolation (the last stable offset for read_committed), parsed, to {@code each}. */
    private static void readAll(SourceSpec topic, IsolationLevel isolation,
            java.util.function.BiConsumer<ConsumerRecord<byte[], byte[]>, RecordParser.Parsed> each) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(topic.bootstrap(), isolation)) {
            List<TopicPartition> parts = partitions(c, topic.topic(), topic.timeout());
            Map<TopicPartition, Long> end = c.endOffsets(parts, topic.timeout());
            c.assign(parts);
            c.seekToBeginning(parts);
            long silentSince = System.nanoTime();
            List<TopicPartition> open = new ArrayList<>(parts.stream().filter(tp -> end.get(tp) > 0).toList());
            while (!open.isEmpty()) {
                if (System.nanoTime() - silentSince > topic.timeout().toNanos()) {
                    throw new OracleReadException("the broker at " + topic.bootstrap() + " sent nothing for " + topic.timeout().toSeconds()
                            + " s while " + open + " were still short of " + end, null);
                }
                ConsumerRecords<byte[], byte[]> batch = c.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        each.accept(r, topic.parser().parse(r.key(), r.value(), headers(r)));
                    }
                }
                if (!batch.isEmpty()) {
                    silentSince = System.nanoTime();
                }
                open.removeIf(tp -> c.position(tp) >= end.get(tp));
            }
        } catch (TimeoutException e) {
            throw new OracleReadException("the broker at " + topic.bootstrap() + " did not answer within " + topic.timeout().toSeconds()
                    + " s (reading topic " + topic.topic() + "): " + e.getMessage(), e);
        }
    }

    /**
     * The identities of a topic's records that a {@code read_uncommitted} reader sees and a
     * {@code read_committed} one does not: records of transactions still open or aborted. Meant for
     * the small topics of an experiment (the positions of the committed records are held in memory).
     */
    public static List<String> notCommitted(SourceSpec topic) {
        Set<Long> committed = new HashSet<>();
        readAll(topic, IsolationLevel.READ_COMMITTED, (r, p) -> committed.add(position(r)));
        List<String> out = new ArrayList<>();
        readAll(topic, IsolationLevel.READ_UNCOMMITTED, (r, p) -> {
            if (!committed.contains(position(r))) {
                out.add(p.ok() ? p.id() : r.topic() + "-" + r.partition() + "@" + r.offset() + " (unreadable: " + p.malformedReason() + ")");
            }
        });
        return out;
    }

    /** Where a record is: partition and offset. */
    public record Position(int partition, long offset) {
        @Override
        public String toString() {
            return partition + "@" + offset;
        }
    }

    /** Every position of a record with this identity in the topic ({@code read_committed}), in partition and offset order. */
    public static List<Position> positionsOf(SourceSpec topic, String id) {
        List<Position> out = new ArrayList<>();
        readAll(topic, IsolationLevel.READ_COMMITTED, (r, p) -> {
            if (p.ok() && p.id().equals(id)) {
                out.add(new Position(r.partition(), r.offset()));
            }
        });
        out.sort(Comparator.comparingInt(Position::partition).thenComparingLong(Position::offset));
        return out;
    }

    private static long position(ConsumerRecord<byte[], byte[]> r) {
        return ((long) r.partition() << 48) | r.offset();
    }

    private static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw new UncheckedIOException("oracle scratch files failed: " + io.getCause().getMessage(), io.getCause());
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    /**
     * Saves the target's (identity, amount) rows to {@code file} in the database's own order and
     * returns their count and digest (SPEC R6). The digest is the sum of each row's SHA-256 (mod
     * 2^256): it depends on the rows as a multiset only, never on a collation or ORDER BY, so the
     * same rows give the same digest on SQLite and on PostgreSQL.
     */
    public static TargetSnapshot snapshot(Target target, Path file) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        BigInteger sum = BigInteger.ZERO;
        long rows = 0;
        TargetSpec spec = target.spec();
        try (Connection c = target.connection();
             PreparedStatement q = prepare(c, spec.query(), spec);
             BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            streamRows(c, q);
            try (ResultSet rs = q.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                int idCol = column(md, "message_id", spec);
                int amountCol = column(md, "amount", spec);
                while (rs.next()) {
                    String id = rs.getString(idCol);
                    if (id == null) {
                        throw new IllegalArgumentException("a target row has a NULL message_id (query: " + spec.query() + ")");
                    }
                    String line = id + "\t" + (spec.amountScale() > 0 ? scaled(rs.getObject(amountCol), spec.amountScale(), id)
                            : exact(rs.getObject(amountCol), id)) + "\n";
                    w.write(line);
                    sum = sum.add(new BigInteger(1, sha.digest(line.getBytes(StandardCharsets.UTF_8))));
                    rows++;
                }
            }
        } catch (SQLException e) {
            throw targetError(spec, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write snapshot " + file, e);
        }
        byte[] digest = sum.mod(BigInteger.ONE.shiftLeft(256)).toByteArray();
        byte[] fixed = new byte[32]; // the sum as exactly 32 big-endian bytes
        int n = Math.min(32, digest.length);
        System.arraycopy(digest, digest.length - n, fixed, 32 - n, n);
        return new TargetSnapshot(file, rows, HexFormat.of().formatHex(fixed));
    }

    /**
     * The effects in the target of the source record at one offset: how a held consumer's DB commit
     * is confirmed before its offset commit (SPEC R8): the record it commits past must have exactly
     * one effect while the group's committed offset is still below it.
     */
    public static RecordEffects effectsAt(SourceSpec source, Target target, int partition, long offset) {
        Optional<RecordParser.Parsed> rec = recordAt(source, partition, offset).filter(RecordParser.Parsed::ok);
        return new RecordEffects(partition, offset, rec.map(RecordParser.Parsed::id).orElse(null),
                rec.map(r -> effectsOf(target, r.id())).orElse(0L));
    }

    /** One source record's identity (null: absent or malformed) and how many effects the target holds of it. */
    public record RecordEffects(int partition, long offset, String messageId, long effects) {
        /** The record exists, parses, and has exactly one effect. */
        public boolean appliedOnce() {
            return messageId != null && effects == 1;
        }
    }

    /**
     * The effects of the last source record below {@code committedOffset} on a partition: the record a
     * commit of that offset covers last. Not simply {@code committedOffset - 1}: a transactional
     * producer's commit markers take offsets of their own, and an aborted record is no source record.
     * Empty when the partition has no record below it.
     */
    public static Optional<RecordEffects> effectsBefore(SourceSpec source, Target target, int partition, long committedOffset) {
        return lastRecordBelow(source, partition, committedOffset)
                .map(r -> new RecordEffects(partition, r.offset(), r.parsed().ok() ? r.parsed().id() : null,
                        r.parsed().ok() ? effectsOf(target, r.parsed().id()) : 0));
    }

    private record Located(long offset, RecordParser.Parsed parsed) {
    }

    /** Reads back from {@code end} in widening windows (markers are rare: one window almost always does). */
    private static Optional<Located> lastRecordBelow(SourceSpec spec, int partition, long end) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(spec.bootstrap())) {
            TopicPartition tp = new TopicPartition(spec.topic(), partition);
            c.assign(List.of(tp));
            long beginning = c.beginningOffsets(List.of(tp), spec.timeout()).getOrDefault(tp, 0L);
            long deadline = System.nanoTime() + spec.timeout().toNanos();
            for (long window = 8; ; window *= 4) {
                long from = Math.max(beginning, end - window);
                c.seek(tp, from);
                Located last = null;
                long position = from;
                while (position < end && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(300))) {
                        if (r.offset() < end) {
                            last = new Located(r.offset(), spec.parser().parse(r.key(), r.value(), headers(r)));
                        }
                    }
                    position = c.position(tp, spec.timeout());
                }
                if (last != null) {
                    return Optional.of(last);
                }
                if (from <= beginning || System.nanoTime() >= deadline) {
                    return Optional.empty();
                }
            }
        }
    }

    /** The parsed record at one offset (e.g. the one a held consumer is about to commit past), or empty if absent. */
    public static Optional<RecordParser.Parsed> recordAt(SourceSpec spec, int partition, long offset) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(spec.bootstrap())) {
            TopicPartition tp = new TopicPartition(spec.topic(), partition);
            c.assign(List.of(tp));
            c.seek(tp, offset);
            long deadline = System.nanoTime() + spec.timeout().toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(300))) {
                    if (r.offset() == offset) {
                        return Optional.of(spec.parser().parse(r.key(), r.value(), headers(r)));
                    }
                    if (r.offset() > offset) {
                        return Optional.empty();
                    }
                }
            }
            return Optional.empty();
        }
    }

    /**
     * Runs the target's query once without reading a row: it must parse and return
     * {@code message_id} and {@code amount}. Cheap enough to run as soon as the target has a schema,
     * so that a query the database refuses is named before an experiment waits on it.
     *
     * @throws IllegalArgumentException naming the query and the database's message
     * @throws OracleReadException the target cannot be reached at all
     */
    public static void checkQuery(Target target) {
        TargetSpec spec = target.spec();
        try (Connection c = target.connection();
             PreparedStatement q = prepare(c, "SELECT message_id, amount FROM (" + spec.query() + ") effects WHERE 1 = 0", spec);
             ResultSet rs = q.executeQuery()) {
            rs.next(); // no row: what matters is that the query ran and has both columns
        } catch (SQLException e) {
            throw targetError(spec, e);
        }
    }

    /** How many effects the target holds for one identity (its query, its namespace). */
    public static long effectsOf(Target target, String messageId) {
        TargetSpec spec = target.spec();
        try (Connection c = target.connection();
             PreparedStatement q = prepare(c, "SELECT count(*) FROM (" + spec.query() + ") effects WHERE message_id = ?", spec)) {
            int n = q.getParameterMetaData().getParameterCount();
            q.setString(n, messageId);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw targetError(spec, e);
        }
    }

    /**
     * Reads every partition up to the cut at once (the fetches run in parallel, as a plain drain's
     * do). Parsing and spilling run on a second thread, so the poll loop keeps the fetches going.
     */
    /** Where a topic's parsed records go: the source side of a join, or the output side of a topic target. */
    private interface RecordSink {
        void ok(int partition, long offset, String id, long amount) throws IOException;

        void malformed(int partition, long offset, String reason) throws IOException;
    }

    private static RecordSink sourceSink(BucketJoin join) {
        return new RecordSink() {
            @Override
            public void ok(int partition, long offset, String id, long amount) throws IOException {
                join.source(partition, offset, id, amount);
            }

            @Override
            public void malformed(int partition, long offset, String reason) {
                join.malformed(partition, offset, reason);
            }
        };
    }

    private static void readTopic(SourceSpec spec, Cut cut, BucketJoin join, RecordSink sink) throws IOException {
        BlockingQueue<ConsumerRecords<byte[], byte[]>> batches = new ArrayBlockingQueue<>(4);
        ConsumerRecords<byte[], byte[]> end = new ConsumerRecords<>(Map.of(), Map.of()); // its own instance: poll() may return the shared empty one
        CompletableFuture<Void> spill = CompletableFuture.runAsync(() -> {
            try {
                for (ConsumerRecords<byte[], byte[]> batch = batches.take(); batch != end; batch = batches.take()) {
                    spill(spec, cut, batch, sink);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reading the source", e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, runnable -> {
            Thread t = new Thread(runnable, "oracle-source-spill");
            t.setDaemon(true);
            t.start();
        });
        try (KafkaConsumer<byte[], byte[]> c = consumer(spec.bootstrap())) {
            Map<TopicPartition, Long> endOffsets = new HashMap<>();
            cut.endOffsets().forEach((p, o) -> endOffsets.put(new TopicPartition(cut.topic(), p), o));
            List<TopicPartition> open = new ArrayList<>(endOffsets.keySet());
            c.assign(open);
            c.seekToBeginning(open);
            long silentSince = System.nanoTime(); // the read fails only when the broker stays silent for the whole timeout
            while (!open.isEmpty() && !join.abandoned()) {
                if (System.nanoTime() - silentSince > spec.timeout().toNanos()) {
                    throw new OracleReadException("the broker at " + spec.bootstrap() + " sent nothing for " + spec.timeout().toSeconds()
                            + " s while " + open + " were still short of the cut " + cut.endOffsets(), null);
                }
                ConsumerRecords<byte[], byte[]> batch = c.poll(Duration.ofMillis(500));
                if (!batch.isEmpty()) {
                    silentSince = System.nanoTime();
                }
                if (!batch.isEmpty() && !hand(batches, batch, spill)) {
                    break; // the spill thread failed: its error is thrown below
                }
                List<TopicPartition> done = open.stream().filter(tp -> c.position(tp) >= endOffsets.get(tp)).toList();
                if (!done.isEmpty()) {
                    open.removeAll(done);
                    c.pause(done); // reached the cut: fetch no further
                }
            }
            hand(batches, end, spill);
        } catch (RuntimeException e) {
            spill.cancel(true);
            throw e;
        }
        join(spill);
    }

    /** Queues a batch unless the spill thread has stopped; false if it has. */
    private static boolean hand(BlockingQueue<ConsumerRecords<byte[], byte[]>> batches, ConsumerRecords<byte[], byte[]> batch,
            CompletableFuture<Void> spill) {
        try {
            while (!batches.offer(batch, 100, TimeUnit.MILLISECONDS)) {
                if (spill.isDone()) {
                    return false;
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the source", e);
        }
    }

    private static void spill(SourceSpec spec, Cut cut, ConsumerRecords<byte[], byte[]> batch, RecordSink sink) throws IOException {
        for (ConsumerRecord<byte[], byte[]> r : batch) {
            if (r.offset() >= cut.endOffsets().get(r.partition())) {
                continue; // beyond the cut: not part of this comparison
            }
            RecordParser.Parsed p;
            try {
                p = spec.parser().parse(r.key(), r.value(), headers(r));
            } catch (RuntimeException e) {
                throw new IllegalStateException("the record parser failed on " + r.topic() + "-" + r.partition() + "@" + r.offset()
                        + " (a parser reports a bad record as Parsed.malformed, it does not throw): " + e, e);
            }
            if (p.ok()) {
                sink.ok(r.partition(), r.offset(), p.id(), p.amount());
            } else {
                sink.malformed(r.partition(), r.offset(), p.malformedReason());
            }
        }
    }

    private static void readTarget(Target t, BucketJoin join) throws IOException {
        TargetSpec target = t.spec();
        // SQLite hands TEXT out as its UTF-8 bytes: no decode to a String and encode back per row
        boolean utf8Text = target.isSqlite();
        try (Connection c = t.connection();
             PreparedStatement q = prepare(c, target.query(), target)) {
            streamRows(c, q);
            try (ResultSet rs = q.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                int idCol = column(md, "message_id", target);
                int amountCol = column(md, "amount", target);
                while (rs.next() && !join.abandoned()) {
                    byte[] id = utf8Text ? rs.getBytes(idCol) : utf8(rs.getString(idCol));
                    if (id == null) {
                        throw new IllegalArgumentException("a target row has a NULL message_id (query: " + target.query() + ")");
                    }
                    Object amount = rs.getObject(amountCol);
                    if (target.amountScale() > 0) {
                        join.target(id, scaled(amount, target.amountScale(), new String(id, StandardCharsets.UTF_8)));
                    } else if (amount instanceof Long || amount instanceof Integer || amount instanceof Short) {
                        join.target(id, ((Number) amount).longValue());
                    } else {
                        join.target(id, exact(amount, new String(id, StandardCharsets.UTF_8)));
                    }
                }
            }
        } catch (SQLException e) {
            throw targetError(target, e);
        }
    }

    /** Rows in batches, not the whole result in memory: PostgreSQL streams with a fetch size only inside a transaction. */
    private static void streamRows(Connection c, PreparedStatement q) throws SQLException {
        c.setAutoCommit(false); // the pool rolls back and restores auto-commit when the connection returns
        q.setFetchSize(5000);
    }

    private static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** An amount in minor units ({@code scale} decimal digits moved left of the point), as exact text. */
    private static String scaled(Object v, int scale, String id) {
        return new BigDecimal(exact(v, id)).movePointRight(scale).stripTrailingZeros().toPlainString();
    }

    /** An amount as exact text: integers and exact decimals; floating point is refused. */
    private static String exact(Object v, String id) {
        if (v == null) {
            throw new IllegalArgumentException("target row with message_id " + id + " has a NULL amount");
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof BigInteger) {
            return v.toString();
        }
        if (v instanceof BigDecimal d) {
            return d.stripTrailingZeros().toPlainString();
        }
        if (v instanceof String str) {
            try {
                return new BigDecimal(str.trim()).stripTrailingZeros().toPlainString();
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("target amount '" + str + "' of message_id " + id + " is not a number");
            }
        }
        throw new IllegalArgumentException("target amounts must be exact (integer or decimal), but message_id " + id + " holds a "
                + v.getClass().getSimpleName() + " (" + v + "); floating point cannot be compared exactly");
    }

    private static int column(ResultSetMetaData md, String name, TargetSpec target) throws SQLException {
        for (int i = 1; i <= md.getColumnCount(); i++) {
            if (md.getColumnLabel(i).equalsIgnoreCase(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("the target query must return a column named '" + name + "': " + target.query());
    }

    /** Binds every {namespace} as a parameter: it is never pasted into the SQL text. */
    private static PreparedStatement prepare(Connection c, String query, TargetSpec target) throws SQLException {
        if (query.contains(TargetSpec.PLACEHOLDER) && target.namespace() == null) {
            throw new IllegalArgumentException("the target query uses {namespace} but no namespace was given: " + query);
        }
        int n = 0;
        Matcher m = Pattern.compile(Pattern.quote(TargetSpec.PLACEHOLDER)).matcher(query);
        while (m.find()) {
            n++;
        }
        PreparedStatement ps = c.prepareStatement(query.replace(TargetSpec.PLACEHOLDER, "?"));
        for (int i = 1; i <= n; i++) {
            ps.setString(i, target.namespace());
        }
        return ps;
    }

    /**
     * A connection that failed (SQLState class 08), a login refused (28) or a database that does
     * not exist (3D) means the target could not be read: {@link OracleReadException}. Anything else
     * is the query's fault. The URL is shown without its password.
     */
    static RuntimeException targetError(TargetSpec target, SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null
                    && (s.getSQLState().startsWith("08") || s.getSQLState().startsWith("28") || s.getSQLState().startsWith("3D"))) {
                return new OracleReadException("cannot connect to the target (" + target.displayUrl()
                        + (target.user() != null ? " as " + target.user() : "") + "): " + s.getMessage(), e);
            }
        }
        return new IllegalArgumentException("cannot read the target (" + target.displayUrl() + ") with query [" + target.query() + "]: "
                + e.getMessage(), e);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        return consumer(bootstrap, IsolationLevel.READ_COMMITTED);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, IsolationLevel isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 8 * 1024 * 1024);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20); // reading up to a known cut: a long poll at a partition's end only waits
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "replay-lab-oracle");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, String topic, Duration timeout) {
        List<PartitionInfo> infos = c.partitionsFor(topic, timeout);
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException("topic '" + topic + "' does not exist");
        }
        return infos.stream().map(i -> new TopicPartition(topic, i.partition())).sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
    }

    /** The record's headers for its parser: looked up only when a mapping reads one. */
    private static RecordParser.Headers headers(ConsumerRecord<byte[], byte[]> r) {
        return name -> {
            org.apache.kafka.common.header.Header h = r.headers().lastHeader(name);
            return h == null ? null : h.value();
        };
    }
}
