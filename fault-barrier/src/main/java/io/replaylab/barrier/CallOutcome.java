package io.replaylab.barrier;

import java.time.Instant;

/**
 * What the held call did once released, observed from outside it: returned normally (accepted),
 * threw or was answered with an error (rejected, with the exception class or error name and a
 * message), or never reached the broker at all (not delivered: e.g. the client closed the held
 * connection and sent no retry). Neither is assumed.
 */
public record CallOutcome(String point, boolean accepted, boolean delivered, String exceptionClass, String message, Instant time) {
    public static CallOutcome accepted(String point) {
        return new CallOutcome(point, true, true, null, null, Instant.now());
    }

    public static CallOutcome rejected(String point, String exceptionClass, String message) {
        return new CallOutcome(point, false, true, exceptionClass, message, Instant.now());
    }

    /** The call never reached its receiver; {@code why} says what happened to it. */
    public static CallOutcome notDelivered(String point, String why) {
        return new CallOutcome(point, false, false, null, why, Instant.now());
    }

    /** ACCEPTED, REJECTED or NOT_DELIVERED, as the evidence shows it. */
    public String verdict() {
        return accepted ? "ACCEPTED" : delivered ? "REJECTED" : "NOT_DELIVERED";
    }
}
