package io.replaylab.harness.lab;

/**
 * A subject skipped records nobody applied (it reset to the log end, or sought there, past them):
 * what the consumer did, so the experiment FAILs at once, naming the records and how it got there.
 */
public final class RecordsSkippedException extends RuntimeException {
    RecordsSkippedException(String message) {
        super(message);
    }
}
