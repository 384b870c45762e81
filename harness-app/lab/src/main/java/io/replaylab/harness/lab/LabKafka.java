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
import io.replaylab.barrier.wire.FetchWatch;
import io.replaylab.barrier.wire.MemberTimeouts;
import io.replaylab.barrier.wire.WireWitness;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.kafka.ClientProperties;
import io.replaylab.kafka.GroupType;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.oracle.SourceMapping;
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

    /** What the lab's own clients take to reach the run's broker (SASL, TLS; none for a broker of the run's own). */
    public ClientProperties client() {
        return ctx.settings().broker().client();
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
    public Optional<LabWire> wire() {
        return Optional.ofNullable(ctx.run().wire);
    }

    /** What the proxy saw of the subjects' commits: whenever subjects talk through it ({@link BrokerSettings#witness()}, or the wire barrier). */
    public Optional<WireWitness> witness() {
        return wire().map(LabWire::witness);
    }

    /** Where subjects connect: the wire proxy when the run uses one, else the broker. */
    public String subjectBootstrap() {
        return wire().map(LabWire::bootstrapServers).orElse(ctx.run().bootstrap);
    }

    /** One of the run's topics as the oracle reads it: with the run's source mapping ({@link LabSettings#source()}). */
    public SourceSpec source(String topic) {
        return SourceSpec.topic(ctx.run().bootstrap, topic).parser(ctx.settings().source().parser()).client(client());
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
            // with aborted transactions, the producer fills a topic of its own, which the lab copies with them in between
            String into = source.abortedTransactions() ? topic + ".produced" : topic;
            SyntheticProducer.ensureTopic(ctx.run().bootstrap, client(), into, ctx.settings().broker().partitions()); // before the user's producer (the lab's makes its own)
            runProducer(e, producer.get(), into, namespace);
            if (source.abortedTransactions()) {
                copyWithAbortedTransactions(e, into, topic, namespace);
            }
        } else {
            String manifest = "snapshots/" + namespace + "-manifest.json";
            String summary = SyntheticProducer.summary(SyntheticProducer.produce(ctx.run().bootstrap, client(), topic, ctx.settings().broker().partitions(), namespace,
                    ctx.settings().records(), 7, 10, 0, ctx.runDir().resolve(manifest), null, source));
            e.record(Source.here("harness"), new Payload.Note(summary));
            e.artifact(manifest, "what was produced (count, sums, end offsets)");
        }
        TopicOracle.SourceSummary s = TopicOracle.of(source(topic)).summarize();
        e.artifact(ctx.save(topic + "-source", s), "the source set as read back with " + source.mapping());
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

    /** The producer's records copied from {@code from} into {@code topic} with aborted transactions between them ({@link #copySource}), recorded. */
    private void copyWithAbortedTransactions(ExperimentRecorder e, String from, String topic, String namespace) throws Exception {
        List<ConsumerRecord<byte[], byte[]>> produced = readRaw(from);
        int aborted = copySource(topic, produced, namespace);
        SourceMapping mapping = ctx.settings().source().mapping();
        e.record(Source.here("harness"), new LabEvent.SourceCopied(from, topic, produced.size(), aborted, namespace, mapping.id().toString(), mapping.toString()));
    }

    /** Per topic, the aborted copies written into it so far: a topic filled in steps numbers them on. */
    private final Map<String, Integer> abortedSoFar = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Copies records of the source set (as {@link #readRaw} read them) into {@code topic} as the run's source writes them:
     * unchanged, and, when the source has aborted transactions ({@link RecordSource#withAbortedTransactions}), in committed
     * transactions with aborted ones between them ({@link SourceCopy}); the topic is created with the run's partitions when
     * it does not exist. Returns how many records of aborted transactions it wrote.
     */
    public int copySource(String topic, List<ConsumerRecord<byte[], byte[]>> records, String namespace) throws Exception {
        if (!ctx.settings().source().abortedTransactions()) {
            publishRaw(topic, records);
            return 0;
        }
        SyntheticProducer.ensureTopic(ctx.run().bootstrap, client(), topic, ctx.settings().broker().partitions());
        int before = abortedSoFar.getOrDefault(topic, 0);
        int aborted = SourceCopy.withAbortedTransactions(ctx.run().bootstrap, client(), records, topic, ctx.settings().source().mapping(), namespace, before);
        abortedSoFar.put(topic, before + aborted);
        return aborted;
    }

    /**
     * Every record of {@code topic} as it is stored (key, value and headers as bytes), in partition
     * and offset order: what a re-send or a copy writes again unchanged.
     */
    public List<ConsumerRecord<byte[], byte[]>> readRaw(String topic) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        Map<String, Object> p = client().plus(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
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
        SyntheticProducer.ensureTopic(bootstrap(), client(), topic, ctx.settings().broker().partitions());
        Map<String, Object> p = client().plus(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true));
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
     * How long the lab waits on a group, and whose a stall then is.
     *
     * @param window judged: how long the group may go without progress (new committed offsets, a new effect, a member joining,
     *               a restart); not judged: how long the whole wait may take
     * @param judged the window comes from the consumer's own timeouts, read on the wire, so a stall with effects missing is the
     *               consumer's (FAIL); otherwise the lab cannot tell how long the consumer needs, and a wait that runs out is NOT_RUN
     * @param basis  why the window is what it is, for the evidence
     */
    public record Patience(Duration window, boolean judged, String basis) {
        /** The window when it comes from the consumer's timeouts, else {@code otherwise} (the lab's own wait for that step). */
        public Duration judgedOr(Duration otherwise) {
            return judged ? window : otherwise;
        }
    }

    /** The longest patience whatever a consumer's timeouts ask for: every wait taken from them stays bounded. */
    public static final Duration LONGEST_PATIENCE = Duration.ofMinutes(20);

    /**
     * The patience for {@code group}: once a member joined through the wire proxy, the longest of its members' poll interval
     * plus session timeout, plus {@link Timeouts#rejoin}: a member's poll loop may stall for its poll interval before its
     * client leaves, the coordinator drops a silent member within its session timeout, and then another member (or its
     * restart) takes its partitions over. Before that, or with no witness, the whole wait is {@link Timeouts#drain}, as the
     * lab cannot tell how long the consumer needs.
     */
    public Patience patience(String group) {
        List<MemberTimeouts> members = witness().map(w -> w.timeouts(group)).orElse(List.of());
        Duration need = Duration.ZERO;
        String which = null;
        for (MemberTimeouts t : members) {
            Optional<Duration> session = t.session().or(() -> brokerSession(group));
            Duration d = t.rebalance().plus(session.orElse(Duration.ZERO));
            if (d.compareTo(need) > 0) {
                need = d;
                which = t.summary() + (t.session().isEmpty() ? session.map(x -> "; the group's consumer.session.timeout.ms " + x.toMillis()).orElse("") : "");
            }
        }
        if (which == null) {
            Duration drain = ctx.settings().timeouts().drain();
            return new Patience(drain, false, "the lab's drain timeout, LabSettings.drainTimeout: "
                    + (witness().isEmpty() ? "the run has no wire witness" : "no member of " + group + " joined through the wire proxy")
                    + " to show the consumer's own timeouts");
        }
        Duration margin = Timeouts.rejoin(need);
        Duration window = need.plus(margin);
        if (window.compareTo(LONGEST_PATIENCE) > 0) { // e.g. max.poll.interval.ms = Integer.MAX_VALUE, as old Kafka Streams set it
            return new Patience(LONGEST_PATIENCE, true, "the lab's longest patience, " + Timeouts.seconds(LONGEST_PATIENCE) + ", short of its poll interval "
                    + "and session timeout (" + which + "): " + Timeouts.seconds(need));
        }
        return new Patience(window, true, "its poll interval and session timeout (" + which + "): " + Timeouts.seconds(need) + ", plus " + Timeouts.seconds(margin)
                + " for a restart and a rejoin");
    }

    /**
     * A stall of {@code group} judged by its patience {@code p}: what it left undone ({@code missing}), where its committed
     * offsets stood, and why the lab stopped waiting; {@code when} is, e.g., "during replay" or "before reaching before-db-commit".
     */
    public SubjectFailedException stalled(String group, String topic, String when, String missing, OffsetSnapshot s, Patience p,
            java.time.Instant lastProgress) {
        String resets = witness().map(w -> w.resetsToEnd(topic)).filter(x -> !x.isEmpty())
                .map(x -> "; on the wire it reset to the log end: " + x.stream().map(io.replaylab.barrier.wire.WitnessedReset::summary)
                        .collect(java.util.stream.Collectors.joining("; ")))
                .orElse("");
        return new SubjectFailedException(SubjectFailedException.Kind.STALL, lastProgress, group + " stalled " + when + ": " + missing
                + ", its committed offsets stood at " + where(s, topic) + " with no progress for " + Timeouts.seconds(p.window()) + ", longer than "
                + p.basis() + " allow: a live consumer would have gone on, or been replaced" + resets);
    }

    /** {@code 12 effect(s) missing (…)} in {@code inbox} for the records of {@code topic}, or empty when none is. */
    public Optional<String> missingEffects(String topic, String inbox, OffsetSnapshot s) {
        try {
            if (!ctx.target().targetReadable(inbox)) {
                return Optional.of("no effect in the target yet (its tables are not there)");
            }
            var m = ctx.target().compare(topic, inbox, s).missing();
            return m.count() == 0 ? Optional.empty()
                    : Optional.of(m.count() + " effect(s) missing" + (m.examples().isEmpty() ? "" : " (" + String.join("; ", m.examples()) + ")"));
        } catch (IllegalArgumentException | io.replaylab.oracle.OracleReadException unreadable) { // e.g. a database file it never made
            return Optional.of("no effect readable in the target (" + unreadable.getMessage() + ")");
        }
    }

    /** Where the group's offsets on {@code topic} stand: {@code {0=5 of 9, 1=none of 4}}. */
    String where(OffsetSnapshot s, String topic) {
        return s.partitions().stream().filter(x -> x.topic().equals(topic))
                .map(x -> x.partition() + "=" + (x.hasCommitted() ? Long.toString(x.committed()) : "none") + " of " + x.logEnd())
                .collect(java.util.stream.Collectors.joining(", ", "{", "}"));
    }

    /** The sum of the group's committed offsets on {@code topic} (0 with none): it grows as the group commits. */
    public static long committedSum(OffsetSnapshot s, String topic) {
        return s.partitions().stream().filter(p -> p.topic().equals(topic) && p.hasCommitted()).mapToLong(PartitionOffsets::committed).sum();
    }

    /** Why the last drain of a group ended with nothing drained, by group (a {@link GroupDrain} says). */
    final Map<String, String> notDone = new java.util.concurrent.ConcurrentHashMap<>();

    /** Why the last drain of {@code group} returned null, for its NOT_RUN: {@code not done within 180 s (the lab's drain timeout …)}. */
    public String notDone(String group) {
        return notDone.getOrDefault(group, "not done within " + Timeouts.seconds(ctx.settings().timeouts().drain()) + " (LabSettings.drainTimeout)");
    }

    private final Map<String, Optional<Duration>> brokerSessions = new java.util.concurrent.ConcurrentHashMap<>();

    /** The group's consumer-protocol session timeout, as the broker says (asked once per group); empty when it does not. */
    public Optional<Duration> brokerSession(String group) {
        return brokerSessions.computeIfAbsent(group, g -> {
            try {
                return Optional.ofNullable(ops.groupConfigs(g).get("consumer.session.timeout.ms")).map(v -> Duration.ofMillis(Long.parseLong(v)));
            } catch (RuntimeException x) {
                return Optional.empty();
            }
        });
    }

    /**
     * Waits until the group's committed offsets reach the topic's end on every partition (a source
     * that may hold transactions: its records' end, below the trailing markers), with a live count.
     * Once the consumer's timeouts were read on the wire, the wait lasts while the group progresses, and ends when it went
     * without progress for its {@link #patience}: the consumer stalled ({@link SubjectFailedException}, FAIL, naming where
     * its offsets stood); before that, the whole wait is the drain timeout, and null when it ran out (NOT_RUN, {@link #notDone}). Metered as
     * {@code replaylab.drain} and {@code replaylab.drain.records} (offsets committed while waiting),
     * tagged with {@code stage}. An instance in {@code needed} that exits on its own is restarted, or
     * ends the wait ({@link LabSubjects#checkpoint}).
     */
    public OffsetSnapshot awaitDrained(String group, String topic, String stage, LabContext.Instance... needed) throws InterruptedException {
        return awaitDrained(group, topic, stage, null, null, needed);
    }

    /**
     * As {@link #awaitDrained(String, String, String, LabContext.Instance...)}, with the broker's Fetch answers read by {@code fetches}
     * (opened before the stage's records were there to fetch) and the group's offsets {@code from} where the stage began (null, null:
     * the drain opens its own watch when the run has a witness, and reads the offsets then). Done also short of the end once the
     * committed offsets stood still for a commit interval after every record from those offsets was delivered (and they moved), or
     * after every partition was fetched only above its committed offset there (a consumer that positions itself; {@link GroupDrain}).
     */
    public OffsetSnapshot awaitDrained(String group, String topic, String stage, FetchWatch fetches, OffsetSnapshot from,
            LabContext.Instance... needed) throws InterruptedException {
        return new GroupDrain(this, ctx, group, topic, null, stage, fetches, from, needed).await();
    }

    /** How long the committed offsets must stand still, once every effect is applied, for a group to count as done short of the log end. */
    static final Duration STILL = Duration.ofSeconds(2);

    /**
     * As {@link #awaitDrained}, and done also when every source record's effect is in {@code inbox}
     * and the committed offsets stood still for {@link #STILL}: a consumer whose last commit failed
     * and was never retried (an asynchronous committer's, say), which at-least-once with an inbox
     * allows; the oracle then judges the frontier, which must never pass a missing effect, but need
     * not reach the end. A new effect is progress too; a stall names the missing effects.
     */
    public OffsetSnapshot awaitApplied(String group, String topic, String inbox, String stage, LabContext.Instance... needed)
            throws InterruptedException {
        return new GroupDrain(this, ctx, group, topic, inbox, stage, null, null, needed).await();
    }

    /**
     * As {@link #awaitApplied}, ended early with null once {@code over} holds (checked before each look): an experiment's own
     * end, such as a kill it armed. {@code running} are not checked here (the caller's {@code over} says when one is gone, and
     * none is restarted): their experiment's evidence gets the wait's notes.
     */
    public OffsetSnapshot awaitApplied(String group, String topic, String inbox, String stage, java.util.function.BooleanSupplier over,
            LabContext.Instance... running) throws InterruptedException {
        return new GroupDrain(this, ctx, group, topic, inbox, stage, null, null, running).endingWhen(over).await();
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
                look = ops.describe(group, GroupType.SHARE);
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
