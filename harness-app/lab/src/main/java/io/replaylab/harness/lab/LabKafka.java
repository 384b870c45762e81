package io.replaylab.harness.lab;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;

import io.micrometer.core.instrument.Timer;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.barrier.wire.WireWitness;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.TopicOracle;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * An experiment's Kafka: the broker as the harness and the subjects reach it, its own Admin client,
 * the run's namespace, the wire proxy and witness, the source topics (filled and read back with the
 * run's mapping) and the waits on a group ({@link LabContext#kafka()}).
 */
public final class LabKafka {
    private final LabContext ctx;
    private final KafkaOps ops;

    LabKafka(LabContext ctx, KafkaOps ops) {
        this.ctx = ctx;
        this.ops = ops;
    }

    /** The broker, as the harness reaches it (subjects may go through the wire proxy: {@link #subjectBootstrap()}). */
    public String bootstrap() {
        return ctx.run().bootstrap;
    }

    /** The run's namespace; each experiment runs in a child of it. */
    public LabNamespace namespace() {
        return ctx.run().ns;
    }

    /** This experiment's Admin client: its request count is this experiment's alone. */
    public KafkaOps ops() {
        return ops;
    }

    public String brokerVersion() {
        return ctx.run().brokerVersion;
    }

    /** The wire proxy every subject talks through: when the run's barrier is the wire barrier, or the run has a witness. */
    public Optional<WireProxy> proxy() {
        return Optional.ofNullable(ctx.run().proxy);
    }

    /** What the proxy saw of the subjects' commits: whenever subjects talk through it ({@link BrokerSettings#witness()}, or the wire barrier). */
    public Optional<WireWitness> witness() {
        return proxy().map(WireProxy::witness);
    }

    /** Where subjects connect: the wire proxy when the run uses one, else the broker. */
    public String subjectBootstrap() {
        return ctx.run().proxy == null ? ctx.run().bootstrap : ctx.run().proxy.bootstrapServers();
    }

    /** One of the run's topics as the oracle reads it: with the run's source mapping ({@link LabSettings#source()}). */
    public SourceSpec source(String topic) {
        return SourceSpec.topic(ctx.run().bootstrap, topic).parser(ctx.settings().source().parser());
    }

    /**
     * Fills an experiment's source topic and says what it then holds: the topic is created with the
     * run's partitions, then filled by the user's producer (run like a subject: watchdog, logs, the
     * drain timeout) or by the lab's own in the run's record shape, then read back with the run's
     * mapping. What it holds IS the source set (recorded as a note and {@code snapshots/<topic>-source.json}).
     *
     * @throws SubjectExitedException the producer failed, hung, or left the topic empty (the experiment is NOT_RUN)
     * @throws LabStoppedException the mapping reads none of the records: the whole run stops, as bad input
     */
    public TopicOracle.SourceSummary fillSource(ExperimentRecorder e, String topic, String namespace) throws Exception {
        RecordSource source = ctx.settings().source();
        Optional<Subject> producer = source.producer();
        if (producer.isPresent()) {
            SyntheticProducer.ensureTopic(ctx.run().bootstrap, topic, ctx.settings().broker().partitions()); // before the user's producer (the lab's makes its own)
            runProducer(e, producer.get(), topic, namespace);
        } else {
            String manifest = "snapshots/" + namespace + "-manifest.json";
            String summary = SyntheticProducer.summary(SyntheticProducer.produce(ctx.run().bootstrap, topic, ctx.settings().broker().partitions(), namespace,
                    ctx.settings().records(), 7, 10, 0, ctx.runDir().resolve(manifest), null, source));
            e.record(Source.here("harness"), new Payload.Note(summary));
            e.artifact(manifest, "what was produced (count, sums, end offsets)");
        }
        TopicOracle.SourceSummary s = TopicOracle.of(source(topic)).summarize();
        String file = "snapshots/" + topic + "-source.json";
        io.replaylab.evidence.Evidence.writeJson(ctx.runDir().resolve(file), s);
        e.artifact(file, "the source set as read back with " + source.mapping());
        e.record(Source.here("harness"), new Payload.Note("the source set: " + topic + " holds " + s.records() + " record(s), " + s.parsed()
                + " read with " + source.mapping() + " (" + s.distinctIds() + " distinct ids, sum of amounts " + s.sumOfAmounts() + "), "
                + (s.records() - s.parsed())
                + " malformed (quarantined: no effect expected)" + (s.malformedExamples().isEmpty() ? "" : " e.g. " + s.malformedExamples())
                + "; end offsets " + s.endOffsets()));
        if (s.records() == 0) {
            throw new SubjectExitedException("the producer command " + producer.map(Subject::template).orElse("") + " wrote no record to topic "
                    + topic + " (the lab created it with " + ctx.settings().broker().partitions() + " partitions before the producer ran; does the producer take "
                    + "its topic from {topic}?)");
        }
        if (s.parsed() == 0) {
            String why = "the source mapping (" + source.mapping() + ") read 0 of " + s.records() + " records of " + topic + "; record "
                    + s.firstRecord() + (s.malformedExamples().isEmpty() ? "" : "; " + s.malformedExamples().get(0));
            ctx.run().refuse(why, true);
            ctx.step(why);
            throw new LabStoppedException(why);
        }
        return s;
    }

