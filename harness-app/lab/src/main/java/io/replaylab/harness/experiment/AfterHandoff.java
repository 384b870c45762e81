package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

import io.replaylab.barrier.BarrierState;
import io.replaylab.evidence.Event;
import io.replaylab.harness.experiment.ScheduleCell.Fault;

/**
 * What a schedule cell's fault may still do to A once its partition moved to B: the steps a
 * {@link Fault#afterHandoff} body is made of (the schedules experiment gives them, for one cell).
 */
interface AfterHandoff {
    /**
     * Keeps A held at its point for the run's contention window while B works on the same records
     * (against A's open transaction, at the DB point), B checked on the way; then A must still be
     * held there. Returns the event that shows what the group did meanwhile.
     *
     * @throws StepNotConfirmed A is no longer held at the end of the window: the sequence's next step cannot be made
     */
    Event contend() throws InterruptedException;

    /** A runs on: thawed, released at its point, its held call's outcome recorded (the returned event). */
    Event resume() throws InterruptedException;

    /** Hits A where it is held with a single fault (a crashed A is restarted with the same instance name); returns the fault's event. */
    Event inject(Fault single);

    /** A sequence's next step could not be made: the cell is NOT_RUN with this reason, never a PASS. */
    final class StepNotConfirmed extends RuntimeException {
        StepNotConfirmed(String why) {
            super(why);
        }
    }

    /**
     * Why A cannot take the sequence's next step after the contention window, or empty when it is
     * still held: its process is gone (with {@code exitCode} when known), or its barrier is no longer held.
     */
    static Optional<String> notHeld(ScheduleCell cell, Duration window, long pid, boolean alive, OptionalInt exitCode, BarrierState barrier) {
        String lead = "the sequence " + cell.fault().id() + " could not make its second step: A (pid " + pid + ") was no longer held at "
                + cell.point().id() + " at the end of the contention window (" + window + "): ";
        if (!alive) {
            return Optional.of(lead + "its process ended while held" + (exitCode.isPresent() ? ", with code " + exitCode.getAsInt() : ""));
        }
        if (barrier != BarrierState.HELD) {
            return Optional.of(lead + "its barrier is " + barrier + (barrier == BarrierState.RELEASED
                    ? " (a barrier lets A go after its hold timeout: the handoff and drain timeouts and the window together)" : ""));
        }
        return Optional.empty();
    }
}
