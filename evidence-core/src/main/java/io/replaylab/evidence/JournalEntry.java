package io.replaylab.evidence;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One line of {@code journal.jsonl}, typed by its {@code kind}. The JSON is the same as it always
 * was ({@code {"kind":"check","experiment":…,"check":{…}}}), so older journals read back.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = JournalEntry.Run.class, name = "run"),
    @JsonSubTypes.Type(value = JournalEntry.ExperimentStarted.class, name = "experiment"),
    @JsonSubTypes.Type(value = JournalEntry.ExperimentBegan.class, name = "began"),
    @JsonSubTypes.Type(value = JournalEntry.Environment.class, name = "environment"),
    @JsonSubTypes.Type(value = JournalEntry.EventLine.class, name = "event"),
    @JsonSubTypes.Type(value = JournalEntry.CheckLine.class, name = "check"),
    @JsonSubTypes.Type(value = JournalEntry.Limitation.class, name = "limitation"),
    @JsonSubTypes.Type(value = JournalEntry.ArtifactLine.class, name = "artifact"),
    @JsonSubTypes.Type(value = JournalEntry.Metrics.class, name = "metrics"),
    @JsonSubTypes.Type(value = JournalEntry.Finished.class, name = "finished"),
    @JsonSubTypes.Type(value = JournalEntry.RunFinished.class, name = "run-finished"),
    @JsonSubTypes.Type(value = JournalEntry.Cleanup.class, name = "cleanup"),
    @JsonSubTypes.Type(value = JournalEntry.Owns.class, name = "owns"),
    @JsonSubTypes.Type(value = JournalEntry.CleanupDone.class, name = "cleanup-done")})
sealed interface JournalEntry {
    /** A line of one experiment, or null for the run's own lines. */
    default String experiment() {
        return null;
    }

    /** {@code pid} and {@code processStarted}: the process that writes the journal (null in journals before they were recorded). */
    record Run(String runId, Integer schemaVersion, Instant time, Long pid, Instant processStarted) implements JournalEntry {
    }

    /** Something the run created outside its directory, which its cleanup removes. */
    record Owns(Instant time, Resource resource) implements JournalEntry {
    }

    /** The cleanup ran to its end; {@code failed}: the steps that failed (empty: nothing is left). */
    record CleanupDone(Instant time, List<String> failed) implements JournalEntry {
    }

    record ExperimentStarted(String experiment, List<String> requirements, Instant time) implements JournalEntry {
    }

    /** An experiment registered earlier (to keep its place in the run's order) begins its work now. */
    record ExperimentBegan(String experiment, Instant time) implements JournalEntry {
    }

    record Environment(String experiment, String key, String value) implements JournalEntry {
    }

    record EventLine(String experiment, Event event) implements JournalEntry {
    }

    record CheckLine(String experiment, Check check) implements JournalEntry {
    }

    /** {@code value}: the limitation's text (the field's name since the first journals). */
    record Limitation(String experiment, String value) implements JournalEntry {
    }

    record ArtifactLine(String experiment, Artifact artifact) implements JournalEntry {
    }

    record Metrics(String experiment, List<MetricValue> metrics) implements JournalEntry {
    }

    record Finished(String experiment, Instant time, Outcome outcome) implements JournalEntry {
    }

    record RunFinished(Instant time) implements JournalEntry {
    }

    /** {@code key}: what was cleaned up; {@code value}: how it went. Written after the protocol was saved. */
    record Cleanup(Instant time, String key, String value) implements JournalEntry {
    }
}
