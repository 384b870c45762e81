package io.replaylab.harness.barrier;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.WirePoint;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabWire;

/**
 * A started with its first OffsetCommit held on the Kafka wire: a DB point armed while it is held
 * does not count the transactions A runs while it starts (its schema), and cannot miss its next
 * record's commit. Closing lets the OffsetCommit go (or expires the hold that never came).
 */
record WireWarmUp(Technology.Arming a, Barrier barrier, LabContext.Instance instance) implements AutoCloseable {
    /** Arms the hold, then starts A through the run's wire proxy. */
    static WireWarmUp start(Technology.Arming a) {
        LabWire proxy = a.ctx().kafka().wire().orElseThrow(() -> new IllegalStateException("the run has no wire proxy"));
        long[] pid = {0};
        Barrier warmUp = proxy.barrier().arm("warm-up", WirePoint.offsetCommit(a.group()), HoldMode.THREAD,
                BarrierEvidence.into(a.e(), a.spec().name(), () -> pid[0], "wire"), a.options());
        LabContext.Instance inst = Technology.startBeside(a, warmUp);
        pid[0] = inst.pid();
        return new WireWarmUp(a, warmUp, inst);
    }

    /**
     * Waits until A's first OffsetCommit is held, or until A applied every record's effect without one (a consumer that keeps its
     * positions itself: its start-up is behind it all the same).
     *
     * @throws PointNotReached A did neither in the barrier timeout
     */
    void await() throws InterruptedException {
        try {
            Held.awaitArrival(a.ctx(), barrier, instance, Uncommitted.of(a));
        } catch (PointUnreachable noOffsetCommit) {
            a.e().record(Source.here("harness"), new Payload.Note("the warm-up: " + noOffsetCommit.getMessage() + "; A's start-up is behind it, so "
                    + "the DB point is armed now"));
        } catch (BarrierTimeoutException t) {
            throw new PointNotReached("send an OffsetCommit for group " + a.group() + " (the warm-up: the DB point is armed while it is held)");
        }
    }

    @Override
    public void close() {
        if (barrier.state() == BarrierState.HELD) {
            barrier.release();
        } else if (barrier.state() == BarrierState.ARMED) {
            barrier.expire();
        }
    }
}
