package io.replaylab.barrier;

import java.time.Instant;

/**
 * What the held call did once released, observed from outside it: returned normally (accepted) or
 * threw (rejected, with the exception's class and message). Neither is assumed.
 */
public record CallOutcome(String point, boolean accepted, String exceptionClass, String message, Instant time) {
    public static CallOutcome accepted(String point) {
        return new CallOutcome(point, true, null, null, Instant.now());
    }

    public static CallOutcome rejected(String point, String exceptionClass, String message) {
        return new CallOutcome(point, false, exceptionClass, message, Instant.now());
    }
}
