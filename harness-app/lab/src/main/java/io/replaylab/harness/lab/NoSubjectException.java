package io.replaylab.harness.lab;

/** An experiment needs a subject the settings do not give: it ends NOT_RUN naming what to pass. */
final class NoSubjectException extends RuntimeException {
    NoSubjectException(String message) {
        super(message, null, false, false);
    }
}
