package io.replaylab.evidence;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proof that a run's protocol is on disk. Cleanup steps run only through it (SPEC R17), and each
 * step is journaled after the fact; {@link #cleanupDone()} marks the end, so a run that died during
 * its cleanup is told apart from one that finished it ({@link RunJournal}).
 */
public final class SavedProtocol {
    private static final Logger log = LoggerFactory.getLogger(SavedProtocol.class);

    private final Path runDir;
    private final Journal journal;
    private final Clock clock;
    private final RunEvidence evidence;
    private final Path evidenceFile;
    private final List<String> failed = new ArrayList<>();

    SavedProtocol(Path runDir, Journal journal, Clock clock, RunEvidence evidence, Path evidenceFile) {
        this.runDir = runDir;
        this.journal = journal;
        this.clock = clock;
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
        return runDir.resolve("report.md");
    }

    public Path reportHtml() {
        return runDir.resolve("report.html");
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
            synchronized (this) {
                failed.add(what + ": " + result);
            }
            throw e;
        } finally {
            log.info("cleanup '{}': {}", what, result);
            journal.append(new JournalEntry.Cleanup(clock.instant(), what, result));
        }
    }

    /**
     * Journals that the cleanup ran to its end, naming the steps that failed. A run whose journal
     * lacks this line died before its cleanup ended and may have left what it {@linkplain RunRecorder#owns owns}.
     */
    public synchronized void cleanupDone() {
        journal.append(new JournalEntry.CleanupDone(clock.instant(), List.copyOf(failed)));
        log.info("cleanup done{}", failed.isEmpty() ? "" : ", " + failed.size() + " step(s) failed");
    }
}
