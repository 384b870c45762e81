package io.replaylab.barrier;

import java.time.Instant;
import java.util.Objects;

/**
 * What the held call did once released, observed from outside it: one {@link Verdict}, with the
 * exception class or error name and a message where there is one. Neither is assumed.
 */
public record CallOutcome(String point, Verdict verdict, String exceptionClass, String message, Instant time) {
    /** The three things a released call can have done. */
    public enum Verdict {
        /** returned normally: the receiver took it */
        ACCEPTED,
        /** threw, or was answered with an error */
        REJECTED,
        /** never reached its receiver (e.g. the client closed the held connection and sent no retry) */
        NOT_DELIVERED
    }

    public CallOutcome {
        Objects.requireNonNull(verdict, "verdict");
    }

    public static CallOutcome accepted(String point) {
        return new CallOutcome(point, Verdict.ACCEPTED, null, null, Instant.now());
    }

    public static CallOutcome rejected(String point, String exceptionClass, String message) {
        return new CallOutcome(point, Verdict.REJECTED, exceptionClass, message, Instant.now());
    }

    /**
     * What refused the call, for people: the exception's simple name ({@code CommitFailedException})
     * or the broker's error name ({@code UNKNOWN_MEMBER_ID}); null when nothing did. The full class
     * stays in {@link #exceptionClass()}, for the evidence.
     */
    public String errorName() {
        return exceptionClass == null ? null : exceptionClass.substring(exceptionClass.lastIndexOf('.') + 1);
    }

    /** The call never reached its receiver; {@code why} says what happened to it. */
    public static CallOutcome notDelivered(String point, String why) {
        return new CallOutcome(point, Verdict.NOT_DELIVERED, null, why, Instant.now());
    }
}
