package io.replaylab.evidence;

/** Why an experiment failed: the fault it expected never happened, or a correctness check broke. */
public enum FailKind {
    /** The expected fault did not happen (no redelivery, the stale commit was accepted, no handoff). */
    FAULT_NOT_OBSERVED,
    /** A correctness check failed (a second effect, a hole below the committed frontier, a mismatch). */
    CHECK_FAILED
}
