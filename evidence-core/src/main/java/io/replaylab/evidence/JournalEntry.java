package io.replaylab.evidence;

import java.time.Instant;
import java.util.List;

/** One line of {@code journal.jsonl}; {@code kind} says which fields are set. */
record JournalEntry(
        String kind,
        String runId,
        Integer schemaVersion,
        String experiment,
        List<String> requirements,
        Instant time,
        String key,
        String value,
        Event event,
        Check check,
        Artifact artifact,
        List<MetricValue> metrics,
        Outcome outcome) {

    static final String RUN = "run";
    static final String EXPERIMENT = "experiment";
    static final String ENVIRONMENT = "environment";
    static final String EVENT = "event";
    static final String CHECK = "check";
    static final String LIMITATION = "limitation";
    static final String ARTIFACT = "artifact";
    static final String METRICS = "metrics";
    static final String FINISHED = "finished";
    static final String RUN_FINISHED = "run-finished";
    static final String CLEANUP = "cleanup";

}
