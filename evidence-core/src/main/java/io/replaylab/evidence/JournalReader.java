package io.replaylab.evidence;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Rebuilds a run from its journal: every valid line counts, every bad line is named, never a PASS by default. */
final class JournalReader {
    private JournalReader() {
    }

    static RunEvidence read(Path file) {
        JournalLines read = JournalLines.read(file);
        List<String> problems = new ArrayList<>(read.problems());
        String runId = null;
        Instant runStarted = null;
        Instant runEnded = null;
        Map<String, Builder> experiments = new LinkedHashMap<>();
        for (JournalLines.Line line : read.entries()) {
            int no = line.number();
            JournalEntry e = line.entry();
            Builder b = e.experiment() == null ? null : experiments.get(e.experiment());
            if (e instanceof JournalEntry.Run r) {
                runId = r.runId();
                runStarted = r.time();
                if (r.schemaVersion() != null && r.schemaVersion() > RunEvidence.SCHEMA_VERSION) {
                    problems.add(file.getFileName() + " line " + no + ": schema version " + r.schemaVersion()
                            + " is newer than this reader's " + RunEvidence.SCHEMA_VERSION);
                }
            } else if (e instanceof JournalEntry.ExperimentStarted x) {
                experiments.put(x.experiment(), new Builder(x.experiment(), x.requirements(), x.time()));
            } else if (e instanceof JournalEntry.RunFinished f) {
                runEnded = f.time();
            } else if (e instanceof JournalEntry.Cleanup || e instanceof JournalEntry.CleanupDone || e instanceof JournalEntry.Owns) {
                // the run's housekeeping (RunJournal reads it); not part of the verdict
            } else if (b == null) {
                problems.add(file.getFileName() + " line " + no + ": " + kindOf(e) + " for unknown experiment '" + e.experiment() + "'");
            } else {
                b.add(e);
            }
        }
        if (runId == null) {
            problems.add(file.getFileName() + ": no 'run' line: this is not a replay-lab journal, or its first line is lost");
            runId = "unknown";
        }
        List<ExperimentEvidence> done = experiments.values().stream().map(Builder::build).toList();
        boolean complete = runEnded != null && problems.isEmpty();
        Instant started = runStarted != null ? runStarted
                : done.stream().map(ExperimentEvidence::started).findFirst().orElse(Instant.EPOCH);
        return new RunEvidence(RunEvidence.SCHEMA_VERSION, runId, started, runEnded, complete, done,
                RunEvidence.outcomeOf(complete, done), problems);
    }

    /** The line's {@code kind} as the journal names it. */
    private static String kindOf(JournalEntry e) {
        return java.util.Arrays.stream(JournalEntry.class.getAnnotation(com.fasterxml.jackson.annotation.JsonSubTypes.class).value())
                .filter(t -> t.value() == e.getClass()).map(com.fasterxml.jackson.annotation.JsonSubTypes.Type::name).findFirst().orElse("?");
    }

    private static final class Builder {
        final String name;
        final List<String> requirements;
        Instant started;
        final Map<String, String> environment = new LinkedHashMap<>();
        final List<Event> events = new ArrayList<>();
        final List<Check> checks = new ArrayList<>();
        final List<String> limitations = new ArrayList<>();
        final List<Artifact> artifacts = new ArrayList<>();
        List<MetricValue> metrics = List.of();
        Instant ended;
        Outcome outcome;

        Builder(String name, List<String> requirements, Instant started) {
            this.name = name;
            this.requirements = requirements == null ? List.of() : requirements;
            this.started = started == null ? Instant.EPOCH : started;
        }

        /** One of the experiment's own lines. */
        void add(JournalEntry e) {
            if (e instanceof JournalEntry.ExperimentBegan x) {
                started = x.time();
            } else if (e instanceof JournalEntry.Environment x) {
                environment.put(x.key(), x.value());
            } else if (e instanceof JournalEntry.EventLine x) {
                events.add(x.event());
            } else if (e instanceof JournalEntry.CheckLine x) {
                checks.add(x.check());
            } else if (e instanceof JournalEntry.Limitation x) {
                limitations.add(x.value());
            } else if (e instanceof JournalEntry.ArtifactLine x) {
                artifacts.add(x.artifact());
            } else if (e instanceof JournalEntry.Metrics x) {
                metrics = x.metrics();
            } else if (e instanceof JournalEntry.Finished x) {
                ended = x.time();
                outcome = x.outcome();
            }
        }

        ExperimentEvidence build() {
            Outcome o = outcome != null ? outcome
                    : Outcome.notRun("experiment '" + name + "' did not finish: its journal ends after "
                            + events.size() + " event(s)");
            return new ExperimentEvidence(name, requirements, started, outcome != null ? ended : null, environment, events,
                    checks, o, limitations, artifacts, metrics);
        }
    }
}
