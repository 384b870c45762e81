package io.replaylab.harness.lab;

import java.time.Duration;

/** The run's steps, passed to its listener with the time since the run started; safe to call from experiments running side by side. */
final class Progress {
    private final LabProgress listener;
    private final long t0 = System.nanoTime();

    Progress(LabProgress listener) {
        this.listener = listener == null ? LabProgress.NONE : listener;
    }

    synchronized void step(String message) {
        listener.step(Duration.ofNanos(System.nanoTime() - t0), message);
    }
}
