package io.replaylab.barrier.gdb;

/**
 * The native debugger could not attach, and why, in words a person can act on: an experiment
 * turns it into NOT_RUN, never a silent wait.
 */
public final class NativeAttachException extends RuntimeException {
    /** Why there is no native barrier. */
    public enum Reason {
        /** No {@code gdb} on this machine. */
        NO_DEBUGGER,
        /** Neither the process nor its descendants loaded the point's function within the search time. */
        NOT_FOUND,
        /** The kernel refused the debugger ptrace rights over the process. */
        NO_PTRACE,
        /** The process ended before the debugger attached. */
        GONE,
        /** gdb itself failed (its answer is in the message). */
        DEBUGGER_FAILED
    }

    private final Reason reason;

    NativeAttachException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
