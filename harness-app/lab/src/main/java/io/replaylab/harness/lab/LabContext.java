package io.replaylab.harness.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;

import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * One experiment's view of its run, in three rooms and a few things of its own: {@link #kafka()}
 * (the broker, an Admin client of its own, the proxy and witness, source topics, waits on a group),
 * {@link #target()} (its target database as the oracle reads it) and {@link #subjects()} (the
 * processes it starts, stopped by pid when it ends); itself, the settings, the run directory, steps,
 * meters and parts run as experiments of their own. Experiments of one run may run side by side
 * ({@link LabSettings.Builder#parallel}); nothing here is shared with another experiment except the
 * run itself. An experiment gets one from {@link Lab#run} through its {@link Experiment.Body}; it
 * never builds one.
 */
public final class LabContext {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LabContext.class);
    private final LabRun run;
    /** The experiment's (or part's) name: the prefix of its steps. */
    private final String name;
    private final LabSettings settings;
    private final Path runDir;
    /** This experiment's target database (its own SQLite file, or the run's PostgreSQL schema) and the oracle's pool for it. */
    private final TargetDatabase db;
    private final KafkaOps ops;
    private final MeterRegistry meters = new SimpleMeterRegistry();
    private final LabKafka kafka;
    private final LabTarget target;
    private final LabSubjects subjects;
    private final List<AutoCloseable> atEnd = new ArrayList<>();
    private volatile String lastStep = "the start";

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
        this.kafka = new LabKafka(this, ops);
        this.target = new LabTarget(this, db);
        this.subjects = new LabSubjects(this, db);
    }

    /** The broker, the experiment's Admin client, the proxy and witness, source topics and waits on a group. */
    public LabKafka kafka() {
        return kafka;
    }

    /** The target database as the oracle reads it. */
    public LabTarget target() {
        return target;
    }

    /** The subject processes this experiment starts, stops and checks. */
    public LabSubjects subjects() {
        return subjects;
    }

    LabRun run() {
        return run;
    }

    String name() {
        return name;
    }

    public LabSettings settings() {
        return settings;
    }

    public Path runDir() {
        return runDir;
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
        List<Callable<Outcome>> tasks = new ArrayList<>();
        for (Part p : parts) { // each registered now, in order; none starts before sideBySide
            ExperimentRecorder e = run.recorder.experiment(p.name(), p.requirements().toArray(String[]::new));
            tasks.add(() -> run(run, e, p.ns(), p.body()));
        }
        return run.slots.lent(() -> Lab.sideBySide(tasks, settings.parallel(), name));
    }

    /**
     * Runs one experiment's body in a context of its own: metered, NOT_RUN without starting when
     * the run was stopped, the outcome announced, an exception turned into NOT_RUN with the reason
     * (the stack trace logged when it is nothing the lab foresees), its processes stopped at the end.
     */
    static Outcome run(LabRun run, ExperimentRecorder e, LabNamespace ns, Experiment.Body body) {
        try {
            return run.slots.in(() -> runInSlot(run, e, ns, body)); // a stop is looked at once the slot is had, not before the wait
        } catch (RuntimeException | Error ex) {
            throw ex;
        } catch (Exception ex) {
            throw new IllegalStateException(ex); // runInSlot turns what a body throws into NOT_RUN: nothing checked comes here
        }
    }

    private static Outcome runInSlot(LabRun run, ExperimentRecorder e, LabNamespace ns, Experiment.Body body) {
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
        if (!run.settings.broker().client().isEmpty()) {
            e.environment("kafka client properties", run.settings.broker().client().redacted().toString()); // secrets hidden
        }
        meter(e);
        run.witness(ns, e);
        try {
            Outcome o = body.run(this, ns, e);
            step(o.toString());
            return o;
        } catch (SubjectFailedException failed) { // what the consumer did: judged, never excused
            if (e.finished()) {
                return e.outcome().orElseThrow();
            }
            e.record(Source.here("harness"), new Payload.Note(failed.getMessage()));
            Outcome o = e.finish(Outcome.checkFailed(failed.getMessage()));
            step("FAIL (" + failed.getMessage() + ")");
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
            subjects.stopStarted();
            run.unwitness(ns);
        }
    }

    /** A resource the experiment holds for the whole of its run (a commit check, a watch): closed when it ends, its processes stopped first. */
    public void closeAtEnd(AutoCloseable resource) {
        synchronized (atEnd) {
            atEnd.add(0, Objects.requireNonNull(resource, "resource")); // the last opened closes first
        }
    }

    /** What it holds to the end closed, its Admin client and its own target file's pool closed (its processes are stopped by then). */
    private void close() {
        List<AutoCloseable> open;
        synchronized (atEnd) {
            open = new ArrayList<>(atEnd);
            atEnd.clear();
        }
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception ex) {
                log.warn("experiment {}: closing {} failed: {}", name, c, ex.toString());
            }
        }
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

    /**
     * A started instance: its name and its process now. A supervised one (a consumer the experiment
     * needs running) is restarted under its name when it exits on its own, as systemd or Kubernetes
     * would restart it ({@link LabSubjects#checkpoint}): {@link #process()} is then the new one.
     */
    public static final class Instance {
        private final String name;
        private final InstanceSpec spec;
        private final ExperimentRecorder recorder;
        private volatile ChildProcess process;
        private volatile java.time.Instant started = java.time.Instant.now();

        Instance(String name, ChildProcess process, InstanceSpec spec, ExperimentRecorder recorder) {
            this.name = name;
            this.process = process;
            this.spec = spec;
            this.recorder = recorder;
        }

        public String name() {
            return name;
        }

        /** The process now (a restarted instance's newest). */
        public ChildProcess process() {
            return process;
        }

        public long pid() {
            return process.pid();
        }

        /** How to start it again (null: it is not restarted when it exits). */
        InstanceSpec spec() {
            return spec;
        }

        ExperimentRecorder recorder() {
            return recorder;
        }

        void restarted(ChildProcess p) {
            process = p;
            started = java.time.Instant.now();
        }

        /** When its process now was started. */
        public java.time.Instant started() {
            return started;
        }

        @Override
        public String toString() {
            return name + " (pid " + pid() + ")";
        }
    }

    /** Saves a snapshot as JSON in the run directory and returns its relative path. */
    public String save(String name, Object value) {
        Path f = runDir.resolve("snapshots").resolve(name + ".json");
        io.replaylab.evidence.Evidence.writeJson(f, value);
        return runDir.relativize(f).toString();
    }

}
