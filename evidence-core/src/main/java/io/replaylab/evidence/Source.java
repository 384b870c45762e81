package io.replaylab.evidence;

import java.util.Objects;

/**
 * Who an event comes from: an instance id (e.g. {@code harness}, {@code consumer-A}), its OS
 * process id, and a thread name. One lane per instance in the report's timeline.
 */
public record Source(String instance, long pid, String thread) {
    public Source {
        Objects.requireNonNull(instance, "instance");
        thread = thread == null ? "" : thread;
    }

    public static Source of(String instance, long pid, String thread) {
        return new Source(instance, pid, thread);
    }

    /** This process and the calling thread, named {@code instance}. */
    public static Source here(String instance) {
        return new Source(instance, ProcessHandle.current().pid(), Thread.currentThread().getName());
    }
}
