package io.replaylab.harness.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaylab.barrier.wire.WireWitness;
import io.replaylab.barrier.wire.WitnessedReset;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.OffsetsEvent;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.kafka.PartitionRef;
import io.replaylab.oracle.Oracle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subject processes an experiment starts ({@link LabContext#subjects()}): from the run's template
 * or any other, under the run's watchdog, with their logs; stopped, crashed or checked on the way of
 * a wait; every one stopped by pid when the experiment ends.
 */
public final class LabSubjects {
    /** A subject's own JSON-lines logs are plain JSON, not evidence: read with a plain mapper. */
    private static final ObjectMapper SUBJECT_LOGS = new ObjectMapper();
    private static final Logger log = LoggerFactory.getLogger(LabSubjects.class);
    private final LabContext ctx;
    private final TargetDatabase db;
    private final List<LabContext.Instance> started = new ArrayList<>();
    /** The inbox namespace of the first subject this experiment started: where the custom target query is first tried. */
    private volatile String firstInbox;

    LabSubjects(LabContext ctx, TargetDatabase db) {
        this.ctx = ctx;
        this.db = db;
    }

    String firstInbox() {
        return firstInbox;
    }

    /**
     * An instance of the run's subject ({@link LabSettings#subject()}) on {@code topic} and
     * {@code group}, projecting into the {@code inbox} namespace of the run's target, connecting where
     * subjects connect ({@link LabKafka#subjectBootstrap()}).
     *
     * @throws NoSubjectException the run has no subject
     */
    public InstanceSpec consumer(String instance, String topic, String group, String inbox) {
        return consumer(instance, ctx.kafka().subjectBootstrap(), topic, group, inbox);
    }

    /** As {@link #consumer(String, String, String, String)}, on another cluster (e.g. one the experiment started itself). */
    public InstanceSpec consumer(String instance, String bootstrap, String topic, String group, String inbox) {
        Subject subject = ctx.settings().subject().orElseThrow(() -> new NoSubjectException("no subject to test: give the lab one (LabSettings.subject, "
                + "e.g. Subject.javaMain(MyConsumer.class, ...) or the reference subject's ReferenceSubject.consume())"));
        return spec(instance, subject, bootstrap, topic, group, inbox);
    }

    /** Instance {@code instance} of the run's share subject ({@link LabSettings#shareSubject()}), a member of share group {@code group}. */
    public InstanceSpec shareConsumer(String instance, String topic, String group, String inbox) {
        Subject share = ctx.settings().shareSubject().orElseThrow(() -> new NoSubjectException("no share consumer to test: give the lab one "
                + "(LabSettings.shareSubject, e.g. the reference subject's ReferenceSubject.shareConsume())"));
        return spec(instance, share, ctx.kafka().subjectBootstrap(), topic, group, inbox);
    }

    /** An instance of {@code subject}: the target's addresses for it, and where it reads and writes. */
    private InstanceSpec spec(String instance, Subject subject, String bootstrap, String topic, String group, String inbox) {
        Map<String, String> values = new HashMap<>(db.addresses(instance));
        values.put("bootstrap", bootstrap);
        values.put("topic", topic);
        values.put("group", group);
        values.put("namespace", inbox);
        return InstanceSpec.of(instance, subject, values);
    }

    /**
     * Starts an instance: the spec's values fill its template's placeholders; {@code {instance}} and
     * {@code {logdir}} are added. Output goes to {@code logs/<instance>.out|err}, the start is recorded
     * and the process is stopped with the ctx.run().
     */
    public LabContext.Instance start(ExperimentRecorder e, InstanceSpec spec) {
        if (firstInbox == null && spec.subject() == ctx.settings().subject().orElse(null) && spec.values().containsKey("namespace")) {
            firstInbox = spec.values().get("namespace");
        }
        // supervised: restarted when it exits on its own, never under a debugger agent again (nothing would resume it)
        return start(e, spec.name(), spec.subject(), spec.values(), spec.debuggable(), true,
                new InstanceSpec(spec.name(), spec.subject(), spec.values(), false));
    }

    /** As above; {@code targetLogin}: whether the program gets the target's password (a consumer does, a producer never); not supervised. */
    LabContext.Instance start(ExperimentRecorder e, String instance, Subject template, Map<String, String> values, boolean debuggable,
            boolean targetLogin) {
        return start(e, instance, template, values, debuggable, targetLogin, null);
    }

    private LabContext.Instance start(ExperimentRecorder e, String instance, Subject template, Map<String, String> values, boolean debuggable,
            boolean targetLogin, InstanceSpec restart) {
        LabContext.Instance inst = new LabContext.Instance(instance, launch(e, instance, template, values, debuggable, targetLogin), restart, e);
        synchronized (started) {
            started.add(inst);
        }
        return inst;
    }

    /** Starts one process of an instance, under the run's watchdog; recorded. */
    private ChildProcess launch(ExperimentRecorder e, String instance, Subject template, Map<String, String> values, boolean debuggable,
            boolean targetLogin) {
        values = new HashMap<>(values);
        values.put("instance", instance);
        values.put("logdir", ctx.runDir().resolve("logs").toAbsolutePath().toString());
        values.put("command-config", ctx.run().clientConfig.toString());
        values.putIfAbsent("group.protocol", ctx.settings().broker().groupProtocol().name);
        values.putIfAbsent("max.poll.interval.ms", Integer.toString(ctx.settings().timeouts().maxPollIntervalMs()));
        values.putIfAbsent("session.timeout.ms", Integer.toString(ctx.settings().timeouts().sessionTimeoutMs()));
        List<String> cmd = ctx.run().guard.wrap(template.command(values));
        Path out = ctx.runDir().resolve("logs").resolve(instance + ".out");
        Path err = ctx.runDir().resolve("logs").resolve(instance + ".err");
        ChildProcess.Builder b = ChildProcess.of(cmd).name("the subject " + instance).output(out, err).ownProcessGroup(ctx.run().guard.ownGroups());
        Map<String, String> envValues = new HashMap<>(values);
        if (targetLogin) {
            b.env(TargetDatabase.libpqEnvironment(values, instance)); // libpq's and node-postgres's way to the proxy; the subject's own env wins
        }
        if (targetLogin && db.password() != null) {
            // the target's password reaches the subject in its environment: never on a command line the evidence records
            b.env(Subject.TARGET_PASSWORD_ENV, db.password());
            if (values.containsKey("pg-host")) {
                b.env("PGPASSWORD", db.password());
            }
            envValues.put("target-password", db.password());
        }
        b.env(Subject.COMMAND_CONFIG_ENV, ctx.run().clientConfig.toString());
        b.env(template.env(envValues));
        if (template.directory() != null) {
            b.directory(template.directory());
        }
        if (debuggable) {
            // suspended until the barrier is armed (DebuggerBarrier#resumeProgram): the first commit cannot slip by
            b.debuggerAgent(true, Duration.ofSeconds(60));
        }
        ChildProcess p = b.start();
        ctx.run().guard.watch(p.process());
        ctx.run().started(p);
        ctx.run().instance(instance, p, e);
        ctx.meters().counter("replaylab.subject.processes").increment();
        e.record(Source.here("harness"), new Payload.ProcessStarted(instance, p.pid(), cmd));
        e.environment("pid." + instance, Long.toString(p.pid()));
        e.artifact(ctx.runDir().relativize(out).toString(), "stdout of " + instance);
        e.artifact(ctx.runDir().relativize(err).toString(), "stderr of " + instance);
        return p;
    }

    /**
     * Puts a process this experiment started itself (e.g. a node of its own cluster) under the run's
     * watchdog: if the harness is killed, even with SIGKILL, the process is killed too, frozen or not.
     */
    public void watch(long pid) {
        ctx.run().guard.watchPid(pid);
    }

    /**
     * {@code command} as the run launches a helper program of its own (e.g. a debugger): in a process
     * group of its own under the run's watchdog, so that a harness that dies leaves nothing behind;
     * {@link #watch(Process)} it once started.
     */
    public List<String> guarded(List<String> command) {
        return ctx.run().guard.wrap(command);
    }

    /** Puts a program started from {@link #guarded} under the run's watchdog. */
    public void watch(Process p) {
        ctx.run().guard.watch(p);
    }

    /**
     * Called on every look of a wait, so that the wait ends within a poll interval instead of at its
     * timeout: throws {@link LabStoppedException} when the run was asked to stop; restarts one of these
     * instances, which the experiment needs running, that exited on its own (see {@link #supervise}),
     * or throws {@link SubjectExitedException} (NOT_RUN) or {@link SubjectFailedException} (a crash
     * loop, FAIL) when it may not; and judges a reset of its topic to the log end (see {@link #skips}).
     */
    public void checkpoint(LabContext.Instance... instances) {
        checkpoint(true, instances);
    }

    /**
     * As {@link #checkpoint}, for the instance a barrier arms or holds: its exit ends the experiment
     * NOT_RUN with its exit code, never a restart (a new process is not the one the barrier holds).
     */
    public void checkpointHeld(LabContext.Instance held) {
        checkpoint(false, held);
    }

    private void checkpoint(boolean supervised, LabContext.Instance... instances) {
        if (ctx.run().refused() != null) {
            throw new LabStoppedException(ctx.run().refused());
        }
        if (ctx.run().stop.requested()) {
            throw new LabStoppedException(ctx.run().stop.reason());
        }
        for (LabContext.Instance i : instances) {
            if (!i.process().isAlive()) {
                if (!supervised) {
                    throw new SubjectExitedException(exited(i));
                }
                supervise(i);
            }
            skips(i);
        }
    }

    private static String exited(LabContext.Instance i) {
        return "the subject " + i.name() + " (pid " + i.pid() + ") exited on its own with code " + i.process().exitCode().orElseThrow()
                + " while the experiment needed it; last lines of logs/" + i.name() + ".err: " + i.process().stderrTail(5);
    }

    /** Resets to a log end already judged (each is judged once, {@link LabKafka#STILL} after it was answered). */
    private final Set<WitnessedReset> judged = ConcurrentHashMap.newKeySet();

    /**
     * A reset of the instance's topic to its log end (on the wire: ListOffsets LATEST, answered a
     * moment ago at least), past a record that has no effect in the instance's inbox: records skipped
     * for good, what the consumer did ({@link SubjectFailedException}), named with how it got there.
     */
    private void skips(LabContext.Instance i) {
        InstanceSpec spec = i.spec();
        Optional<WireWitness> witness = ctx.kafka().witness();
        if (spec == null || witness.isEmpty() || spec.values().get("topic") == null || spec.values().get("namespace") == null) {
            return;
        }
        String topic = spec.values().get("topic");
        Instant settled = Instant.now().minus(LabKafka.STILL);
        // a consumer that makes its tables on its first record has none when it skipped them all: that must not refuse the run as a
        // bad target query (the query is judged at the group's first commit); the reset waits, and a stall names it
        for (WitnessedReset r : witness.get().resetsToEnd(topic)) {
            if (r.at().isAfter(settled) || r.offset() <= 0 || judged.contains(r)) {
                continue;
            }
            if (!ctx.target().targetReadable(spec.values().get("namespace"))) {
                return;
            }
            PartitionRef p = PartitionRef.of(topic, r.partition());
            Optional<Oracle.RecordEffects> below;
            try {
                below = Oracle.of(ctx.kafka().source(topic), ctx.target().inbox(spec.values().get("namespace")))
                        .effectsBefore(p, r.offset()).filter(x -> x.messageId() != null && x.effects() == 0);
            } catch (io.replaylab.oracle.OracleReadException notYet) {
                continue; // the target cannot be read yet (no database made so far): judged at a later look
            }
            judged.add(r);
            if (below.isPresent()) {
                String group = spec.values().get("group");
                long committed = group == null ? -1 : LabKafka.committed(ctx.kafka().ops().describe(group), topic, r.partition());
                throw new SubjectFailedException(SubjectFailedException.Kind.SKIP, r.at(), "records skipped: " + r.summary() + (committed < 0 ? " with no committed offset (auto.offset.reset=latest)"
                        : " past its group's committed offset " + committed + " (it did not start there: a seek to the end, or a committed offset "
                        + "it did not get, expired or out of range, with auto.offset.reset=latest)")
                        + ", and the record below it, " + p + "@" + below.get().offset() + " (" + below.get().messageId() + "), has no effect: every "
                        + "record of " + p + " from " + Math.max(0, committed) + " to " + r.offset() + " that nobody applied is lost for good");
            }
        }
    }

    /** Restarts at most this many times per instance and experiment. */
    static final int RESTARTS = 5;
    /** This many exits in a row with the group's committed offsets standing still in between: a crash loop. */
    static final int CRASH_LOOP = 3;

    /**
     * An instance the experiment needs exited on its own: as production's supervisor would, the lab
     * restarts it (after a back-off of 1, 2, 4 s), recording the exit (code, stderr's last lines, where
     * the group's committed offsets were). A crash loop (exits in a row while the group's committed
     * offsets stand still, in a group that had committed before) is the consumer's doing: a FAIL naming
     * the records it never gets past. An instance that cannot be restarted, or exits on its first
     * start every time, or past the budget, ends the experiment NOT_RUN, as before.
     */
    private void supervise(LabContext.Instance i) {
        int code = i.process().exitCode().orElseThrow();
        String why = exited(i);
        InstanceSpec again = i.spec();
        String group = again == null ? null : again.values().get("group");
        String topic = again == null ? null : again.values().get("topic");
        if (again == null || group == null || topic == null) {
            throw new SubjectExitedException(why);
        }
        OffsetSnapshot at = ctx.kafka().ops().describe(group);
        long progress = at.partitions().stream().filter(p -> p.topic().equals(topic) && p.hasCommitted()).mapToLong(PartitionOffsets::committed).sum();
        boolean everCommitted = at.partitions().stream().anyMatch(p -> p.topic().equals(topic) && p.hasCommitted());
        Exits seen = supervised.computeIfAbsent(i, k -> new Exits());
        int still = seen.exited(progress);
        int exits = seen.count();
        String where = at.partitions().stream().filter(p -> p.topic().equals(topic))
                .map(p -> p.partition() + "=" + (p.hasCommitted() ? Long.toString(p.committed()) : "none")).collect(Collectors.joining(", ", "{", "}"));
        ExperimentRecorder e = i.recorder();
        e.record(Source.of(i.name(), i.pid(), "supervisor"), new LabEvent.Exited(i.name(), i.pid(), exits, why, where));
        e.environment("exits of " + i.name(), exits + " exit(s) on its own, the last with code " + code + " (the lab restarts it as a supervisor would)"); // a finding, whatever the verdict
        // a crash loop is the consumer's when it crashed (not a clean exit) with records left where its group stands
        List<String> stuck = still >= CRASH_LOOP && everCommitted && code != 0 ? stuckAt(topic, again.values().get("namespace"), at) : List.of();
        if (!stuck.isEmpty()) {
            throw new SubjectFailedException(SubjectFailedException.Kind.CRASH_LOOP, seen.firstStill(), i.name() + " crashes on every delivery of " + String.join(", ", stuck) + ": it exited " + still
                    + " times in a row (last with code " + code + ") while its group's committed offsets stayed at " + where + ", restarted each "
                    + "time: the partition is stuck; last lines of logs/" + i.name() + ".err: " + i.process().stderrTail(3));
        }
        if (still >= CRASH_LOOP || exits > RESTARTS) {
            throw new SubjectExitedException(why + (exits > 1 ? " (exit " + exits + ": restarted " + (exits - 1) + " time(s) before)" : ""));
        }
        Duration backOff = Duration.ofSeconds(1L << Math.min(2, exits - 1));
        try {
            Thread.sleep(backOff.toMillis());
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new LabStoppedException("interrupted while restarting " + i.name());
        }
        ChildProcess p = launch(e, again.name(), again.subject(), again.values(), false, true);
        i.restarted(p);
        e.record(Source.of(i.name(), p.pid(), "supervisor"), new LabEvent.Restarted(i.name(), p.pid(), backOff.toSeconds(), exits, RESTARTS));
    }

    /** How many times {@code i} exited on its own and was restarted (or not) by the lab's supervisor. */
    public int exits(LabContext.Instance i) {
        Exits x = supervised.get(i);
        return x == null ? 0 : x.count();
    }

    /** What the supervisor knows of an instance's exits in this experiment. */
    private static final class Exits {
        private int count;
        private int withoutProgress;
        private long progressAtLast = Long.MIN_VALUE;
        private Instant firstStill = Instant.now();

        /** One more exit with the group's committed offsets summing to {@code progress}; how many in a row stood still. */
        synchronized int exited(long progress) {
            count++;
            withoutProgress = progress == progressAtLast ? withoutProgress + 1 : 1;
            if (withoutProgress == 1) {
                firstStill = Instant.now();
            }
            progressAtLast = progress;
            return withoutProgress;
        }

        synchronized int count() {
            return count;
        }

        /** The first of the exits in a row with no progress between them. */
        synchronized Instant firstStill() {
            return firstStill;
        }
    }

    private final Map<LabContext.Instance, Exits> supervised = new ConcurrentHashMap<>();

    /** The records a stuck group does not get past: per partition with records left, the one at its committed offset (none: nothing is stuck). */
    private List<String> stuckAt(String topic, String inbox, OffsetSnapshot at) {
        List<String> out = new ArrayList<>();
        Oracle oracle = Oracle.of(ctx.kafka().source(topic), ctx.target().inbox(inbox == null ? firstInbox : inbox));
        for (PartitionOffsets p : at.partitions()) {
            long from = p.hasCommitted() ? p.committed() : p.logStart();
            if (p.topic().equals(topic) && from < p.logEnd()) {
                Oracle.RecordEffects r = oracle.effectsAt(PartitionRef.of(topic, p.partition()), from);
                if (r.messageId() != null) { // applied before or not: a redelivery it dies of stops the partition all the same
                    out.add(r.messageId() + " (" + topic + "-" + p.partition() + "@" + from + ")");
                }
            }
        }
        return out;
    }

    /** What an experiment waits for while an instance runs, e.g. its group drained. */
    @FunctionalInterface
    public interface While<T> {
        T await(LabContext.Instance i) throws Exception;
    }

    /** Starts {@code spec}, waits for what {@code wait} waits for, and stops the instance whatever came of the wait. */
    public <T> T runWhile(ExperimentRecorder e, InstanceSpec spec, While<T> wait) throws Exception {
        LabContext.Instance i = start(e, spec);
        try {
            return wait.await(i);
        } finally {
            stop(e, i);
        }
    }

    /**
     * SIGTERM, then SIGKILL after a grace period; recorded, unless the experiment has finished already
     * (its evidence is sealed: an instance stopped on the way out of an experiment that ended early is
     * logged instead, and the returned event is null).
     */
    public Event stop(ExperimentRecorder e, LabContext.Instance i) {
        ChildProcess.Stopped s = i.process().stop(ctx.run().grace());
        if (e.finished()) {
            log.info("{} (pid {}) stopped by {} after experiment {} had finished", i.name(), i.pid(), s.how(), e.name());
            return null;
        }
        return e.record(Source.here("harness"), new Payload.ProcessStopped(i.name(), i.pid(), s.exitCode(), s.how()));
    }

    /** SIGKILL, as a crash would: the subject gets no chance to finish its record, commit or leave the group; recorded. */
    public Event crash(ExperimentRecorder e, LabContext.Instance i) {
        i.process().kill();
        return e.record(Source.here("harness"), new Payload.ProcessStopped(i.name(), i.pid(), i.process().exitCode().isPresent()
                ? i.process().exitCode().getAsInt() : null, "SIGKILL (crash)"));
    }

    /** The instances this experiment started so far (a restarted one again, under its name), the newest first. */
    public List<LabContext.Instance> started() {
        synchronized (started) {
            List<LabContext.Instance> out = new ArrayList<>(started);
            Collections.reverse(out);
            return out;
        }
    }

    /** Every process this experiment started, stopped by pid (R17): SIGTERM to all at once, SIGKILL to what is left after the grace period. */
    void stopStarted() {
        List<ChildProcess> mine;
        synchronized (started) {
            mine = started.stream().map(LabContext.Instance::process).toList();
        }
        ChildProcess.stopAll(mine, ctx.run().grace());
    }

    /** Counts of the processing log lines by result, when the subject writes one (the reference subject does); empty when it writes none. */
    public Optional<Map<String, Long>> processingCounts(String instance) {
        return processingLines(instance).map(lines -> {
            Map<String, Long> out = new HashMap<>();
            lines.forEach(l -> out.merge(l.result() == null ? "?" : l.result(), 1L, Long::sum));
            return out;
        });
    }

    /** The subject's processing log as it is now, line by line; empty when it writes none. */
    public Optional<List<ProcessingLine>> processingLines(String instance) {
        Path log = ctx.runDir().resolve("logs").resolve(instance + ".processing.jsonl");
        if (!Files.exists(log)) {
            return Optional.empty();
        }
        List<ProcessingLine> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n = SUBJECT_LOGS.readTree(line);
                out.add(new ProcessingLine(text(n, "instance"), text(n, "topic"), n.path("partition").asInt(-1), n.path("offset").asLong(-1),
                        n.hasNonNull("deliveryCount") ? n.get("deliveryCount").asInt() : null, text(n, "id"), text(n, "result"), text(n, "exception"),
                        text(n, "message")));
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException torn) {
            // the subject may be writing its last line right now: what was complete counts, the rest on the next look
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return Optional.of(out);
    }

    private static String text(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asText() : null;
    }

    /** Replays a subject's assignment log (if it writes one) into the timeline. */
    public void recordAssignmentLog(ExperimentRecorder e, LabContext.Instance i) {
        Path log = ctx.runDir().resolve("logs").resolve(i.name() + ".assignments.jsonl");
        if (!Files.exists(log)) {
            return;
        }
        e.artifact(ctx.runDir().relativize(log).toString(), "assignment log of " + i.name());
        try {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                JsonNode n = SUBJECT_LOGS.readTree(line);
                List<String> parts = new ArrayList<>();
                n.path("partitions").forEach(p -> parts.add(p.asText()));
                Instant at = Instant.parse(n.path("time").asText());
                e.recordObserved(at, Source.of(i.name(), i.pid(), "assignment log"), new OffsetsEvent.AssignmentChanged(i.name(),
                        n.path("event").asText(), parts, n.path("generation").asText(null), "assignment log"));
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
