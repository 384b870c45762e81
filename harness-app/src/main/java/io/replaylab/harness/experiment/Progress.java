package io.replaylab.harness.experiment;

import java.io.PrintWriter;

/** One line per step with the elapsed time since the run started; silent without a writer. */
final class Progress {
    private final PrintWriter out;
    private final long t0 = System.nanoTime();
    private volatile String last = "the start";

    Progress(PrintWriter out) {
        this.out = out;
    }

    void step(String message) {
        last = message;
        if (out != null) {
            out.printf("[%6.1fs] %s%n", (System.nanoTime() - t0) / 1e9, message);
            out.flush();
        }
    }

    /** The step the run is in: the last one announced. */
    String last() {
        return last;
    }
}
