package io.replaylab.harness.experiment;

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
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaylab.barrier.jdi.DebuggableProcess;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Json;
import io.replaylab.evidence.LogTail;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.Source;
import io.replaylab.harness.subject.SubjectCommand;
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

/** What every experiment of one run shares: broker, namespace, run directory, DB, processes, progress. */
final class LabContext {
    final LabSettings settings;
    final String bootstrap;
    final LabNamespace ns;
    final RunRecorder run;
    final Path runDir;
    /** The target database (SQLite in the run directory, or the run's own PostgreSQL schema) and the oracle's one pool for it. */
    final TargetDatabase db;
    final KafkaOps ops;
    final String brokerVersion;
    /** The wire barrier's proxy, when the run uses it: every subject talks to the broker through it. */
    final WireProxy proxy;
    private final Progress progress;
    private final LabStop stop;
    private final ProcessGuard guard;
    private final List<Instance> started = new ArrayList<>();
    private MeterRegistry meters = new SimpleMeterRegistry();

    LabContext(LabSettings settings, String bootstrap, String brokerVersion, LabNamespace ns, RunRecorder run, KafkaOps ops, Progress progress,
            WireProxy proxy, LabStop stop, ProcessGuard guard, TargetDatabase db) {
        this.settings = settings;
        this.stop = stop;
        this.guard = guard;
        this.proxy = proxy;
        this.bootstrap = bootstrap;
        this.brokerVersion = brokerVersion;
        this.ns = ns;
        this.run = run;
        this.runDir = run.runDir();
        this.db = db;
        this.ops = ops;
        this.progress = progress;
        try {
            Files.createDirectories(runDir.resolve("logs"));
            Files.createDirectories(runDir.resolve("snapshots"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void step(String message) {
        progress.step(message);
    }

    /**
     * A fresh registry for one experiment, attached to its evidence (snapshotted again when it
     * finishes): drains, waits, oracle reads, barrier hold and handoff times, processes started and
     * the Admin requests the harness sent.
     */
    void meter(ExperimentRecorder e) {
        meters = new SimpleMeterRegistry();
        long base = ops.requestCount();
        FunctionCounter.builder("replaylab.kafka.admin.requests", ops, o -> o.requestCount() - base)
                .description("Admin requests the harness sent during the experiment").register(meters);
        e.metrics(meters);
    }

    MeterRegistry meters() {
        return meters;
    }

    /** The oracle's comparison of the topic with an inbox namespace, the frontier checked against the group's offsets now. */
    Comparison compare(String topic, String inbox, String group) {
        Timer.Sample t = Timer.start(meters);
        Comparison c = Oracle.compare(SourceSpec.topic(bootstrap, topic), target(inbox), ops.describe(group));
        t.stop(meters.timer("replaylab.oracle.compare"));
        return c;
    }

    /** The target's (identity, amount) rows of an inbox namespace, saved as {@code snapshots/<name>.tsv}. */
    TargetSnapshot snapshot(String inbox, String name) {
        Timer.Sample t = Timer.start(meters);
        TargetSnapshot s = Oracle.snapshot(target(inbox), runDir.resolve("snapshots").resolve(name + ".tsv"));
        t.stop(meters.timer("replaylab.oracle.snapshot"));
        return s;
    }

    /** The oracle's view of one inbox namespace; every view shares the run's one pool. */
    Target target(String inboxNamespace) {
        return db.target(inboxNamespace);
    }

    /** A started consumer instance. */
    record Instance(String name, Process process, DebuggableProcess debuggable) {
        long pid() {
            return process.pid();
        }
    }

    Instance start(ExperimentRecorder e, String instance, String topic, String group, String inbox, boolean debuggable) {
        Map<String, String> values = new HashMap<>();
        values.put("bootstrap", subjectBootstrap());
        values.put("topic", topic);
        values.put("group", group);
        values.put("db", db.subjectDb());
        values.put("namespace", inbox);
        values.put("instance", instance);
        values.put("logdir", runDir.resolve("logs").toAbsolutePath().toString());
        List<String> cmd = guard.wrap(settings.subjectTemplate().command(values));
        // the target's password reaches the subject in its environment: never on a command line the evidence records
        Map<String, String> env = db.password() == null ? Map.of() : Map.of(SubjectCommand.TARGET_PASSWORD_ENV, db.password());
        Path out = runDir.resolve("logs").resolve(instance + ".out");
        Path err = runDir.resolve("logs").resolve(instance + ".err");
        Instance inst;
        if (debuggable) {
            // suspended until the barrier is armed (DebuggerBarrier#resumeProgram): the first commit cannot slip by
            DebuggableProcess dp = DebuggableProcess.launchSuspended(cmd, env, out, err, Duration.ofSeconds(60));
            inst = new Instance(instance, dp.process(), dp);
        } else {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                    .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()));
            pb.environment().remove("JAVA_TOOL_OPTIONS");
            pb.environment().putAll(env);
            try {
                inst = new Instance(instance, pb.start(), null);
            } catch (IOException ex) {
                throw new IllegalStateException("cannot start the subject (" + cmd.get(0) + "): " + ex.getMessage(), ex);
            }
        }
        guard.watch(inst.process());
        started.add(inst);
        meters.counter("replaylab.subject.processes").increment();
        e.record(Source.here("harness"), new Payload.ProcessStarted(instance, inst.pid(), cmd));
        e.environment("pid." + instance, Long.toString(inst.pid()));
        e.artifact(runDir.relativize(out).toString(), "stdout of " + instance);
        e.artifact(runDir.relativize(err).toString(), "stderr of " + instance);
        return inst;
    }

    /** Where subjects connect: the wire proxy when the run uses one, else the broker. */
    String subjectBootstrap() {
        return proxy == null ? bootstrap : proxy.bootstrapServers();
    }

    /**
     * Called on every look of a wait, so that the wait ends within a poll interval instead of at its
     * timeout: throws {@link LabStoppedException} when the run was asked to stop, and
     * {@link SubjectExitedException} (the experiment becomes NOT_RUN) when one of these instances,
     * which the experiment needs running, has exited on its own (its exit code and the last lines of
     * its stderr say why).
     */
    void checkpoint(Instance... instances) {
        if (stop.requested()) {
            throw new LabStoppedException(stop.reason());
        }
        for (Instance i : instances) {
            if (!i.process().isAlive()) {
                throw new SubjectExitedException("the subject " + i.name() + " (pid " + i.pid() + ") exited on its own with code "
                        + i.process().exitValue() + " while the experiment needed it; last lines of logs/" + i.name() + ".err: "
                        + tail(runDir.resolve("logs").resolve(i.name() + ".err"), 5));
            }
        }
    }

    private static String tail(Path file, int lines) {
        List<String> last = LogTail.lastLines(file, lines);
        return last.isEmpty() ? "(empty)" : String.join(" | ", last);
    }

    /** SIGTERM, then SIGKILL after a grace period; recorded. */
    void stop(ExperimentRecorder e, Instance i) {
        if (!i.process().isAlive()) {
            e.record(Source.here("harness"), new Payload.ProcessStopped(i.name(), i.pid(), i.process().exitValue(), "its own exit"));
            return;
        }
        String how = terminate(List.of(i.process()), grace());
        e.record(Source.here("harness"), new Payload.ProcessStopped(i.name(), i.pid(), i.process().isAlive() ? null : i.process().exitValue(), how));
    }

    /** Every process this run started, stopped by pid (R17): SIGTERM to all at once, SIGKILL to what is left after the grace period. */
    void stopAll() {
        terminate(started.stream().map(Instance::process).filter(Process::isAlive).toList(), grace());
    }

    /** 20 s for a subject to finish its record and leave the group; 3 s when the run was asked to stop (all within about 10 s). */
    private Duration grace() {
        return stop.requested() ? Duration.ofSeconds(3) : Duration.ofSeconds(20);
    }

    private static String terminate(List<Process> processes, Duration grace) {
        processes.forEach(Process::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        String how = "SIGTERM";
        for (Process p : processes) {
            try {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    how = "SIGKILL after " + grace.toSeconds() + " s";
                }
            } catch (InterruptedException ex) {
                p.destroyForcibly();
                how = "SIGKILL (interrupted)";
                Thread.currentThread().interrupt();
            }
        }
        return how;
    }

    /**
     * Waits until the group's committed offsets reach the topic's end on every partition, with a
     * live count; null on timeout. Metered as {@code replaylab.drain} and {@code replaylab.drain.records}
     * (offsets committed while waiting), tagged with {@code stage}. An instance in {@code needed} that exits
     * on its own ends the wait at once ({@link #checkpoint}).
     */
    OffsetSnapshot awaitDrained(String group, String topic, Duration timeout, String stage, Instance... needed) throws InterruptedException {
        long[] lastReport = {System.nanoTime()};
        long[] first = {-1};
        Timer.Sample t = Timer.start(meters);
        OffsetSnapshot done = ops.awaitDrained(group, topic, timeout, s -> {
            checkpoint(needed);
            long committed = committedSum(s, topic);
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

    private static long committedSum(OffsetSnapshot s, String topic) {
        return s.partitions().stream().filter(p -> p.topic().equals(topic) && p.hasCommitted()).mapToLong(PartitionOffsets::committed).sum();
    }

    /** Waits until the group has no member (its consumers left or timed out); metered as {@code replaylab.group.inactive}. */
    OffsetSnapshot awaitInactive(String group, Duration timeout) throws InterruptedException {
        Timer.Sample t = Timer.start(meters);
        long deadline = System.nanoTime() + timeout.toNanos();
        OffsetSnapshot s = ops.awaitInactive(group, Duration.ZERO);
        while (!s.state().isInactive() && System.nanoTime() < deadline) {
            checkpoint();
            s = ops.awaitInactive(group, Duration.ofMillis(250));
        }
        if (s.state().isInactive()) {
            t.stop(meters.timer("replaylab.group.inactive"));
        }
        return s;
    }

    /** Saves a snapshot as JSON in the run directory and returns its relative path. */
    String save(String name, Object value) {
        Path f = runDir.resolve("snapshots").resolve(name + ".json");
        try {
            io.replaylab.evidence.AtomicFiles.writeString(f, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(value));
        } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
        return runDir.relativize(f).toString();
    }

    /** Counts of the processing log lines by result, when the subject writes one (the reference subject does); empty when it writes none. */
    Optional<Map<String, Long>> processingCounts(String instance) {
        Path log = runDir.resolve("logs").resolve(instance + ".processing.jsonl");
        Map<String, Long> out = new HashMap<>();
        if (!Files.exists(log)) {
            return Optional.empty();
        }
        try {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                JsonNode n = Json.mapper().readTree(line);
                out.merge(n.path("result").asText("?"), 1L, Long::sum);
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return Optional.of(out);
    }

    /** Replays a subject's assignment log (if it writes one) into the timeline. */
    void recordAssignmentLog(ExperimentRecorder e, Instance i) {
        Path log = runDir.resolve("logs").resolve(i.name() + ".assignments.jsonl");
        if (!Files.exists(log)) {
            return;
        }
        e.artifact(runDir.relativize(log).toString(), "assignment log of " + i.name());
        try {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                JsonNode n = Json.mapper().readTree(line);
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

    static long committed(OffsetSnapshot s, String topic, int partition) {
        return s.partitions().stream().filter(p -> p.topic().equals(topic) && p.partition() == partition).mapToLong(PartitionOffsets::committed)
                .findFirst().orElse(PartitionOffsets.NONE);
    }
}
