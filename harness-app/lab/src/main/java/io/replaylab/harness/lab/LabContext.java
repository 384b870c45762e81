package io.replaylab.harness.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.barrier.gdb.NativePoint;
import io.replaylab.evidence.Outcome;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.barrier.wire.WireWitness;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Oracle;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.TargetSnapshot;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TopicOracle;

/**
 * One experiment's view of its run, and what an experiment is composed of: the broker and an
 * Admin client ({@link KafkaOps}) of its own, the run's namespace and directory, its target
 * database and the oracle's view of it, the subject processes it starts (from the run's template,
 * stopped by pid when it ends), waits that end early when a needed subject exits or the run is
 * stopped, its meters and progress. Experiments of one run may run side by side
 * ({@link LabSettings.Builder#parallel}); nothing here is shared with another experiment except
 * the run itself. An experiment gets one from {@link Lab#run} through its {@link Experiment.Body};
 * it never builds one.
 */
public final class LabContext {
    /** A subject's own JSON-lines logs are plain JSON, not evidence: read with a plain mapper. */
    private static final ObjectMapper SUBJECT_LOGS = new ObjectMapper();
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LabContext.class);
    private final LabRun run;
    /** The experiment's (or part's) name: the prefix of its steps. */
    private final String name;
    private final LabSettings settings;
    private final Path runDir;
    /** This experiment's target database (its own SQLite file, or the run's PostgreSQL schema) and the oracle's pool for it. */
    private final TargetDatabase db;
    private final KafkaOps ops;
    private final List<Instance> started = new ArrayList<>();
    private final MeterRegistry meters = new SimpleMeterRegistry();
    private volatile String lastStep = "the start";
    /** The inbox namespace of the first subject this experiment started: where the custom target query is first tried. */
    private volatile String firstInbox;

    private LabContext(LabRun run, String name) {
        this.run = run;
        this.name = name;
        this.settings = run.settings;
        this.runDir = run.recorder.runDir();
        try {
            Files.createDirectories(runDir.resolve("logs"));
            Files.createDirectories(runDir.resolve("snapshots"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.db = run.db.experiment(name);
        this.ops = run.connect();
    }

    public LabSettings settings() {
        return settings;
    }

    /** The broker, as the harness reaches it (subjects may go through the wire proxy: {@link #subjectBootstrap()}). */
    public String bootstrap() {
        return run.bootstrap;
    }

    /** The run's namespace; each experiment runs in a child of it. */
    public LabNamespace namespace() {
        return run.ns;
    }

    public Path runDir() {
        return runDir;
    }

    /** This experiment's Admin client: its request count is this experiment's alone. */
    public KafkaOps ops() {
        return ops;
    }

    public String brokerVersion() {
        return run.brokerVersion;
    }

    /** The wire proxy every subject talks through: when the run's barrier is the wire barrier, or the run has a witness. */
    public Optional<WireProxy> proxy() {
        return Optional.ofNullable(run.proxy);
    }

    /** What the proxy saw of the subjects' commits: whenever subjects talk through it ({@link LabSettings#witness()}, or the wire barrier). */
    public Optional<WireWitness> witness() {
        return proxy().map(WireProxy::witness);
    }

    /** {@code sqlite} or {@code postgresql}. */
    public String targetKind() {
        return db.kind();
    }

    /** The target database in words for the evidence (never with a password). */
    public String targetDescription() {
        return db.describe();
    }

    /** Tells the run's progress, as {@code <experiment>: message}. */
    public void step(String message) {
        String line = name + ": " + message;
        lastStep = line;
        run.progress.step(line);
    }

    /** A part of an experiment: its name (an experiment's own in the evidence), requirements, namespace and body. */
    public record Part(String name, List<String> requirements, LabNamespace ns, Experiment.Body body) {
        public Part {
            Objects.requireNonNull(name, "name");
            requirements = List.copyOf(requirements);
            Objects.requireNonNull(ns, "ns");
            Objects.requireNonNull(body, "body");
        }
    }

    /**
     * Runs a part of an experiment as an experiment of its own in the run's evidence (its own
     * environment, checks, timeline, metrics, target file and outcome), in {@code ns}: e.g. one
     * cell of a matrix. Its processes are stopped when it ends; an exception makes it NOT_RUN
     * with the reason, as for a whole experiment.
     */
    public Outcome part(String name, List<String> requirements, LabNamespace ns, Experiment.Body body) {
        return parts(List.of(new Part(name, requirements, ns, body))).get(0);
    }

    /**
     * Runs parts as {@link #part} does, up to {@link LabSettings#parallel()} at a time; they are
     * registered in the evidence in the order given before any starts, and their outcomes come
     * back in that order, whatever the order they finish in.
     */
    public List<Outcome> parts(List<Part> parts) {
        List<ExperimentRecorder> recorders = new ArrayList<>();
        for (Part p : parts) {
            recorders.add(run.recorder.experiment(p.name(), p.requirements().toArray(String[]::new)));
        }
        List<Callable<Outcome>> tasks = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            Part p = parts.get(i);
            ExperimentRecorder e = recorders.get(i);
            tasks.add(() -> run(run, e, p.ns(), p.body()));
        }
        return Lab.sideBySide(tasks, settings.parallel(), name);
    }

    /**
     * Runs one experiment's body in a context of its own: metered, NOT_RUN without starting when
     * the run was stopped, the outcome announced, an exception turned into NOT_RUN with the reason
     * (the stack trace logged when it is nothing the lab foresees), its processes stopped at the end.
     */
    static Outcome run(LabRun run, ExperimentRecorder e, LabNamespace ns, Experiment.Body body) {
        if (run.stop.requested()) {
            return e.finish(Outcome.notRun("not started: the run was interrupted by " + run.stop.reason()));
        }
        if (run.refused() != null) {
            return e.finish(Outcome.notRun("not started: " + run.refused()));
        }
        e.begin(); // registered with the others to keep its place; its time starts now
        LabContext ctx;
        try {
            ctx = new LabContext(run, e.name());
        } catch (RuntimeException ex) {
            return e.finish(Outcome.notRun("the experiment could not start: " + ex.getMessage()));
        }
        try {
            return ctx.run(e, ns, body);
        } finally {
            ctx.close();
        }
    }

    private Outcome run(ExperimentRecorder e, LabNamespace ns, Experiment.Body body) {
        e.environment("os", run.settings.platform().describe());
        meter(e);
        run.witness(ns, e);
        try {
            Outcome o = body.run(this, ns, e);
            step(o.toString());
            return o;
        } catch (Exception | LinkageError ex) {
            String why = run.refused() != null ? run.refused()
                    : run.stop.requested() ? "interrupted by " + run.stop.reason() + " during " + lastStep
                    : ex instanceof SubjectExitedException || ex instanceof NoSubjectException ? ex.getMessage()
                    : ex instanceof io.replaylab.kafka.BrokerUnreachableException ? "the broker became unreachable: " + ex.getMessage()
                    : null;
            if (why == null) { // nothing the lab foresees: keep the stack trace
                why = "the experiment could not complete: " + (ex.getMessage() == null || ex.getMessage().isBlank() ? "" : ex.getMessage() + " ")
                        + "(an unforeseen " + ex.getClass().getSimpleName() + "; the harness logged its stack trace)";
                log.error("experiment {} could not complete", e.name(), ex);
            }
            if (e.finished()) { // it failed on its way out, after its outcome was recorded: that outcome stands
                return e.outcome().orElseThrow();
            }
            e.record(Source.here("harness"), new Payload.Note(why));
            Outcome o = e.finish(Outcome.notRun(why));
            step("NOT_RUN (" + why + ")");
            return o;
        } finally {
            stopStarted();
            run.unwitness(ns);
        }
    }

    /** Its processes stopped (again: idempotent), its Admin client and its own target file's pool closed. */
    private void close() {
        try {
            ops.close();
        } finally {
            if (db != run.db) {
                db.close();
            }
        }
    }

    /**
     * The experiment's registry, attached to its evidence (snapshotted again when it finishes):
     * drains, waits, oracle reads, barrier hold and handoff times, processes started and the Admin
     * requests the harness sent for it.
     */
    private void meter(ExperimentRecorder e) {
        FunctionCounter.builder("replaylab.kafka.admin.requests", ops, KafkaOps::requestCount)
                .description("Admin requests the harness sent during the experiment").register(meters);
        e.metrics(meters);
    }

    public MeterRegistry meters() {
        return meters;
    }

    /** One of the run's topics as the oracle reads it: with the run's source mapping ({@link LabSettings#source()}). */
    public SourceSpec source(String topic) {
        return SourceSpec.topic(run.bootstrap, topic).parser(settings.source().parser());
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
        RecordSource source = settings.source();
        Optional<Subject> producer = source.producer();
        if (producer.isPresent()) {
            SyntheticProducer.ensureTopic(run.bootstrap, topic, settings.partitions()); // before the user's producer (the lab's makes its own)
            runProducer(e, producer.get(), topic, namespace);
        } else {
            String manifest = "snapshots/" + namespace + "-manifest.json";
            String summary = SyntheticProducer.summary(SyntheticProducer.produce(run.bootstrap, topic, settings.partitions(), namespace,
                    settings.records(), 7, 10, 0, runDir.resolve(manifest), null, source));
            e.record(Source.here("harness"), new Payload.Note(summary));
            e.artifact(manifest, "what was produced (count, sums, end offsets)");
        }
        TopicOracle.SourceSummary s = TopicOracle.of(source(topic)).summarize();
        String file = "snapshots/" + topic + "-source.json";
        io.replaylab.evidence.Evidence.writeJson(runDir.resolve(file), s);
        e.artifact(file, "the source set as read back with " + source.mapping());
        e.record(Source.here("harness"), new Payload.Note("the source set: " + topic + " holds " + s.records() + " record(s), " + s.parsed()
                + " read with " + source.mapping() + " (" + s.distinctIds() + " distinct ids, sum of amounts " + s.sumOfAmounts() + "), "
                + (s.records() - s.parsed())
                + " malformed (quarantined: no effect expected)" + (s.malformedExamples().isEmpty() ? "" : " e.g. " + s.malformedExamples())
                + "; end offsets " + s.endOffsets()));
        if (s.records() == 0) {
            throw new SubjectExitedException("the producer command " + producer.map(Subject::template).orElse("") + " wrote no record to topic "
                    + topic + " (the lab created it with " + settings.partitions() + " partitions before the producer ran; does the producer take "
                    + "its topic from {topic}?)");
        }
        if (s.parsed() == 0) {
            String why = "the source mapping (" + source.mapping() + ") read 0 of " + s.records() + " records of " + topic + "; record "
                    + s.firstRecord() + (s.malformedExamples().isEmpty() ? "" : "; " + s.malformedExamples().get(0));
            run.refuse(why, true);
            step(why);
            throw new LabStoppedException(why);
        }
        return s;
    }

    /** The user's producer into {@code topic}: started like a subject, waited for (drain timeout); its failure is named with its stderr. */
    private void runProducer(ExperimentRecorder e, Subject producer, String topic, String namespace) throws InterruptedException {
        Map<String, String> values = new HashMap<>();
        values.put("bootstrap", run.bootstrap); // straight to the broker: the witness is for the subjects' commits
        values.put("topic", topic);
        values.put("count", Integer.toString(settings.records()));
        values.put("namespace", namespace);
        step("producing to " + topic + " with the producer command");
        Instance p = start(e, name + "-producer", producer, values, false, false);
        long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
        while (p.process().isAlive()) {
            checkpoint();
            if (System.nanoTime() > deadline) {
                crash(e, p);
                throw new SubjectExitedException("the producer command " + producer.template() + " did not finish within " + settings.drainTimeout()
                        + " (LabSettings.drainTimeout); last lines of logs/" + p.name() + ".err: " + p.process().stderrTail(5));
            }
            p.process().process().waitFor(200, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        stop(e, p);
        int code = p.process().exitCode().orElseThrow();
        if (code != 0) {
            throw new SubjectExitedException("the producer command " + producer.template() + " exited with code " + code + "; last lines of logs/"
                    + p.name() + ".err: " + p.process().stderrTail(5));
        }
    }

    /** The oracle's comparison of the topic with an inbox namespace, the frontier checked against the group's offsets now. */
    public Comparison compare(String topic, String inbox, String group) {
        Timer.Sample t = Timer.start(meters);
        Comparison c = Oracle.of(source(topic), target(inbox)).compare(ops.describe(group));
        t.stop(meters.timer("replaylab.oracle.compare"));
        return c;
    }

    /** The target's (identity, amount) rows of an inbox namespace, saved as {@code snapshots/<name>.tsv}. */
    public TargetSnapshot snapshot(String inbox, String name) {
        Timer.Sample t = Timer.start(meters);
        TargetSnapshot s = target(inbox).snapshot(runDir.resolve("snapshots").resolve(name + ".tsv"));
        t.stop(meters.timer("replaylab.oracle.snapshot"));
        return s;
    }

    /**
     * The oracle's view of one inbox namespace; every view shares one pool. A custom target query
     * is tried first if no experiment has tried it yet ({@link #checkTargetQuery}).
     */
    public Target target(String inboxNamespace) {
        checkTargetQuery(inboxNamespace);
        return db.target(inboxNamespace);
    }

    /** A started consumer instance. */
    public record Instance(String name, ChildProcess process) {
        public long pid() {
            return process.pid();
        }
    }

    /**
     * Starts an instance of the run's subject ({@link LabSettings#subject()}) on {@code topic}
     * and {@code group}, projecting into the {@code inbox} namespace of the run's target; with
     * {@code debuggable}, suspended under a debugger agent until a barrier resumes it.
     */
    public Instance start(ExperimentRecorder e, String instance, String topic, String group, String inbox, boolean debuggable) {
        return start(e, instance, subjectBootstrap(), topic, group, inbox, debuggable);
    }

    /** As {@link #start(ExperimentRecorder, String, String, String, String, boolean)}, on another cluster (e.g. one the experiment started itself). */
    public Instance start(ExperimentRecorder e, String instance, String bootstrap, String topic, String group, String inbox, boolean debuggable) {
        Map<String, String> values = new HashMap<>();
        values.put("bootstrap", bootstrap);
        values.put("topic", topic);
        values.put("group", group);
        values.put("db", db.subjectDb());
        values.put("namespace", inbox);
        if (firstInbox == null) {
            firstInbox = inbox;
        }
        if (settings.subject() == null) {
            throw new NoSubjectException("no subject to test: give the lab one (LabSettings.subject, e.g. Subject.javaMain(MyConsumer.class, ...) "
                    + "or the reference subject's ReferenceSubject.consume())");
        }
        return start(e, instance, settings.subject(), values, debuggable);
    }

    /**
     * Starts an instance from any template (e.g. a transform subject): {@code values} fill its
     * placeholders; {@code {instance}} and {@code {logdir}} are added. Output goes to
     * {@code logs/<instance>.out|err}, the start is recorded and the process is stopped with the run.
     */
    public Instance start(ExperimentRecorder e, String instance, Subject template, Map<String, String> values, boolean debuggable) {
        return start(e, instance, template, values, debuggable, true);
    }

    /** As above; {@code targetLogin}: whether the program gets the target's password (a consumer does, a producer never). */
    private Instance start(ExperimentRecorder e, String instance, Subject template, Map<String, String> values, boolean debuggable,
            boolean targetLogin) {
        values = new HashMap<>(values);
        values.put("instance", instance);
        values.put("logdir", runDir.resolve("logs").toAbsolutePath().toString());
        values.putIfAbsent("group.protocol", settings.groupProtocol().name);
        values.putIfAbsent("max.poll.interval.ms", Integer.toString(settings.maxPollIntervalMs()));
        values.putIfAbsent("session.timeout.ms", Integer.toString(settings.sessionTimeoutMs()));
        List<String> cmd = run.guard.wrap(template.command(values));
        Path out = runDir.resolve("logs").resolve(instance + ".out");
        Path err = runDir.resolve("logs").resolve(instance + ".err");
        ChildProcess.Builder b = ChildProcess.of(cmd).name("the subject " + instance).output(out, err).ownProcessGroup(run.guard.ownGroups());
        Map<String, String> envValues = new HashMap<>(values);
        if (targetLogin && db.password() != null) {
            // the target's password reaches the subject in its environment: never on a command line the evidence records
            b.env(Subject.TARGET_PASSWORD_ENV, db.password());
            envValues.put("target-password", db.password());
        }
        b.env(template.env(envValues));
        if (template.directory() != null) {
            b.directory(template.directory());
        }
        if (debuggable) {
            // suspended until the barrier is armed (DebuggerBarrier#resumeProgram): the first commit cannot slip by
            b.debuggerAgent(true, Duration.ofSeconds(60));
        }
        Instance inst = new Instance(instance, b.start());
        run.guard.watch(inst.process().process());
        run.started(inst.process());
        synchronized (started) {
            started.add(inst);
        }
        meters.counter("replaylab.subject.processes").increment();
        e.record(Source.here("harness"), new Payload.ProcessStarted(instance, inst.pid(), cmd));
        e.environment("pid." + instance, Long.toString(inst.pid()));
        e.artifact(runDir.relativize(out).toString(), "stdout of " + instance);
        e.artifact(runDir.relativize(err).toString(), "stderr of " + instance);
        return inst;
    }

    /**
     * Puts a process this experiment started itself (e.g. a node of its own cluster) under the run's
     * watchdog: if the harness is killed, even with SIGKILL, the process is killed too, frozen or not.
     */
    public void watch(long pid) {
        run.guard.watchPid(pid);
    }

    /**
     * Attaches the native debugger (gdb) to an instance that is not a JVM, searching it and its
     * descendants for {@code point}'s function for up to the barrier timeout. gdb runs in a process
     * group of its own under the run's watchdog: a harness that dies leaves no debugger behind.
     */
    public NativeDebugger attachNative(Instance i, NativePoint point) throws InterruptedException {
        return NativeDebugger.to(i.pid()).launcher(run.guard::wrap).onStart(run.guard::watch).searchTimeout(settings.barrierTimeout())
                .attach(point);
    }

    /** Where subjects connect: the wire proxy when the run uses one, else the broker. */
    public String subjectBootstrap() {
        return run.proxy == null ? run.bootstrap : run.proxy.bootstrapServers();
    }

    /**
     * Called on every look of a wait, so that the wait ends within a poll interval instead of at its
     * timeout: throws {@link LabStoppedException} when the run was asked to stop, and
     * {@link SubjectExitedException} (the experiment becomes NOT_RUN) when one of these instances,
     * which the experiment needs running, has exited on its own (its exit code and the last lines of
     * its stderr say why).
     */
    public void checkpoint(Instance... instances) {
        if (run.refused() != null) {
            throw new LabStoppedException(run.refused());
        }
        if (run.stop.requested()) {
            throw new LabStoppedException(run.stop.reason());
        }
        for (Instance i : instances) {
            if (!i.process().isAlive()) {
                throw new SubjectExitedException("the subject " + i.name() + " (pid " + i.pid() + ") exited on its own with code "
                        + i.process().exitCode().orElseThrow() + " while the experiment needed it; last lines of logs/" + i.name() + ".err: "
                        + i.process().stderrTail(5));
            }
        }
    }

    /**
     * SIGTERM, then SIGKILL after a grace period; recorded, unless the experiment has finished already
     * (its evidence is sealed: an instance stopped on the way out of an experiment that ended early is
     * logged instead, and the returned event is null).
     */
    public Event stop(ExperimentRecorder e, Instance i) {
        ChildProcess.Stopped s = i.process().stop(run.grace());
        if (e.finished()) {
            log.info("{} (pid {}) stopped by {} after experiment {} had finished", i.name(), i.pid(), s.how(), e.name());
            return null;
        }
        return e.record(Source.here("harness"), new Payload.ProcessStopped(i.name(), i.pid(), s.exitCode(), s.how()));
    }

    /** SIGKILL, as a crash would: the subject gets no chance to finish its record, commit or leave the group; recorded. */
    public Event crash(ExperimentRecorder e, Instance i) {
        i.process().kill();
        return e.record(Source.here("harness"), new Payload.ProcessStopped(i.name(), i.pid(), i.process().exitCode().isPresent()
                ? i.process().exitCode().getAsInt() : null, "SIGKILL (crash)"));
    }

    /** Every process this experiment started, stopped by pid (R17): SIGTERM to all at once, SIGKILL to what is left after the grace period. */
    private void stopStarted() {
        List<ChildProcess> mine;
        synchronized (started) {
            mine = started.stream().map(Instance::process).toList();
        }
        ChildProcess.stopAll(mine, run.grace());
    }

    /**
     * Waits until the group's committed offsets reach the topic's end on every partition, with a
     * live count; null on timeout. Metered as {@code replaylab.drain} and {@code replaylab.drain.records}
     * (offsets committed while waiting), tagged with {@code stage}. An instance in {@code needed} that exits
     * on its own ends the wait at once ({@link #checkpoint}).
     */
    public OffsetSnapshot awaitDrained(String group, String topic, Duration timeout, String stage, Instance... needed) throws InterruptedException {
        long[] lastReport = {System.nanoTime()};
        long[] first = {-1};
        Timer.Sample t = Timer.start(meters);
        OffsetSnapshot done = ops.awaitDrained(group, topic, timeout, s -> {
            checkpoint(needed);
            long committed = committedSum(s, topic);
            if (committed > 0 && firstInbox != null) {
                checkTargetQuery(firstInbox);
            }
            if (first[0] < 0) {
                first[0] = committed;
            }
            if (System.nanoTime() - lastReport[0] > 2_000_000_000L) {
                long end = s.partitions().stream().filter(p -> p.topic().equals(topic)).mapToLong(PartitionOffsets::logEnd).sum();
                step("  … " + group + " committed " + committed + " of " + end);
                lastReport[0] = System.nanoTime();
            }
        }).orElse(null);
        if (done != null) {
            t.stop(meters.timer("replaylab.drain", "stage", stage));
            meters.counter("replaylab.drain.records", "stage", stage).increment(committedSum(done, topic) - Math.max(0, first[0]));
        }
        return done;
    }

    /**
     * A custom target query is tried as soon as a subject has committed an offset (its schema
     * exists by then), and before any experiment's first read of the target: one the database
     * refuses ends the run at once, every experiment NOT_RUN naming the query and the database's
     * message, instead of each failing at its verdict.
     */
    private void checkTargetQuery(String inbox) {
        if (settings.targetQuery() == null || run.queryChecked()) {
            return;
        }
        try {
            db.target(inbox).checkQuery();
            run.queryChecked(true);
        } catch (IllegalArgumentException ex) {
            run.refuse("the database refused the target query at the first offset commit: " + ex.getMessage());
            step(run.refused());
            throw new LabStoppedException(run.refused());
        } catch (io.replaylab.oracle.OracleReadException ex) {
            log.debug("target query not tried yet, the target cannot be read now: {}", ex.getMessage()); // the verdict's read names it
        }
    }

    private static long committedSum(OffsetSnapshot s, String topic) {
        return s.partitions().stream().filter(p -> p.topic().equals(topic) && p.hasCommitted()).mapToLong(PartitionOffsets::committed).sum();
    }

    /** Waits until the group has no member (its consumers left or timed out); metered as {@code replaylab.group.inactive}. */
    public OffsetSnapshot awaitInactive(String group, Duration timeout) throws InterruptedException {
        Timer.Sample t = Timer.start(meters);
        OffsetSnapshot s = Poll.every(Duration.ofMillis(250)).upTo(timeout).until(() -> {
            OffsetSnapshot look = ops.describe(group);
            if (!look.state().isInactive()) {
                checkpoint();
            }
            return look;
        }, x -> x.state().isInactive());
        if (s.state().isInactive()) {
            t.stop(meters.timer("replaylab.group.inactive"));
        }
        return s;
    }

    /** Saves a snapshot as JSON in the run directory and returns its relative path. */
    public String save(String name, Object value) {
        Path f = runDir.resolve("snapshots").resolve(name + ".json");
        io.replaylab.evidence.Evidence.writeJson(f, value);
        return runDir.relativize(f).toString();
    }

    /** Counts of the processing log lines by result, when the subject writes one (the reference subject does); empty when it writes none. */
    public Optional<Map<String, Long>> processingCounts(String instance) {
        Path log = runDir.resolve("logs").resolve(instance + ".processing.jsonl");
        Map<String, Long> out = new HashMap<>();
        if (!Files.exists(log)) {
            return Optional.empty();
        }
        try {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                JsonNode n = SUBJECT_LOGS.readTree(line);
                out.merge(n.path("result").asText("?"), 1L, Long::sum);
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return Optional.of(out);
    }

    /** Replays a subject's assignment log (if it writes one) into the timeline. */
    public void recordAssignmentLog(ExperimentRecorder e, Instance i) {
        Path log = runDir.resolve("logs").resolve(i.name() + ".assignments.jsonl");
        if (!Files.exists(log)) {
            return;
        }
        e.artifact(runDir.relativize(log).toString(), "assignment log of " + i.name());
        try {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                JsonNode n = SUBJECT_LOGS.readTree(line);
                List<String> parts = new ArrayList<>();
                n.path("partitions").forEach(p -> parts.add(p.asText()));
                Instant at = Instant.parse(n.path("time").asText());
                e.recordObserved(at, Source.of(i.name(), i.pid(), "assignment log"), new Payload.AssignmentChanged(i.name(),
                        n.path("event").asText(), parts, n.path("generation").asText(null), "assignment log"));
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    public static long committed(OffsetSnapshot s, String topic, int partition) {
        return s.partitions().stream().filter(p -> p.topic().equals(topic) && p.partition() == partition).mapToLong(PartitionOffsets::committed)
                .findFirst().orElse(PartitionOffsets.NONE);
    }
}
