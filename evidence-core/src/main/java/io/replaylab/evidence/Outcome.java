package io.replaylab.evidence;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The outcome of an experiment or a run (SPEC R14): exactly PASS, FAIL or NOT_RUN, each with a reason.
 * A PASS exists only through {@link #judge(FaultConfirmation, List)} with a confirmed fault and
 * every check holding; {@link #and(Outcome)} keeps the worst.
 *
 * @param failKind set only for FAIL
 * @param confirmation the confirmed fault, set only for PASS (and for a FAIL judged on checks)
 */
public record Outcome(Status status, String reason, FailKind failKind, FaultConfirmation confirmation) {
    public Outcome {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(reason, "reason");
        if (status == Status.FAIL && failKind == null) {
            throw new IllegalArgumentException("a FAIL needs a kind (fault not observed, or check failed)");
        }
        if (status != Status.FAIL && failKind != null) {
            throw new IllegalArgumentException(status + " cannot carry a fail kind");
        }
        if (status == Status.PASS && confirmation == null) {
            throw new IllegalArgumentException("a PASS needs a confirmed fault (SPEC R14); use Outcome.judge");
        }
    }

    /** A prerequisite is missing, or the injection point was not confirmed. */
    public static Outcome notRun(String reason) {
        return new Outcome(Status.NOT_RUN, reason, null, null);
    }

    /** The expected fault did not happen: the experiment failed, correctness was not shown. */
    public static Outcome faultNotObserved(String reason) {
        return new Outcome(Status.FAIL, reason, FailKind.FAULT_NOT_OBSERVED, null);
    }

    /** A correctness check failed. */
    public static Outcome checkFailed(String reason) {
        return new Outcome(Status.FAIL, reason, FailKind.CHECK_FAILED, null);
    }

    /**
     * Judges a run whose fault was confirmed: PASS when every check passes (and there is at least
     * one), FAIL naming the failed checks, NOT_RUN naming the checks that could not run.
     */
    public static Outcome judge(FaultConfirmation confirmation, List<Check> checks) {
        Objects.requireNonNull(confirmation, "confirmation");
        if (checks.isEmpty()) {
            return notRun("no check was evaluated");
        }
        String failed = names(checks, Status.FAIL);
        if (!failed.isEmpty()) {
            return new Outcome(Status.FAIL, "check failed: " + failed, FailKind.CHECK_FAILED, confirmation);
        }
        String notRun = names(checks, Status.NOT_RUN);
        if (!notRun.isEmpty()) {
            return notRun("check not evaluated: " + notRun);
        }
        return new Outcome(Status.PASS, "fault confirmed (" + confirmation.description() + ") and all "
                + checks.size() + " checks hold", null, confirmation);
    }

    /** The worse of the two; on a tie, this one (the first reason is kept). */
    public Outcome and(Outcome other) {
        return other.status.ordinal() > status.ordinal() ? other : this;
    }

    /** Combines many (an empty list is NOT_RUN: nothing ran). */
    public static Outcome combine(List<Outcome> outcomes) {
        return outcomes.stream().reduce(Outcome::and).orElse(notRun("no experiment ran"));
    }

    /** The checks of status {@code s}, as {@code name (requirement)}, comma-separated: how a verdict names them. */
    public static String names(List<Check> checks, Status s) {
        return checks.stream().filter(c -> c.status() == s).map(c -> c.name() + " (" + c.requirement() + ")")
                .collect(Collectors.joining(", "));
    }

    @Override
    public String toString() {
        return status + (failKind != null ? " [" + failKind + "]" : "") + ": " + reason;
    }
}
