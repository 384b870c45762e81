package io.replaylab.barrier;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;

/** Records every barrier move and the call's outcome into an experiment's timeline. */
public final class BarrierEvidence implements BarrierListener {
    private final ExperimentRecorder recorder;
    private final String instance;
    private final LongSupplier pid;
    private final String mode;
    private volatile Event lastReached;
    private volatile Arrival lastArrival;
    private volatile Event lastOutcome;

    private BarrierEvidence(ExperimentRecorder recorder, String instance, LongSupplier pid, String mode) {
        this.recorder = recorder;
        this.instance = instance;
        this.pid = pid;
        this.mode = mode;
    }

    /**
     * @param instance the held program's instance id (its lane in the report)
     * @param pid its process id
     * @param mode how it is held, e.g. {@code thread} or {@code process}
     */
    public static BarrierEvidence into(ExperimentRecorder recorder, String instance, long pid, String mode) {
        return new BarrierEvidence(recorder, instance, () -> pid, mode);
    }

    /** As above, for a barrier armed before its program starts (the wire barrier): the pid is read when an event is recorded. */
    public static BarrierEvidence into(ExperimentRecorder recorder, String instance, LongSupplier pid, String mode) {
        return new BarrierEvidence(recorder, instance, pid, mode);
    }

    @Override
    public void onTransition(BarrierTransition t) {
        String thread = t.arrival() == null ? "" : t.arrival().thread();
        Payload p = switch (t.to()) {
            case ARMED -> new BarrierEvent.BarrierArmed(t.point(), mode, "");
            case HELD -> new BarrierEvent.BarrierReached(t.point(), thread, t.arrival().context(), t.arrival().stack());
            case RELEASED -> new BarrierEvent.BarrierReleased(t.point(), t.by(), t.heldMillis());
            case EXPIRED -> new BarrierEvent.BarrierExpired(t.point(), t.waitedMillis());
        };
        Source src = t.to() == BarrierState.ARMED || t.to() == BarrierState.EXPIRED ? Source.here("harness")
                : Source.of(instance, pid.getAsLong(), thread);
        // a barrier let go as its experiment closes, after the outcome: the evidence is complete without it
        recorder.recordIfOpen(src, p).ifPresent(e -> {
            if (t.to() == BarrierState.HELD) {
                lastReached = e;
                lastArrival = t.arrival();
            }
        });
    }

    @Override
    public void onOutcome(CallOutcome o) {
        Map<String, Long> offsets = new TreeMap<>();
        if (lastArrival != null) {
            lastArrival.offsets().forEach(c -> offsets.put(c.partitionName(), c.offset()));
        }
        Payload p = switch (o.verdict()) {
            case ACCEPTED -> new BarrierEvent.CommitAccepted(instance, offsets);
            case REJECTED -> new BarrierEvent.CommitRejected(instance, offsets, o.exceptionClass(), o.message());
            case NOT_DELIVERED -> new BarrierEvent.CommitNotDelivered(instance, offsets, o.message());
        };
        recorder.recordIfOpen(Source.of(instance, pid.getAsLong(), ""), p).ifPresent(e -> lastOutcome = e);
    }

    @Override
    public void onObservation(String point, String what) {
        recorder.recordIfOpen(Source.of(instance, pid.getAsLong(), ""), new Payload.Note(point + ": " + what));
    }

    /** The event that shows the call held at the barrier, if any. */
    public Event reachedEvent() {
        return lastReached;
    }

    /** The event that shows the released call's outcome, if any. */
    public Event outcomeEvent() {
        return lastOutcome;
    }
}
