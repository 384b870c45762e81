package io.replaylab.harness.lab;

/**
 * What the subject did fails the experiment at once, named: it skipped records nobody applied (a
 * reset or a seek to the log end past them), or it crashes on every delivery of a record, restarted
 * each time (the partition is stuck). Judged, never excused as NOT_RUN.
 */
public final class SubjectFailedException extends RuntimeException {
    SubjectFailedException(String message) {
        super(message);
    }
}
