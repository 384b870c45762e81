package io.replaylab.evidence.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.SavedProtocol;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.opentest4j.TestAbortedException;

/** What {@link RecordEvidence} does: one run with one experiment per test, saved after it, its outcome made the test's result. */
final class EvidenceExtension implements ParameterResolver, AfterEachCallback {
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(EvidenceExtension.class);
    private static final List<String> PROTOCOL_FILES = List.of("journal.jsonl", Evidence.EVIDENCE_FILE, "report.md", "report.html");

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == ExperimentRecorder.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        return recording(e).experiment;
    }

    private Recording recording(ExtensionContext e) {
        return e.getStore(STORE).getOrComputeIfAbsent("recording", k -> start(e), Recording.class);
    }

    private static Recording start(ExtensionContext e) {
        Method m = e.getRequiredTestMethod();
        String dirName = TestResults.dirName(e);
        Path dir = TestResults.protocolDir(e);
        replacePrevious(dir);
        RunRecorder run = RunRecorder.start(dir, TestResults.safe(e.getRequiredTestClass().getSimpleName() + "." + dirName));
        String[] requirements = AnnotationSupport.findAnnotation(m, RecordEvidence.class)
                .or(() -> AnnotationSupport.findAnnotation(e.getRequiredTestClass(), RecordEvidence.class))
                .map(RecordEvidence::requirements).orElse(new String[0]);
        return new Recording(run, run.experiment(m.getName(), requirements));
    }

    /** A rerun of the test replaces its previous protocol (only the protocol's own files go). */
    private static void replacePrevious(Path dir) {
        try {
            for (String f : PROTOCOL_FILES) {
                Files.deleteIfExists(dir.resolve(f));
            }
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot replace the previous protocol in " + dir, ex);
        }
    }

    @Override
    public void afterEach(ExtensionContext e) {
        Recording r = e.getStore(STORE).get("recording", Recording.class);
        if (r == null) {
            return; // this test took no recorder
        }
        Optional<Throwable> thrown = e.getExecutionException();
        if (!r.experiment.finished()) {
            r.experiment.finish(thrown.map(EvidenceExtension::outcomeOf)
                    .orElse(Outcome.notRun("the test ended without finishing its experiment (no ExperimentRecorder.finish)")));
        }
        SavedProtocol saved;
        try (RunRecorder run = r.run) {
            saved = run.save();
        }
        if (thrown.isPresent()) {
            return; // the test's own exception is its result; the protocol is saved
        }
        TestResults.of(saved.evidence().experiments().get(0).outcome(), saved.reportMarkdown(), e);
    }

    /** R14 for a test that threw: an assertion is a failed check; an abort or any other exception means the experiment could not run. */
    private static Outcome outcomeOf(Throwable t) {
        if (t instanceof TestAbortedException) {
            return Outcome.notRun("the test was aborted: " + t.getMessage());
        }
        if (t instanceof AssertionError) {
            return Outcome.checkFailed("an assertion of the test failed: " + t.getMessage());
        }
        return Outcome.notRun("the test could not complete: " + t);
    }

    /** One test's run; its journal is closed when the test's store closes, also if the save never happened. */
    record Recording(RunRecorder run, ExperimentRecorder experiment) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            run.close();
        }
    }
}
