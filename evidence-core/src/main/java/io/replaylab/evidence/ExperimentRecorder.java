package io.replaylab.evidence;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * Records one experiment of a run. Thread-safe: barrier threads, process watchers and the
 * experiment itself may record concurrently. Every call is journaled before it returns.
 */
public final class ExperimentRecorder {
    private final RunRecorder run;
    private final String name;
    private final List<String> requirements;
    private Instant started;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private final List<Event> events = new ArrayList<>();
    private final List<Check> checks = new ArrayList<>();
    private final List<String> limitations = new ArrayList<>();
    private final List<Artifact> artifacts = new ArrayList<>();
    private List<MetricValue> metrics = List.of();
    private MeterRegistry registry;
    private Instant ended;
    private Outcome outcome;

    ExperimentRecorder(RunRecorder run, String name, List<String> requirements, Instant started) {
        this.run = run;
        this.name = name;
        this.requirements = List.copyOf(requirements);
        this.started = started;
    }

    public String name() {
        return name;
    }

    /**
     * The experiment begins its work now: its start time becomes now. For experiments registered
     * all at once to keep their order in the run ({@link RunRecorder#experiment}) that then start
     * when their turn comes, side by side or one after another. Only before anything is recorded.
     */
    public synchronized ExperimentRecorder begin() {
        requireOpen();
        if (!events.isEmpty() || !checks.isEmpty()) {
            throw new IllegalStateException("experiment '" + name + "' has recorded already; it began before");
        }
        started = run.now();
        run.append(new JournalEntry.ExperimentBegan(name, started));
        return this;
    }

    /** An environment fact: a version, the bootstrap, a namespace, a pid. */
    public synchronized ExperimentRecorder environment(String key, String value) {
        requireOpen();
        environment.put(Objects.requireNonNull(key, "key"), String.valueOf(value));
        run.append(new JournalEntry.Environment(name, key, String.valueOf(value)));
        return this;
    }

    /** Appends an event to the timeline, stamped now. */
    public synchronized Event record(Source source, Payload payload) {
        requireOpen();
        Event e = new Event(events.size() + 1L, run.now(), run.nanos(), source, payload);
        events.add(e);
        run.append(new JournalEntry.EventLine(name, e));
        return e;
    }

    /**
     * As {@link #record}, unless the experiment has finished (in one step: a finish on another thread
     * cannot come between): what a listener on another thread uses for what may come after the outcome,
     * e.g. a barrier let go as the experiment closes.
     */
    public synchronized Optional<Event> recordIfOpen(Source source, Payload payload) {
        return outcome != null ? Optional.empty() : Optional.of(record(source, payload));
    }

    /**
     * Appends an event observed after the fact (e.g. read from a process's own log), stamped with
     * the wall-clock time it happened; the monotonic time stays the time of recording.
     */
    public synchronized Event recordObserved(Instant happenedAt, Source source, Payload payload) {
        requireOpen();
        Event e = new Event(events.size() + 1L, Objects.requireNonNull(happenedAt, "happenedAt"), run.nanos(), source, payload);
        events.add(e);
        run.append(new JournalEntry.EventLine(name, e));
        return e;
    }

    public synchronized Check check(Check check) {
        requireOpen();
        checks.add(Objects.requireNonNull(check, "check"));
        run.append(new JournalEntry.CheckLine(name, check));
        return check;
    }

    public synchronized ExperimentRecorder limitation(String text) {
        requireOpen();
        limitations.add(Objects.requireNonNull(text, "text"));
        run.append(new JournalEntry.Limitation(name, text));
        return this;
    }

    /** A file in the run directory (relative path) that belongs to this experiment's evidence. */
    public synchronized ExperimentRecorder artifact(String relativePath, String description) {
        requireOpen();
        Artifact a = new Artifact(relativePath, description);
        artifacts.add(a);
        run.append(new JournalEntry.ArtifactLine(name, a));
        return this;
    }

    /**
     * Attaches a registry: every meter in it is snapshotted now and again when the experiment
     * finishes, so the evidence holds the final values (a later registry replaces this one).
     */
    public synchronized ExperimentRecorder metrics(MeterRegistry registry) {
        requireOpen();
        this.registry = Objects.requireNonNull(registry, "registry");
        snapshotMetrics();
        return this;
    }

    private void snapshotMetrics() {
        metrics = MetricValue.snapshot(registry);
        run.append(new JournalEntry.Metrics(name, metrics));
    }

    /**
     * Confirms that the injected fault happened, pointing at the recorded event that shows it.
     * The event must belong to this experiment's timeline.
     */
    public synchronized FaultConfirmation confirmFault(String description, Event evidence) {
        if (evidence == null || evidence.seq() < 1 || evidence.seq() > events.size() || !events.get((int) evidence.seq() - 1).equals(evidence)) {
            throw new IllegalArgumentException("a fault can only be confirmed by an event recorded in experiment '" + name + "'");
        }
        return new FaultConfirmation(description, evidence.seq(), evidence.type());
    }

    /** Ends the experiment with its outcome; every later call throws. */
    public synchronized Outcome finish(Outcome outcome) {
        requireOpen();
        Objects.requireNonNull(outcome, "outcome");
        if (registry != null) {
            snapshotMetrics();
        }
        this.outcome = outcome;
        this.ended = run.now();
        run.append(new JournalEntry.Finished(name, ended, outcome));
        return outcome;
    }

    public synchronized List<Check> checks() {
        return List.copyOf(checks);
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    public synchronized boolean finished() {
        return outcome != null;
    }

    /** The outcome it finished with; empty while it runs. */
    public synchronized Optional<Outcome> outcome() {
        return Optional.ofNullable(outcome);
    }

    synchronized Instant started() {
        return started;
    }

    synchronized ExperimentEvidence toEvidence() {
        Outcome o = outcome != null ? outcome : Outcome.notRun("experiment '" + name + "' has not finished");
        return new ExperimentEvidence(name, requirements, started, ended, environment, events, checks, o, limitations,
                artifacts, metrics);
    }

    private void requireOpen() {
        if (outcome != null) {
            throw new IllegalStateException("experiment '" + name + "' has finished (" + outcome.status() + "); nothing more can be recorded");
        }
    }
}
