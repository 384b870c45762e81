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
import io.replaylab.barrier.wire.MemberTimeouts;
import io.replaylab.barrier.wire.WireWitness;
import io.replaylab.barrier.wire.WitnessedReset;
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

    /** The longest a drain may go on while it still progresses: a phase still moving after this is not drained (NOT_RUN). */
    static final Duration LONGEST_DRAIN = Duration.ofHours(1);

    /** The longest patience whatever a consumer's timeouts ask for: every wait taken from them stays bounded. */
    static final Duration LONGEST_PATIENCE = Duration.ofMinutes(20);

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

    /** Why the last drain of a group ended with nothing drained, by group. */
    private final Map<String, String> notDone = new java.util.concurrent.ConcurrentHashMap<>();

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
        return new Drain(group, topic, null, stage, needed).await();
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
        return new Drain(group, topic, inbox, stage, needed).await();
    }

    /** One wait for a group to be done with a topic: its progress, its meters, its progress lines. */
    private final class Drain {
        private final String group;
        private final String topic;
        /** Null: done means committed to the end. */
        private final String inbox;
        private final String stage;
        private final LabContext.Instance[] needed;
        /** Null: the log end. */
        private final Map<Integer, Long> recordEnds;
        private final Timer.Sample started = Timer.start(ctx.meters());
        private long firstCommitted = -1;
        private long mostCommitted = -1;
        private long fewestMissing = Long.MAX_VALUE;
        private long committedAtAppliedLook = Long.MIN_VALUE;
        private long lastAppliedLook = System.nanoTime();
        /** Since when every effect was applied with no offset committed (MAX_VALUE: not so at the last look). */
        private long appliedUncommittedSince = Long.MAX_VALUE;
        private long lastReport = System.nanoTime();
        private final long startedAt = System.nanoTime();
        private long lastProgress = startedAt;
        private java.time.Instant lastProgressAt = java.time.Instant.now();
        private final java.time.Instant startedAtInstant = java.time.Instant.now();
        private final java.util.Set<String> members = new java.util.HashSet<>();
        private boolean said;
        private String processes = "";

        Drain(String group, String topic, String inbox, String stage, LabContext.Instance[] needed) {
            this.group = group;
            this.topic = topic;
            this.inbox = inbox;
            this.stage = stage;
            this.needed = needed;
            this.recordEnds = recordEnds(topic);
        }

        OffsetSnapshot await() throws InterruptedException {
            OffsetSnapshot[] done = {null};
            boolean ended = Poll.every(Duration.ofMillis(250)).upTo(LONGEST_DRAIN).until(() -> look(done), Boolean::booleanValue);
            if (!ended) {
                notDone.put(group, "still not done after " + Timeouts.seconds(LONGEST_DRAIN) + ", though it progressed all along");
            }
            return done[0];
        }

        /** One look; true when the wait is over, with {@code done[0]} the drained offsets (null: stalled, NOT_RUN). */
        private boolean look(OffsetSnapshot[] done) throws InterruptedException {
            ctx.subjects().checkpoint(needed);
            OffsetSnapshot s = atEnd();
            boolean drained = s != null;
            if (s == null) {
                s = ops.describe(group);
            }
            long committed = committedSum(s, topic);
            if (committed > 0 && ctx.subjects().firstInbox() != null) {
                ctx.target().checkTargetQuery(ctx.subjects().firstInbox());
            }
            if (firstCommitted < 0) {
                firstCommitted = committed;
            }
            if (System.nanoTime() - lastReport > 2_000_000_000L) {
                long end = s.partitions().stream().filter(p -> p.topic().equals(topic)).mapToLong(PartitionOffsets::logEnd).sum();
                ctx.step("  … " + group + " committed " + committed + " of " + end);
                lastReport = System.nanoTime();
            }
            if (drained) {
                done[0] = metered(s, committed);
                return true;
            }
            if (committed > mostCommitted) {
                mostCommitted = committed;
                progressed();
            }
            // a new member, or a process the supervisor restarted: its chance starts now (a member joining again, as in a rebalance
            // storm, is no progress: it would keep the wait alive for ever)
            List<MemberTimeouts> joined = witness().map(w -> w.timeouts(group)).orElse(List.of());
            boolean newMember = false;
            for (MemberTimeouts t : joined) {
                newMember |= members.add(t.memberId());
            }
            String pids = java.util.Arrays.stream(needed).map(i -> Long.toString(i.pid())).collect(java.util.stream.Collectors.joining(","));
            if (newMember || !pids.equals(processes)) {
                processes = pids;
                progressed();
            }
            if (inbox != null && System.nanoTime() - lastAppliedLook >= STILL.toNanos()) {
                lastAppliedLook = System.nanoTime();
                // read whether or not the group ever commits: a consumer that keeps its offsets in its own database commits none,
                // and is done when every effect is applied; until the group sent a commit, a target the subject has not made yet
                // is not readable yet (once it did, the subject's schema exists, and a target that cannot be read is an error)
                boolean uncommitted = committed == 0 && noCommitOnTheWire().orElse(true);
                // (read only once a commit timer would have fired: a consumer that commits is not read before its first commit)
                boolean tooSoon = uncommitted && System.nanoTime() - startedAt < ctx.settings().timeouts().commitTimer().toNanos();
                long missing = tooSoon || !ctx.target().targetReadable(inbox) ? -1
                        : uncommitted ? missingYet(s) : ctx.target().compare(topic, inbox, s).missing().count();
                if (missing >= 0) {
                    // with nothing committed yet, a commit timer is given one more tick (every effect applied and nothing committed for
                    // half the wait: a timer's interval) before the group counts as one that never commits
                    appliedUncommittedSince = missing == 0 && uncommitted ? Math.min(appliedUncommittedSince, System.nanoTime()) : Long.MAX_VALUE;
                    boolean timerDue = !uncommitted || System.nanoTime() - appliedUncommittedSince >= ctx.settings().timeouts().commitInterval().toNanos();
                    if (missing == 0 && committed == committedAtAppliedLook && timerDue) {
                        ctx.step("  … " + group + ": every effect applied, its committed offsets still at " + committed + " (not at the log end)");
                        done[0] = metered(s, committed);
                        return true;
                    }
                    if (missing < fewestMissing) {
                        fewestMissing = missing;
                        progressed();
                    }
                    committedAtAppliedLook = committed;
                }
            }
            Patience p = patience(group);
            // judged once a process of this drain joined (a member an earlier phase saw says nothing of a process still starting)
            java.time.Instant since = java.util.Arrays.stream(needed).map(LabContext.Instance::started).max(java.util.Comparator.naturalOrder())
                    .orElse(startedAtInstant);
            boolean judged = p.judged() && joined.stream().anyMatch(t -> !t.seen().isBefore(since));
            if (judged && !said) {
                said = true;
                say(p);
            }
            // a stage read from the group's offsets alone (no inbox) cannot follow a consumer that never commits one: twice its
            // commit timer after a process of this drain joined with not one commit, the stage cannot be judged (it did not stall)
            Duration unjudgeable = ctx.settings().timeouts().commitTimer().multipliedBy(2);
            if (inbox == null && committed == 0 && noCommitOnTheWire().orElse(false)
                    && joined.stream().anyMatch(t -> !t.seen().isBefore(since) && t.seen().plus(unjudgeable).isBefore(java.time.Instant.now()))) {
                notDone.put(group, "the group got no offset commit in the " + Timeouts.seconds(unjudgeable) + " after its consumer joined: the lab "
                        + "follows this stage by the group's committed offsets alone, and cannot tell a consumer that keeps its positions itself "
                        + "(in its own database, or on a timer longer than the commit interval, LabSettings.commitInterval) from one that read "
                        + "nothing");
                return true;
            }
            if (System.nanoTime() - (judged ? lastProgress : startedAt) < (judged ? p.window() : ctx.settings().timeouts().drain()).toNanos()) {
                return false;
            }
            // a stage with no inbox (a replay, a re-send, a generation) needs the records read to the end: a live consumer that
            // stopped short of it past its own timeouts hung, and that is judged
            Optional<String> missing = !judged ? Optional.empty() : inbox == null ? Optional.of("records left unread past its committed offsets")
                    : missingEffects(s);
            if (missing.isPresent()) {
                throw new SubjectFailedException(SubjectFailedException.Kind.STALL, lastProgressAt, stalled(s, p, missing.get()));
            }
            // nothing missing (every effect applied: at-least-once allows offsets short of the end), or no timeouts of its own
            notDone.put(group, judged ? "its committed offsets stood at " + where(s) + " with no progress for " + Timeouts.seconds(p.window()) + " ("
                    + p.basis() + "), every effect applied" : "not done within " + Timeouts.seconds(ctx.settings().timeouts().drain())
                    + " (" + (p.judged() ? "the lab's drain timeout, LabSettings.drainTimeout: no process of this drain joined through the wire proxy yet"
                            : p.basis()) + ")");
            return true;
        }

        /** Whether the group has sent no OffsetCommit on the wire; empty without a wire witness. */
        private Optional<Boolean> noCommitOnTheWire() {
            return witness().map(w -> w.commits(group).isEmpty());
        }

        /** How many records have no effect in the target now; -1 when it cannot be read yet (the subject has not made it). */
        private long missingYet(OffsetSnapshot s) {
            try {
                return ctx.target().compare(topic, inbox, s).missing().count();
            } catch (IllegalArgumentException | io.replaylab.oracle.OracleReadException notYet) {
                return -1;
            }
        }

        /** {@code 12 effect(s) missing (…)}, or empty when none is, or the target cannot be read yet. */
        private Optional<String> missingEffects(OffsetSnapshot s) {
            try {
                if (!ctx.target().targetReadable(inbox)) {
                    return Optional.of("no effect in the target yet (its tables are not there)");
                }
                var m = ctx.target().compare(topic, inbox, s).missing();
                return m.count() == 0 ? Optional.empty()
                        : Optional.of(m.count() + " effect(s) missing" + (m.examples().isEmpty() ? "" : " (" + String.join("; ", m.examples()) + ")"));
            } catch (io.replaylab.oracle.OracleReadException unreadable) {
                return Optional.of("no effect readable in the target (" + unreadable.getMessage() + ")");
            }
        }

        private String where(OffsetSnapshot s) {
            return s.partitions().stream().filter(x -> x.topic().equals(topic))
                    .map(x -> x.partition() + "=" + (x.hasCommitted() ? Long.toString(x.committed()) : "none") + " of " + x.logEnd())
                    .collect(java.util.stream.Collectors.joining(", ", "{", "}"));
        }

        /** Said once the consumer's timeouts are known: how long the lab will wait for it and why (the start of its wait as judged). */
        private void say(Patience p) {
            String text = "the " + stage + " of " + group + " waits while it progresses; " + Timeouts.seconds(p.window()) + " without progress (no new commit, "
                    + "effect, join or restart) is a stall, FAIL: " + p.basis();
            ctx.step("  … " + text);
            java.util.Arrays.stream(needed).map(LabContext.Instance::recorder).filter(r -> r != null && !r.finished()).findFirst()
                    .ifPresent(r -> r.record(Source.here("harness"), new Payload.Note(text)));
        }

        private void progressed() {
            lastProgress = System.nanoTime();
            lastProgressAt = java.time.Instant.now();
        }

        /** The group at its end, or null: committed at the log end (lag 0) or at the records' end. */
        private OffsetSnapshot atEnd() throws InterruptedException {
            if (recordEnds == null) {
                return ops.awaitDrained(group, topic, Duration.ZERO, x -> { }).orElse(null);
            }
            OffsetSnapshot s = ops.describe(group);
            return recordEnds.entrySet().stream().allMatch(e -> committed(s, topic, e.getKey()) >= e.getValue()) ? s : null;
        }

        /** What a stalled group left undone, and why the lab stopped waiting. */
        private String stalled(OffsetSnapshot s, Patience p, String missing) {
            String resets = witness().map(w -> w.resetsToEnd(topic)).filter(x -> !x.isEmpty())
                    .map(x -> "; on the wire it reset to the log end: " + x.stream().map(WitnessedReset::summary).collect(java.util.stream.Collectors.joining("; ")))
                    .orElse("");
            return group + " stalled during " + stage + ": " + missing + ", its committed offsets stood at " + where(s) + " with no progress for "
                    + Timeouts.seconds(p.window()) + ", longer than " + p.basis() + " allow: a live consumer would have gone on, or been replaced" + resets;
        }

        /** Metered as {@code replaylab.drain} and {@code replaylab.drain.records}. */
        private OffsetSnapshot metered(OffsetSnapshot done, long committed) {
            started.stop(ctx.meters().timer("replaylab.drain", "stage", stage));
            ctx.meters().counter("replaylab.drain.records", "stage", stage).increment(committed - Math.max(0, firstCommitted));
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
