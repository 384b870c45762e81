package io.replaylab.harness.lab.junit;

import io.replaylab.evidence.junit.TestResults;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** What {@link RecordLab} does: a {@link LabRunner} per test, working in the test's protocol directory (as {@code @RecordEvidence}'s). */
final class LabExtension implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == LabRunner.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        return new LabRunner(e, TestResults.protocolDir(e));
    }
}
