package io.replaylab.harness.experiment;

import java.io.PrintWriter;

/** One line per step with the elapsed time since the run started; silent without a writer. */
final class Progress {
    private final PrintWriter out;
    private final long t0 = System.nanoTime();

    Progress(PrintWriter out) {
        this.out = out;
    }

    void step(String message) {
        if (out != null) {
            out.printf("[%6.1fs] %s%n", (System.nanoTime() - t0) / 1e9, message);
            out.flush();
        }
    }
}
