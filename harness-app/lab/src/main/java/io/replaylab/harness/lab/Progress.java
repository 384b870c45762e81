package io.replaylab.harness.lab;

import java.time.Duration;

/** The run's steps, passed to its listener with the elapsed time; remembers the last for an interruption's reason. */
final class Progress {
    private final LabProgress listener;
    private final long t0 = System.nanoTime();
    private volatile String last = "the start";

    Progress(LabProgress listener) {
        this.listener = listener == null ? LabProgress.NONE : listener;
    }

    void step(String message) {
        last = message;
        listener.step(Duration.ofNanos(System.nanoTime() - t0), message);
    }

    /** The step the run is in: the last one announced. */
    String last() {
        return last;
    }
}
