package io.replaylab.evidence.junit;

import org.junit.jupiter.api.Assumptions;

/**
 * A tool a test needs beyond Maven is missing. Under CI ({@code CI=true}) the test fails:
 * {@code .ci/run} installs every such tool, and CI skips nothing. Elsewhere it is skipped with
 * {@code why}, which says how to install it.
 */
public final class Prerequisite {
    private Prerequisite() {
    }

    /** Fails the test under CI, skips it elsewhere; {@code why} names the tool and how to install it. */
    public static void missing(String why) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError(why + " (CI must run this test: .ci/run installs it)");
        }
        Assumptions.abort(why);
    }
}
