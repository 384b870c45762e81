package io.replaylab.harness.barrier;

import java.util.Optional;

import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.HoldMode;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.process.Platform;
import io.replaylab.harness.lab.InstanceSpec;
import io.replaylab.harness.lab.LabContext;

/**
 * One way to hold A, already aimed at its point: it starts A, arms the point through its own
 * {@link io.replaylab.barrier.BarrierSource} and returns the {@link Held} point over its own
 * {@link Hold}. {@link BarrierPlan} is the only place that picks one; a new technology is a class
 * of this package and a line there.
 */
interface Technology {
    /** Starts A and arms the point (see {@link BarrierPlan#arm}); nothing of a try that did not arm stays running. */
    Held arm(Arming a) throws InterruptedException;

    /** The hold mode this technology uses when {@code asked} was asked for (a connection or gdb holds one thread). */
    default HoldMode mode(HoldMode asked) {
        return asked;
    }

    /** The hold mode as the evidence names it. */
    String holdMode(HoldMode asked);

    /** What the evidence says of the point held this way. */
    String limitation();

    /** Why this machine cannot hold A this way, or empty. */
    default Optional<String> unavailableOn(Platform platform) {
        return Optional.empty();
    }

    /** Starts A with {@code armed} already waiting for it: a start that fails expires the barrier, so nothing of the try stays armed. */
    static LabContext.Instance startBeside(Arming a, io.replaylab.barrier.Barrier armed) {
        try {
            return a.ctx().subjects().start(a.e(), a.spec());
        } catch (RuntimeException x) {
            armed.expire();
            throw x;
        }
    }

    /** What arming needs: the run, the evidence, the point's name in it, A, the group whose requests a wire point holds. */
    record Arming(LabContext ctx, ExperimentRecorder e, String pointName, InstanceSpec spec, String group, HoldMode mode, BarrierOptions options) {
    }
}
