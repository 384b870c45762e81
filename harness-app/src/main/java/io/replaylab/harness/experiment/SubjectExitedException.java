package io.replaylab.harness.experiment;

/** A subject process ended on its own while the experiment needed it running: the experiment is NOT_RUN, at once. */
final class SubjectExitedException extends RuntimeException {
    SubjectExitedException(String message) {
        super(message);
    }
}
