package io.replaylab.harness.lab;

/** A subject process ended on its own while the experiment needed it running: the experiment is NOT_RUN, at once. */
public final class SubjectExitedException extends RuntimeException {
    SubjectExitedException(String message) {
        super(message);
    }
}
