package io.replaylab.evidence;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A whole run: its experiments and their combined outcome.
 *
 * @param complete false when the run never finished (read back from a cut journal): the outcome is then NOT_RUN
 * @param problems what could not be read (line or field named); empty for a clean record
 */
public record RunEvidence(
        int schemaVersion,
        String runId,
        Instant started,
        Instant ended,
        boolean complete,
        List<ExperimentEvidence> experiments,
        Outcome outcome,
        List<String> problems) {

    public static final int SCHEMA_VERSION = 1;

    public RunEvidence {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(outcome, "outcome");
        experiments = List.copyOf(experiments);
        problems = List.copyOf(problems);
        if (!complete && outcome.status() == Status.PASS) {
            throw new IllegalArgumentException("an incomplete run cannot PASS");
        }
    }

    /** The experiments' outcomes combined (worst wins); NOT_RUN when the run is incomplete. */
    static Outcome outcomeOf(boolean complete, List<ExperimentEvidence> experiments) {
        Outcome combined = Outcome.combine(experiments.stream().map(ExperimentEvidence::outcome).toList());
        if (combined.status() == Status.PASS) {
            combined = new Outcome(Status.PASS, "all " + experiments.size() + " experiment(s) PASS: "
                    + experiments.stream().map(ExperimentEvidence::name).collect(java.util.stream.Collectors.joining(", ")), null,
                    combined.confirmation());
        }
        if (!complete) {
            return combined.and(Outcome.notRun("the run did not finish: its journal ends before the run's end"));
        }
        return combined;
    }
}
