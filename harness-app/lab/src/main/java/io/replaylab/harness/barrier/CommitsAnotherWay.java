package io.replaylab.harness.barrier;

/**
 * A committed offsets of its group without passing the point the debugger holds ({@code KafkaConsumer#commitSync}): it
 * commits another way (commitAsync, its client's auto-commit timer), so the point would never be reached. The caller
 * holds A on the wire instead ({@link BarrierPlan#fallback}), which sees every OffsetCommit, or is NOT_RUN with this reason.
 */
public final class CommitsAnotherWay extends RuntimeException {
    CommitsAnotherWay(String what) {
        super(what);
    }
}
