package io.replaylab.evidence.process;

/** A child process could not be started, did not become ready, or exited while it was needed; the message says which and why. */
public final class ChildProcessException extends RuntimeException {
    public ChildProcessException(String message) {
        super(message);
    }

    public ChildProcessException(String message, Throwable cause) {
        super(message, cause);
    }
}
