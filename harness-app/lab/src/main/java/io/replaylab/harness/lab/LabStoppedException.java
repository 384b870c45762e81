package io.replaylab.harness.lab;

/** The run was asked to stop ({@link LabStop}): thrown at the next look of a wait, so the experiment ends NOT_RUN at once. */
public final class LabStoppedException extends RuntimeException {
    LabStoppedException(String reason) {
        super("interrupted by " + reason);
    }
}