    /**
     * Every record of {@code topic} as it is stored (key, value and headers as bytes), in partition
     * and offset order: what a re-send or a copy writes again unchanged.
     */
    public List<ConsumerRecord<byte[], byte[]>> readRaw(String topic) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        Map<String, Object> p = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (var c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<org.apache.kafka.common.TopicPartition> parts = c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            Map<org.apache.kafka.common.TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            c.assign(parts);
            c.seekToBeginning(parts);
            long deadline = System.nanoTime() + ctx.settings().timeouts().drain().toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " back took longer than " + ctx.settings().timeouts().drain());
                }
                c.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        out.add(r);
                    }
                });
            }
        }
        out.sort(Comparator.comparingInt(ConsumerRecord<byte[], byte[]>::partition)
                .thenComparingLong(ConsumerRecord::offset));
        return out;
    }

    /**
     * Writes {@code records} to {@code topic} unchanged (key, value, headers, timestamp, each to its own
     * partition number), in order, acknowledged by every replica; returns each one's new offset.
     * The topic is created with the run's partitions when it does not exist.
     */
    public List<Long> publishRaw(String topic, List<ConsumerRecord<byte[], byte[]>> records)
            throws Exception {
        SyntheticProducer.ensureTopic(bootstrap(), topic, ctx.settings().broker().partitions());
        Map<String, Object> p = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        List<Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
        try (var producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (var r : records) {
                sent.add(producer.send(new ProducerRecord<>(topic, r.partition(), r.timestamp(), r.key(), r.value(), r.headers())));
            }
            producer.flush();
        }
        List<Long> offsets = new ArrayList<>();
        for (var f : sent) {
            offsets.add(f.get(30, java.util.concurrent.TimeUnit.SECONDS).offset());
        }
        return offsets;
    }

    /** The user's producer into {@code topic}: started like a subject, waited for (drain timeout); its failure is named with its stderr. */
    private void runProducer(ExperimentRecorder e, Subject producer, String topic, String namespace) throws InterruptedException {
        Map<String, String> values = new HashMap<>();
        values.put("bootstrap", ctx.run().bootstrap); // straight to the broker: the witness is for the subjects' commits
        values.put("topic", topic);
        values.put("count", Integer.toString(ctx.settings().records()));
        values.put("namespace", namespace);
        ctx.step("producing to " + topic + " with the producer command");
        LabContext.Instance p = ctx.subjects().start(e, ctx.name() + "-producer", producer, values, false, false);
        long deadline = System.nanoTime() + ctx.settings().timeouts().drain().toNanos();
        while (p.process().isAlive()) {
            ctx.subjects().checkpoint();
            if (System.nanoTime() > deadline) {
                ctx.subjects().crash(e, p);
                throw new SubjectExitedException("the producer command " + producer.template() + " did not finish within " + ctx.settings().timeouts().drain()
                        + " (LabSettings.drainTimeout); last lines of logs/" + p.name() + ".err: " + p.process().stderrTail(5));
            }
            p.process().process().waitFor(200, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        ctx.subjects().stop(e, p);
        int code = p.process().exitCode().orElseThrow();
        if (code != 0) {
            throw new SubjectExitedException("the producer command " + producer.template() + " exited with code " + code + "; last lines of logs/"
                    + p.name() + ".err: " + p.process().stderrTail(5));
        }
    }

    /**
     * Waits until the group's committed offsets reach the topic's end on every partition, with a
     * live count; null on timeout. Metered as {@code replaylab.drain} and {@code replaylab.drain.records}
     * (offsets committed while waiting), tagged with {@code stage}. An instance in {@code needed} that exits
     * on its own ends the wait at once ({@link #checkpoint}).
     */
    public OffsetSnapshot awaitDrained(String group, String topic, Duration timeout, String stage, LabContext.Instance... needed) throws InterruptedException {
        Drain d = new Drain(stage, recordEnds(topic));
        return d.done(awaitDrained(group, topic, d, timeout, needed), topic);
    }

    /** One wait for a group to drain, however many looks it takes: its meters, its progress lines, the records' end it waits for. */
    private final class Drain {
        private final String stage;
        /** Null: the log end. */
        private final Map<Integer, Long> recordEnds;
        private final Timer.Sample started = Timer.start(ctx.meters());
        private long firstCommitted = -1;
        private long lastReport = System.nanoTime();

        Drain(String stage, Map<Integer, Long> recordEnds) {
            this.stage = stage;
            this.recordEnds = recordEnds;
        }

        /** Metered as {@code replaylab.drain} and {@code replaylab.drain.records} when it ended done (not null). */
        OffsetSnapshot done(OffsetSnapshot done, String topic) {
            if (done != null) {
                started.stop(ctx.meters().timer("replaylab.drain", "stage", stage));
                ctx.meters().counter("replaylab.drain.records", "stage", stage).increment(committedSum(done, topic) - Math.max(0, firstCommitted));
            }
            return done;
        }
    }

    /**
     * Transaction markers take offsets of their own after the last record: a consumer that commits each record's next offset
     * stops below the log end, so a source that may hold transactions is drained at its records' end (null: at the log end).
     */
    private Map<Integer, Long> recordEnds(String topic) {
        return ctx.settings().source().mayHoldTransactions() ? TopicOracle.of(source(topic)).recordEnds() : null;
    }

    private OffsetSnapshot awaitDrained(String group, String topic, Drain d, Duration timeout, LabContext.Instance... needed)
            throws InterruptedException {
        java.util.function.Consumer<OffsetSnapshot> look = s -> {
            ctx.subjects().checkpoint(needed);
            long committed = committedSum(s, topic);
            if (committed > 0 && ctx.subjects().firstInbox() != null) {
                ctx.target().checkTargetQuery(ctx.subjects().firstInbox());
            }
            if (d.firstCommitted < 0) {
                d.firstCommitted = committed;
            }
            if (System.nanoTime() - d.lastReport > 2_000_000_000L) {
                long end = s.partitions().stream().filter(p -> p.topic().equals(topic)).mapToLong(PartitionOffsets::logEnd).sum();
                ctx.step("  … " + group + " committed " + committed + " of " + end);
                d.lastReport = System.nanoTime();
            }
        };
        Map<Integer, Long> ends = d.recordEnds;
        return ends == null ? ops.awaitDrained(group, topic, timeout, look).orElse(null)
                : Optional.of(Poll.every(Duration.ofMillis(250)).upTo(timeout).until(() -> {
                    OffsetSnapshot s = ops.describe(group);
                    look.accept(s);
                    return s;
                }, s -> atRecordEnds(s, topic, ends))).filter(s -> atRecordEnds(s, topic, ends)).orElse(null);
    }

    /** Every partition with records has a committed offset at or past its last record's next offset. */
    private static boolean atRecordEnds(OffsetSnapshot s, String topic, Map<Integer, Long> recordEnds) {
        return recordEnds.entrySet().stream().allMatch(e -> committed(s, topic, e.getKey()) >= e.getValue());
    }

    /** How long the committed offsets must stand still, once every effect is applied, for a group to count as done short of the log end. */
    static final Duration STILL = Duration.ofSeconds(2);

    /**
     * Waits until the group is done with {@code topic}: its committed offsets reach the end
     * ({@link #awaitDrained}), or every source record's effect is in {@code inbox} and the
     * committed offsets stood still for {@link #STILL}. The second is a consumer whose last
     * commit failed and was never retried (an asynchronous committer's, say), which
     * at-least-once with an inbox allows: the oracle then judges the frontier, which must never
     * pass a missing effect, but need not reach the end. Null on timeout.
     */
    public OffsetSnapshot awaitApplied(String group, String topic, String inbox, Duration timeout, String stage, LabContext.Instance... needed)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long before = Long.MIN_VALUE;
        Drain d = new Drain(stage, recordEnds(topic));
        while (true) {
            long left = deadline - System.nanoTime();
            Duration slice = Duration.ofNanos(Math.max(1, Math.min(STILL.toNanos(), left)));
            OffsetSnapshot done = awaitDrained(group, topic, d, slice, needed);
            if (done != null) {
                return d.done(done, topic);
            }
            OffsetSnapshot now = ops.describe(group);
            long committed = committedSum(now, topic);
            // the target is read once the group sent a commit (stored or not): a consumer's schema exists by then, and reading it
            // sooner would try the target query on a database the subject has not made yet (that refuses the whole run)
            boolean sentACommit = committed > 0 || witness().map(w -> !w.commits(group).isEmpty()).orElse(false);
            if (committed == before && sentACommit && ctx.target().compare(topic, inbox, now).missing().count() == 0) {
                ctx.step("  … " + group + ": every effect applied, its committed offsets still at " + committed + " (not at the log end)");
                return d.done(now, topic);
            }
            before = committed;
            if (System.nanoTime() >= deadline) {
                return null;
            }
        }
    }

    /**
     * Waits until a share group has acknowledged (or archived) every record of {@code topic}: a start
     * offset on each of its partitions and the broker's lag 0 there (the start offset itself may stay on
     * the last acknowledged record); null when it did not within {@code timeout}.
     */
    public OffsetSnapshot awaitShareDrained(String group, String topic, int partitions, Duration timeout, String stage, LabContext.Instance... needed)
            throws InterruptedException {
        Timer.Sample t = Timer.start(ctx.meters());
        long[] lastReport = {System.nanoTime()};
        OffsetSnapshot s = Poll.every(Duration.ofMillis(250)).upTo(timeout).until(() -> {
            ctx.subjects().checkpoint(needed);
            OffsetSnapshot look;
            try {
                look = ops.describeShareGroup(group);
            } catch (IllegalArgumentException otherType) { // a consumer group's member took the group id: not a share consumer
                throw new NoSubjectException("the share consumer joined " + group + " as another kind of group (" + otherType.getMessage()
                        + "): the share experiments need a share group's consumer (KafkaShareConsumer, or a client's share consumer)");
            }
            if (System.nanoTime() - lastReport[0] > 2_000_000_000L) {
                ctx.step("  … share group " + group + ": lag " + look.partitions().stream().filter(p -> p.topic().equals(topic))
                        .mapToLong(PartitionOffsets::lag).sum());
                lastReport[0] = System.nanoTime();
            }
            return look;
        }, look -> shareDrained(look, topic, partitions));
        if (!shareDrained(s, topic, partitions)) {
            return null;
        }
        t.stop(ctx.meters().timer("replaylab.drain", "stage", stage));
        return s;
    }

    private static boolean shareDrained(OffsetSnapshot s, String topic, int partitions) {
        List<PartitionOffsets> mine = s.partitions().stream().filter(p -> p.topic().equals(topic)).toList();
        return mine.size() == partitions && mine.stream().allMatch(p -> p.hasCommitted() && p.lag() == 0);
    }

    private static long committedSum(OffsetSnapshot s, String topic) {
        return s.partitions().stream().filter(p -> p.topic().equals(topic) && p.hasCommitted()).mapToLong(PartitionOffsets::committed).sum();
    }

    /** Waits until the group has no member (its consumers left or timed out); metered as {@code replaylab.group.inactive}. */
    public OffsetSnapshot awaitInactive(String group, Duration timeout) throws InterruptedException {
        Timer.Sample t = Timer.start(ctx.meters());
        OffsetSnapshot s = Poll.every(Duration.ofMillis(250)).upTo(timeout).until(() -> {
            OffsetSnapshot look = ops.describe(group);
            if (!look.state().isInactive()) {
                ctx.subjects().checkpoint();
            }
            return look;
        }, x -> x.state().isInactive());
        if (s.state().isInactive()) {
            t.stop(ctx.meters().timer("replaylab.group.inactive"));
        }
        return s;
    }

    public static long committed(OffsetSnapshot s, String topic, int partition) {
        return s.partitions().stream().filter(p -> p.topic().equals(topic) && p.partition() == partition).mapToLong(PartitionOffsets::committed)
                .findFirst().orElse(PartitionOffsets.NONE);
    }
}
