package io.replaylab.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records one run into its directory: every step goes to {@code journal.jsonl} as it happens
 * (fsynced), and {@link #save()} writes {@code evidence.json}, {@code report.md} and
 * {@code report.html}. Cleanup is only possible through the {@link SavedProtocol} that save returns
 * (SPEC R17).
 *
 * <pre>{@code
 * try (RunRecorder run = RunRecorder.start(dir, "run-1")) {
 *     ExperimentRecorder replay = run.experiment("replay", "R5", "R6");
 *     Event e = replay.record(Source.here("harness"), new Payload.Note("records delivered again"));
 *     replay.check(Check.pass("no second effect", "R6", "1 effect per id", "1 effect per id"));
 *     replay.finish(Outcome.judge(replay.confirmFault("redelivery", e), replay.checks()));
 *     run.save().cleanup("delete topic", () -> { });
 * }
 * }</pre>
 */
public final class RunRecorder implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RunRecorder.class);

    private final Path runDir;
    private final String runId;
    private final Clock clock;
    private final LongSupplier nanoTime;
    private final Instant started;
    private final Journal journal;
    private final Map<String, ExperimentRecorder> experiments = new LinkedHashMap<>();
    private Instant ended;
    private SavedProtocol saved;

    private RunRecorder(Path runDir, String runId, Clock clock, LongSupplier nanoTime) {
        this.runDir = runDir;
        this.runId = runId;
        this.clock = clock;
        this.nanoTime = nanoTime;
        try {
            Files.createDirectories(runDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the run directory " + runDir, e);
        }
        if (Files.exists(runDir.resolve(Journal.FILE_NAME))) {
            throw new IllegalStateException("run directory " + runDir + " already holds a journal; use a new run id");
        }
        this.started = clock.instant();
        this.journal = new Journal(runDir.resolve(Journal.FILE_NAME));
        ProcessHandle self = ProcessHandle.current();
        journal.append(new JournalEntry.Run(runId, RunEvidence.SCHEMA_VERSION, started, self.pid(), self.info().startInstant().orElse(null)));
    }

    public static RunRecorder start(Path runDir, String runId) {
        return start(runDir, runId, Clock.systemUTC(), System::nanoTime);
    }

    /** With a fixed clock, for reproducible reports in tests. */
    public static RunRecorder start(Path runDir, String runId, Clock clock, LongSupplier nanoTime) {
        Objects.requireNonNull(runId, "runId");
        if (runId.isBlank() || runId.contains("/")) {
            throw new IllegalArgumentException("run id must be non-blank and contain no '/', was '" + runId + "'");
        }
        return new RunRecorder(Objects.requireNonNull(runDir, "runDir"), runId, clock, nanoTime);
    }

    /** Starts recording an experiment; {@code requirements} are the SPEC ids it exercises (R5, R6 …). */
    public synchronized ExperimentRecorder experiment(String name, String... requirements) {
        if (saved != null) {
            throw new IllegalStateException("run " + runId + " is already saved");
        }
        if (experiments.containsKey(name)) {
            throw new IllegalArgumentException("experiment '" + name + "' is already recorded in run " + runId);
        }
        ExperimentRecorder e = new ExperimentRecorder(this, name, List.of(requirements), clock.instant());
        experiments.put(name, e);
        journal.append(new JournalEntry.ExperimentStarted(name, List.of(requirements), e.started()));
        return e;
    }

    /**
     * Journals something the run has just created outside its directory, before anything can
     * kill the run with it unrecorded: if the run dies, {@link RunJournal} finds it there.
     */
    public void owns(Resource resource) {
        journal.append(new JournalEntry.Owns(clock.instant(), Objects.requireNonNull(resource, "resource")));
    }

    public Path runDir() {
        return runDir;
    }

    public String runId() {
        return runId;
    }

    /** The run as recorded so far (experiments not yet finished show as NOT_RUN). */
    public synchronized RunEvidence snapshot() {
        List<ExperimentEvidence> list = experiments.values().stream().map(ExperimentRecorder::toEvidence).toList();
        boolean complete = ended != null;
        return new RunEvidence(RunEvidence.SCHEMA_VERSION, runId, started, ended, complete, list,
                RunEvidence.outcomeOf(complete, list), List.of());
    }

    /**
     * Ends the run and writes the protocol: {@code evidence.json} (atomically), {@code report.md}
     * and {@code report.html}. Unfinished experiments are closed as NOT_RUN first. Idempotent.
     */
    public synchronized SavedProtocol save() {
        if (saved != null) {
            return saved;
        }
        for (ExperimentRecorder e : experiments.values()) {
            if (!e.finished()) {
                e.finish(Outcome.notRun("experiment ended without an outcome"));
            }
        }
        ended = clock.instant();
        journal.append(new JournalEntry.RunFinished(ended));
        RunEvidence run = snapshot();
        Path evidence = runDir.resolve(Evidence.EVIDENCE_FILE);
        Evidence.write(evidence, run);
        AtomicFiles.writeString(runDir.resolve("report.md"), Reports.markdown(run));
        AtomicFiles.writeString(runDir.resolve("report.html"), Reports.html(run));
        saved = new SavedProtocol(runDir, journal, clock, run, evidence);
        log.info("run {} saved: {} ({})", runId, run.outcome().status(), evidence);
        return saved;
    }

    /** Closes the journal. A run closed without {@link #save()} reads back as incomplete, NOT_RUN. */
    @Override
    public synchronized void close() {
        journal.close();
    }

    /** Not under this recorder's lock: an experiment appends under its own, and {@link #save()} takes them in the other order. */
    void append(JournalEntry entry) {
        journal.append(entry);
    }

    Instant now() {
        return clock.instant();
    }

    long nanos() {
        return nanoTime.getAsLong();
    }
}
