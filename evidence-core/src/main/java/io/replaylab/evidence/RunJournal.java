package io.replaylab.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A run's journal read back by someone other than the run: which process wrote it, whether that
 * process still lives (its pid AND its start time, since pids are reused), what the run
 * {@linkplain RunRecorder#owns owns} outside its directory, and how far its cleanup got. For a run
 * that died, {@link #cleanUp} saves what is left of its protocol first and journals each step after.
 *
 * <pre>{@code
 * RunJournal dead = RunJournal.read(runDir);
 * if (dead.state() == RunJournal.State.DIED) {
 *     dead.cleanUp(p -> dead.resources().forEach(r -> p.cleanup("delete " + r.name(), () -> delete(r))));
 * }
 * }</pre>
 */
public final class RunJournal {
    /** How far a run got, as its journal and the process table tell it. */
    public enum State {
        /** Its process is still alive: nothing of it may be touched. */
        RUNNING,
        /** Its process is gone before its protocol was saved. */
        DIED,
        /** Its protocol is saved, but its process is gone before its cleanup ended. */
        DIED_IN_CLEANUP,
        /** Its cleanup ended, with steps that failed. */
        CLEANUP_FAILED,
        /** Its cleanup ended and every step was done. */
        CLEANED,
        /** The journal names no owner process (written before replay-lab recorded one, or its first line is lost). */
        OWNER_UNKNOWN
    }

    /** Start times read at different moments may differ by the clock tick of the process table. */
    private static final Duration SAME_START = Duration.ofSeconds(1);

    private final Path runDir;
    private final String runId;
    private final Long pid;
    private final Instant processStarted;
    private final Instant started;
    private final boolean saved;
    private final List<Resource> resources;
    private final List<String> cleanupSteps;
    private final List<String> failedSteps;
    private final boolean cleanupDone;

    private RunJournal(Path runDir, String runId, Long pid, Instant processStarted, Instant started, boolean saved, List<Resource> resources,
            List<String> cleanupSteps, List<String> failedSteps, boolean cleanupDone) {
        this.runDir = runDir;
        this.runId = runId;
        this.pid = pid;
        this.processStarted = processStarted;
        this.started = started;
        this.saved = saved;
        this.resources = List.copyOf(resources);
        this.cleanupSteps = List.copyOf(cleanupSteps);
        this.failedSteps = List.copyOf(failedSteps);
        this.cleanupDone = cleanupDone;
    }

    /** Whether {@code dir} holds a run's journal. */
    public static boolean isRunDir(Path dir) {
        return Files.isRegularFile(dir.resolve(Journal.FILE_NAME));
    }

    /** Reads the run-level lines of {@code runDir}'s journal; lines it cannot read are skipped (the protocol names them). */
    public static RunJournal read(Path runDir) {
        Path file = runDir.resolve(Journal.FILE_NAME);
        String runId = runDir.getFileName().toString();
        Long pid = null;
        Instant processStarted = null;
        Instant started = null;
        boolean saved = false;
        boolean done = false;
        List<Resource> resources = new ArrayList<>();
        List<String> steps = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (JournalLines.Line line : JournalLines.read(file).entries()) { // the good lines: the protocol names the others
            JournalEntry e = line.entry();
            if (e instanceof JournalEntry.Run r) {
                runId = r.runId();
                pid = r.pid();
                processStarted = r.processStarted();
                started = r.time();
            } else if (e instanceof JournalEntry.Owns o) {
                resources.add(o.resource());
            } else if (e instanceof JournalEntry.RunFinished) {
                saved = true;
            } else if (e instanceof JournalEntry.Cleanup c) {
                steps.add(c.key() + ": " + c.value());
            } else if (e instanceof JournalEntry.CleanupDone d) {
                done = true;
                failed = new ArrayList<>(d.failed() == null ? List.of() : d.failed());
            }
        }
        return new RunJournal(runDir, runId, pid, processStarted, started, saved, resources, steps, failed, done);
    }

    public Path runDir() {
        return runDir;
    }

    public String runId() {
        return runId;
    }

    /** When the run began, if its first line says. */
    public Optional<Instant> started() {
        return Optional.ofNullable(started);
    }

    /** The pid of the process that wrote the journal, if recorded. */
    public Optional<Long> pid() {
        return Optional.ofNullable(pid);
    }

    /** What the run created outside its directory, in the order it did. */
    public List<Resource> resources() {
        return resources;
    }

    /** The cleanup steps journaled so far, each with how it went. */
    public List<String> cleanupSteps() {
        return cleanupSteps;
    }

    /** The steps a finished cleanup names as failed. */
    public List<String> failedSteps() {
        return failedSteps;
    }

    /** Whether the run's protocol was saved ({@code evidence.json} written by the run itself). */
    public boolean saved() {
        return saved;
    }

    /** Reads the process table now. */
    public State state() {
        if (pid == null) {
            return State.OWNER_UNKNOWN;
        }
        if (ownerAlive()) {
            return State.RUNNING;
        }
        if (cleanupDone) {
            return failedSteps.isEmpty() ? State.CLEANED : State.CLEANUP_FAILED;
        }
        return saved ? State.DIED_IN_CLEANUP : State.DIED;
    }

    /** The journal's owner is alive: a live process with its pid that started when it did (a reused pid started later). */
    private boolean ownerAlive() {
        Optional<ProcessHandle> h = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (h.isEmpty()) {
            return false;
        }
        Optional<Instant> start = h.get().info().startInstant();
        if (start.isEmpty() || processStarted == null) {
            return true; // the start time cannot be compared: a live pid is taken as the owner, never touched
        }
        return Duration.between(processStarted, start.get()).abs().compareTo(SAME_START) <= 0;
    }

    /**
     * Cleans up after the run's dead process: saves what is left of its protocol (when the run
     * never did, {@code evidence.json} and the reports from the journal, incomplete and never a
     * PASS), runs {@code steps} through a {@link SavedProtocol} that journals each, and then
     * journals that the cleanup ended.
     *
     * @throws IllegalStateException if the run's process is still alive, or its owner is unknown
     */
    public SavedProtocol cleanUp(Consumer<SavedProtocol> steps) {
        State now = state();
        if (now == State.RUNNING) {
            throw new IllegalStateException("run " + runId + " is still running (pid " + pid + ")");
        }
        if (now == State.OWNER_UNKNOWN) {
            throw new IllegalStateException("run " + runId + "'s journal names no owner process: it cannot be told dead");
        }
        Path journalFile = runDir.resolve(Journal.FILE_NAME);
        Path evidenceFile = runDir.resolve(Evidence.EVIDENCE_FILE);
        RunEvidence evidence;
        if (Files.isRegularFile(evidenceFile)) {
            evidence = Evidence.read(evidenceFile);
        } else {
            evidence = JournalReader.read(journalFile);
            Evidence.write(evidenceFile, evidence);
            AtomicFiles.writeString(runDir.resolve("report.md"), Reports.markdown(evidence));
            AtomicFiles.writeString(runDir.resolve("report.html"), Reports.html(evidence));
        }
        endCutLine(journalFile);
        Journal journal = new Journal(journalFile);
        try {
            SavedProtocol protocol = new SavedProtocol(runDir, journal, Clock.systemUTC(), evidence, evidenceFile);
            steps.accept(protocol);
            protocol.cleanupDone();
            return protocol;
        } finally {
            journal.close();
        }
    }

    /** A line the dead run was writing when it died stays as it is; the cleanup's lines start on a line of their own. */
    private static void endCutLine(Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size();
            if (size == 0) {
                return;
            }
            ByteBuffer last = ByteBuffer.allocate(1);
            ch.read(last, size - 1);
            if (last.get(0) != '\n') {
                ch.write(ByteBuffer.wrap(new byte[] {'\n'}), size);
                ch.force(false);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the journal " + file, e);
        }
    }

    @Override
    public String toString() {
        return runId + " (" + state() + ")";
    }
}
