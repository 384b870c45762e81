package io.replaylab.evidence;

import java.nio.file.Path;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proof that a run's protocol is on disk. Cleanup steps run only through it (SPEC R17), and each
 * step is journaled after the fact.
 */
public final class SavedProtocol {
    private static final Logger log = LoggerFactory.getLogger(SavedProtocol.class);

    private final RunRecorder run;
    private final RunEvidence evidence;
    private final Path evidenceFile;

    SavedProtocol(RunRecorder run, RunEvidence evidence, Path evidenceFile) {
        this.run = run;
        this.evidence = evidence;
        this.evidenceFile = evidenceFile;
    }

    public RunEvidence evidence() {
        return evidence;
    }

    public Path evidenceFile() {
        return evidenceFile;
    }

    public Path reportMarkdown() {
        return run.runDir().resolve("report.md");
    }

    public Path reportHtml() {
        return run.runDir().resolve("report.html");
    }

    /** Runs one cleanup step and journals it (with its failure, if any: the failure is rethrown). */
    public SavedProtocol cleanup(String what, Runnable step) {
        Objects.requireNonNull(what, "what");
        String result = "done";
        try {
            step.run();
            return this;
        } catch (RuntimeException e) {
            result = "failed: " + e.getMessage();
            throw e;
        } finally {
            log.info("cleanup '{}': {}", what, result);
            run.append(new JournalEntry.Cleanup(run.now(), what, result));
        }
    }
}
