package io.replaylab.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Every Kafka read of the oracle: an independent consumer (no group, no commits) over one topic of
 * a {@link SourceSpec}, read {@code read_committed} unless a count asks otherwise. Kafka's types stay
 * in here; the public classes speak in {@link Cut}, {@link TopicOracle.Isolation} and partition refs.
 */
final class SourceReader {
    private final SourceSpec spec;

    SourceReader(SourceSpec spec) {
        this.spec = spec;
    }

    /** Where a topic's parsed records go: the source side of a join, or the output side of a topic target. */
    interface RecordSink {
        void ok(int partition, long offset, String id, long amount) throws IOException;

        void malformed(int partition, long offset, String reason) throws IOException;
    }

    /** The spec's cut, or the topic's end offsets now when it has none. */
    Cut cutOrNow() {
        return spec.cut() != null ? spec.cut() : cut();
    }

    /** The topic's end offsets now; {@link OracleReadException} when the broker does not answer within the spec's timeout. */
    Cut cut() {
        Duration timeout = spec.timeout();
        try (KafkaConsumer<byte[], byte[]> c = consumer(IsolationLevel.READ_COMMITTED)) {
            List<TopicPartition> parts = partitions(c);
            Map<Integer, Long> end = new HashMap<>();
            c.endOffsets(parts, timeout).forEach((tp, o) -> end.put(tp.partition(), o));
            return new Cut(spec.topic(), Instant.now(), end);
        } catch (TimeoutException e) {
            throw new OracleReadException("the broker at " + spec.bootstrap() + " did not answer within " + timeout.toSeconds()
                    + " s (reading the end offsets of topic " + spec.topic() + "): " + e.getMessage(), e);
        }
    }

    /** Every record of the topic up to its end for this isolation (the last stable offset for read_committed), parsed, to {@code each}. */
    void readAll(TopicOracle.Isolation isolation, BiConsumer<ConsumerRecord<byte[], byte[]>, RecordParser.Parsed> each) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(kafka(isolation))) {
            List<TopicPartition> parts = partitions(c);
            Map<TopicPartition, Long> end = c.endOffsets(parts, spec.timeout());
            c.assign(parts);
            c.seekToBeginning(parts);
            long silentSince = System.nanoTime();
            List<TopicPartition> open = new ArrayList<>(parts.stream().filter(tp -> end.get(tp) > 0).toList());
            while (!open.isEmpty()) {
                if (System.nanoTime() - silentSince > spec.timeout().toNanos()) {
                    throw new OracleReadException("the broker at " + spec.bootstrap() + " sent nothing for " + spec.timeout().toSeconds()
                            + " s while " + open + " were still short of " + end, null);
                }
                ConsumerRecords<byte[], byte[]> batch = c.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        each.accept(r, spec.parser().parse(r.key(), r.value(), headers(r)));
                    }
                }
                if (!batch.isEmpty()) {
                    silentSince = System.nanoTime();
                }
                open.removeIf(tp -> c.position(tp) >= end.get(tp));
            }
        } catch (TimeoutException e) {
            throw new OracleReadException("the broker at " + spec.bootstrap() + " did not answer within " + spec.timeout().toSeconds()
                    + " s (reading topic " + spec.topic() + "): " + e.getMessage(), e);
        }
    }

    /**
     * Reads every partition up to the cut at once (the fetches run in parallel, as a plain drain's
     * do). Parsing and spilling run on a second thread, so the poll loop keeps the fetches going.
     * Stops early when {@code join} is abandoned (the other side failed).
     */
    void readTo(Cut cut, BucketJoin join, RecordSink sink) throws IOException {
        BlockingQueue<ConsumerRecords<byte[], byte[]>> batches = new ArrayBlockingQueue<>(4);
        ConsumerRecords<byte[], byte[]> end = new ConsumerRecords<>(Map.of(), Map.of()); // its own instance: poll() may return the shared empty one
        CompletableFuture<Void> spill = CompletableFuture.runAsync(() -> {
            try {
                for (ConsumerRecords<byte[], byte[]> batch = batches.take(); batch != end; batch = batches.take()) {
                    spill(cut, batch, sink);
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
        try (KafkaConsumer<byte[], byte[]> c = consumer(IsolationLevel.READ_COMMITTED)) {
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
        SourceJoin.join(spill);
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

    private void spill(Cut cut, ConsumerRecords<byte[], byte[]> batch, RecordSink sink) throws IOException {
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

    /** A record's offset and what the parser made of it. */
    record Located(long offset, RecordParser.Parsed parsed) {
    }

    /** The last record below {@code end}: read back from there in widening windows (markers are rare: one window almost always does). */
    Optional<Located> lastRecordBelow(int partition, long end) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(IsolationLevel.READ_COMMITTED)) {
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
    Optional<RecordParser.Parsed> recordAt(int partition, long offset) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(IsolationLevel.READ_COMMITTED)) {
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

    /** A record as text (position, key, value, headers), at most 300 characters: what a summary shows of a topic. */
    static String describe(ConsumerRecord<byte[], byte[]> r) {
        StringBuilder sb = new StringBuilder("p" + r.partition() + "@" + r.offset() + " key=")
                .append(r.key() == null ? "null" : new String(r.key(), StandardCharsets.UTF_8))
                .append(" value=").append(r.value() == null ? "null" : new String(r.value(), StandardCharsets.UTF_8));
        for (Header h : r.headers()) {
            sb.append(" header ").append(h.key()).append('=').append(h.value() == null ? "null" : new String(h.value(), StandardCharsets.UTF_8));
        }
        return sb.length() <= 300 ? sb.toString() : sb.substring(0, 297) + "...";
    }

    private static IsolationLevel kafka(TopicOracle.Isolation isolation) {
        return isolation == TopicOracle.Isolation.READ_UNCOMMITTED ? IsolationLevel.READ_UNCOMMITTED : IsolationLevel.READ_COMMITTED;
    }

    private KafkaConsumer<byte[], byte[]> consumer(IsolationLevel isolation) {
        Properties p = spec.client().properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.bootstrap());
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

    private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c) {
        List<PartitionInfo> infos = c.partitionsFor(spec.topic(), spec.timeout());
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException("topic '" + spec.topic() + "' does not exist");
        }
        return infos.stream().map(i -> new TopicPartition(spec.topic(), i.partition())).sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
    }

    /** The record's headers for its parser: looked up only when a mapping reads one. */
    private static RecordParser.Headers headers(ConsumerRecord<byte[], byte[]> r) {
        return name -> {
            Header h = r.headers().lastHeader(name);
            return h == null ? null : h.value();
        };
    }
}
