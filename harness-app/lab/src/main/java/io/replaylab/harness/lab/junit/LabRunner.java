package io.replaylab.harness.lab.junit;

import java.nio.file.Path;
import java.util.Objects;

import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Status;
import io.replaylab.evidence.junit.TestResults;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.AssertionFailedError;

/** Runs experiments for one test (see {@link RecordLab}): its work dir is the test's protocol directory. */
public final class LabRunner {
    private final ExtensionContext context;
    private final Path workDir;

    LabRunner(ExtensionContext context, Path workDir) {
        this.context = context;
        this.workDir = workDir;
    }

    /** Where this test's runs go. */
    public Path workDir() {
        return workDir;
    }

    /** Runs the lab and makes its outcome the test's result; returns the result when it is PASS. */
    public Lab.LabResult run(LabSettings.Builder settings) throws Exception {
        return expect(Status.PASS, settings);
    }

    /**
     * Runs the lab expecting {@code expected}: the test passes when the run's outcome is that status,
     * fails when it is another verdict, and a NOT_RUN that was not expected is NOT_RUN for the test
     * too (aborted with the reason): nothing was shown either way.
     */
    public Lab.LabResult expect(Status expected, LabSettings.Builder settings) throws Exception {
        Objects.requireNonNull(expected, "expected");
        Lab.LabResult r = Lab.run(settings.workDir(workDir).build(), null);
        Outcome o = r.evidence().outcome();
        if (o.status() == expected) {
            return r;
        }
        if (expected == Status.PASS || o.status() == Status.NOT_RUN) {
            TestResults.of(o, r.report(), context);
        }
        throw new AssertionFailedError("expected the run to " + expected + ", but it was " + o + " (protocol: " + r.report() + ")");
    }
}
