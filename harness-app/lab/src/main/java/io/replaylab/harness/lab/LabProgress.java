package io.replaylab.harness.lab;

import java.io.PrintWriter;
import java.time.Duration;

/** What a run tells while it runs: one call per step, with the time since the run started. */
@FunctionalInterface
public interface LabProgress {
    /** Says nothing. */
    LabProgress NONE = (sinceStart, message) -> { };

    void step(Duration sinceStart, String message);

    /** Lines such as {@code [  12.3s] rebalance: B owns t-0} on {@code out}, flushed at once (the CLI's console). */
    static LabProgress printingTo(PrintWriter out) {
        return (sinceStart, message) -> {
            out.printf("[%6.1fs] %s%n", sinceStart.toMillis() / 1000.0, message);
            out.flush();
        };
    }
}
