package io.replaylab.evidence.junit;

import java.nio.file.Path;

import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Status;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * An experiment's outcome as a JUnit test's result, the same for every extension that runs
 * experiments ({@link RecordEvidence}, harness-lab's {@code @LabTest}): PASS returns, FAIL throws
 * {@link AssertionFailedError} with the reason, NOT_RUN throws {@link TestAbortedException} (the
 * test is reported skipped, with the reason), or fails it when the JUnit configuration parameter
 * {@value #NOT_RUN_PARAMETER} is {@code fail} (a CI where nothing may skip).
 */
public final class TestResults {
    /** JUnit configuration parameter: {@code fail} makes a NOT_RUN experiment fail its test instead of aborting it. */
    public static final String NOT_RUN_PARAMETER = "replaylab.evidence.not-run";

    /**
     * JUnit configuration parameter (a system property, a line in {@code junit-platform.properties}, or the launcher's):
     * the base of every test's protocol directory (default {@code target/replay-lab}).
     */
    public static final String DIR_PROPERTY = "replaylab.evidence.dir";

    private TestResults() {
    }

    /** The running test's protocol directory: {@code <base>/<TestClass>/<method>[-<invocation>]}. */
    public static Path protocolDir(ExtensionContext e) {
        return Path.of(e.getConfigurationParameter(DIR_PROPERTY).orElse("target/replay-lab"), e.getRequiredTestClass().getName(), dirName(e));
    }

    /** The test method's name, with a parameterized invocation's display name when there is one. */
    static String dirName(ExtensionContext e) {
        return e.getRequiredTestMethod().getName() + (e.getDisplayName().startsWith("[") ? "-" + safe(e.getDisplayName()) : "");
    }

    static String safe(String s) {
        String out = s.replaceAll("[^A-Za-z0-9._=-]+", "_");
        return out.length() > 80 ? out.substring(0, 80) : out;
    }

    /** Returns on PASS; else throws what makes the running test failed or aborted, naming the outcome and where its protocol is. */
    public static void of(Outcome outcome, Path report, ExtensionContext context) {
        String where = " (protocol: " + report + ")";
        if (outcome.status() == Status.FAIL) {
            throw new AssertionFailedError("experiment " + outcome + where);
        }
        if (outcome.status() == Status.NOT_RUN) {
            String message = "experiment NOT_RUN: " + outcome.reason() + where;
            if (context.getConfigurationParameter(NOT_RUN_PARAMETER).filter("fail"::equals).isPresent()) {
                throw new AssertionFailedError(message);
            }
            throw new TestAbortedException(message);
        }
    }
}
