package io.replaylab.harness.barrier;

/**
 * A went past the point the debugger holds without reaching it, as its group's committed offsets show: it commits its offsets
 * another way ({@code KafkaConsumer#commitSync} never called: commitAsync, its client's auto-commit timer), or its database work
 * another way ({@code java.sql.Connection#commit} never called: statements that commit themselves, a connection in autocommit
 * mode). The caller tries the plan's {@link BarrierPlan#fallback} for {@link #why()}, or is NOT_RUN with this reason.
 */
public final class CommitsAnotherWay extends RuntimeException {
    private final BarrierPlan.Why why;

    CommitsAnotherWay(BarrierPlan.Why why, String what) {
        super(what);
        this.why = why;
    }

    /** {@link BarrierPlan.Why#COMMITS_PAST_THE_DEBUGGER} or {@link BarrierPlan.Why#DB_COMMITS_PAST_THE_DEBUGGER}. */
    public BarrierPlan.Why why() {
        return why;
    }
}
