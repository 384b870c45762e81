package io.replaylab.evidence;

import java.util.Objects;

/**
 * Proof that the injected fault really happened, tied to the recorded event that shows it. Only an
 * {@link ExperimentRecorder} can issue one (from an event it recorded), and a PASS needs one: so a
 * PASS without a confirmed fault cannot be built.
 */
public final class FaultConfirmation {
    private final String description;
    private final long eventSeq;
    private final String eventType;

    FaultConfirmation(String description, long eventSeq, String eventType) {
        this.description = Objects.requireNonNull(description, "description");
        this.eventSeq = eventSeq;
        this.eventType = Objects.requireNonNull(eventType, "eventType");
    }

    public String description() {
        return description;
    }

    /** The sequence number of the event that confirms the fault. */
    public long eventSeq() {
        return eventSeq;
    }

    public String eventType() {
        return eventType;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FaultConfirmation f && f.eventSeq == eventSeq && f.description.equals(description)
                && f.eventType.equals(eventType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(description, eventSeq, eventType);
    }

    @Override
    public String toString() {
        return description + " (event #" + eventSeq + " " + eventType + ")";
    }
}
