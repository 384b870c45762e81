package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunJournalTest {
    @TempDir
    Path dir;

    private static final Resource NAMESPACE = new Resource("kafka-namespace", "rl-ab12", Map.of("bootstrap", "127.0.0.1:9092", "cluster", "c1"));

    @Test
    void aRunWhoseProcessLivesIsRunningWithWhatItOwnsAndCannotBeCleanedUpByAnother() {
        try (RunRecorder run = RunRecorder.start(dir, "run-alive")) {
            run.owns(NAMESPACE);
            RunJournal j = RunJournal.read(dir);
            assertThat(j.state()).isEqualTo(RunJournal.State.RUNNING);
            assertThat(j.pid()).contains(ProcessHandle.current().pid());
            assertThat(j.resources()).containsExactly(NAMESPACE);
            assertThat(j.resources().get(0).at("cluster")).isEqualTo("c1");
            assertThatThrownBy(() -> j.cleanUp(p -> { })).isInstanceOf(IllegalStateException.class).hasMessageContaining("still running (pid ");
        }
    }

    @Test
    void aRunThatDiedBeforeSavingGetsItsProtocolSavedIncompleteThenItsCleanupJournaledAfterTheLineItWasCutIn() throws Exception {
        try (RunRecorder run = RunRecorder.start(dir, "run-died")) {
            run.owns(NAMESPACE);
            run.experiment("replay").begin();
        }
        Path journal = dir.resolve(Evidence.JOURNAL_FILE);
        Files.writeString(journal, "{\"kind\":\"event\",\"experi", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
        ownedBy(deadProcess());
        RunJournal dead = RunJournal.read(dir);
        assertThat(dead.state()).isEqualTo(RunJournal.State.DIED);
        assertThat(dead.saved()).isFalse();

        List<String> ran = new ArrayList<>();
        SavedProtocol p = dead.cleanUp(protocol -> protocol.cleanup("delete " + NAMESPACE.name(), () -> ran.add("deleted")));

        assertThat(ran).containsExactly("deleted");
        assertThat(p.evidence().complete()).isFalse();
        assertThat(p.evidence().outcome().status()).isEqualTo(Status.NOT_RUN);
        RunEvidence saved = Evidence.read(dir.resolve(Evidence.EVIDENCE_FILE));
        assertThat(saved.experiments()).extracting(ExperimentEvidence::name).containsExactly("replay");
        assertThat(saved.problems()).anyMatch(s -> s.contains("cut short"));
        assertThat(dir.resolve("report.md")).exists();
        assertThat(dir.resolve("report.html")).exists();
        assertThat(Files.readAllLines(journal)).anyMatch(l -> l.startsWith("{\"kind\":\"cleanup\"") && l.contains("delete rl-ab12"))
                .anyMatch(l -> l.startsWith("{\"kind\":\"cleanup-done\""));
        RunJournal after = RunJournal.read(dir);
        assertThat(after.state()).isEqualTo(RunJournal.State.CLEANED);
        assertThat(after.runId()).isEqualTo("run-died");
        assertThat(after.runDir()).isEqualTo(dir);
        assertThat(after.started()).isPresent();
        assertThat(after.toString()).isEqualTo("run-died (CLEANED)");
        assertThat(RunJournal.isRunDir(dir)).isTrue();
        assertThat(RunJournal.isRunDir(dir.resolve("logs"))).isFalse();
        List<String> lines = Files.readAllLines(journal);
        assertThat(lines).as("the cut line stays as it was; the cleanup's lines each on their own, none blank").doesNotContain("")
                .anyMatch(l -> l.equals("{\"kind\":\"event\",\"experi"));
        assertThat(after.cleanupSteps()).containsExactly("delete rl-ab12: done");
    }

    @Test
    void aRunThatDiedDuringItsCleanupAndOneWhoseCleanupFailedAreToldApartFromOneThatCleanedUp() throws Exception {
        Path died = dir.resolve("died-in-cleanup");
        Path failed = dir.resolve("failed");
        Path cleaned = dir.resolve("cleaned");
        try (RunRecorder run = RunRecorder.start(died, "a")) {
            run.save().cleanup("stop processes", () -> { });
        }
        try (RunRecorder run = RunRecorder.start(failed, "b")) {
            SavedProtocol p = run.save();
            assertThatThrownBy(() -> p.cleanup("delete topics", () -> {
                throw new IllegalStateException("broker gone");
            })).hasMessage("broker gone");
            p.cleanupDone();
        }
        try (RunRecorder run = RunRecorder.start(cleaned, "c")) {
            run.save().cleanupDone();
        }
        long dead = deadProcess();
        for (Path d : List.of(died, failed, cleaned)) {
            ownedBy(d, dead);
        }
        assertThat(RunJournal.read(died).state()).isEqualTo(RunJournal.State.DIED_IN_CLEANUP);
        assertThat(RunJournal.read(died).saved()).isTrue();
        long linesBefore = Files.readAllLines(died.resolve(Evidence.JOURNAL_FILE)).size();
        RunJournal.read(died).cleanUp(p -> { });
        assertThat(Files.readAllLines(died.resolve(Evidence.JOURNAL_FILE))).as("a journal that ended its last line gets no blank one")
                .hasSize((int) linesBefore + 1).doesNotContain("");
        assertThat(RunJournal.read(failed).state()).isEqualTo(RunJournal.State.CLEANUP_FAILED);
        assertThat(RunJournal.read(failed).failedSteps()).containsExactly("delete topics: failed: broker gone");
        assertThat(RunJournal.read(cleaned).state()).isEqualTo(RunJournal.State.CLEANED);
    }

    @Test
    void aLivePidThatStartedAfterTheRunIsAReusedPidNotTheRunsProcess() throws Exception {
        try (RunRecorder run = RunRecorder.start(dir, "run-reused")) {
            run.save();
        }
        rewriteRunLine(dir, ProcessHandle.current().pid(), ProcessHandle.current().info().startInstant().orElseThrow().minusSeconds(3600));
        assertThat(RunJournal.read(dir).state()).isEqualTo(RunJournal.State.DIED_IN_CLEANUP);
    }

    @Test
    void aJournalThatNamesNoOwnerIsNeverCleanedUp() throws Exception {
        try (RunRecorder run = RunRecorder.start(dir, "run-old")) {
            run.save();
        }
        rewriteRunLine(dir, null, null);
        RunJournal old = RunJournal.read(dir);
        assertThat(old.state()).isEqualTo(RunJournal.State.OWNER_UNKNOWN);
        assertThatThrownBy(() -> old.cleanUp(p -> { })).hasMessageContaining("names no owner process");
    }

    /** A process that has ended: its pid and start time, as a killed run's journal would hold them. */
    private static long[] deadProcessStart;

    private long deadProcess() throws Exception {
        Process p = new ProcessBuilder("true").start();
        Instant start = p.toHandle().info().startInstant().orElse(Instant.now());
        p.waitFor();
        deadProcessStart = new long[] {p.pid(), start.toEpochMilli()};
        return p.pid();
    }

    private void ownedBy(long pid) throws Exception {
        ownedBy(dir, pid);
    }

    private void ownedBy(Path runDir, long pid) throws Exception {
        rewriteRunLine(runDir, pid, Instant.ofEpochMilli(deadProcessStart[1]));
    }

    private static void rewriteRunLine(Path runDir, Long pid, Instant started) throws Exception {
        Path journal = runDir.resolve(Evidence.JOURNAL_FILE);
        String text = Files.readString(journal);
        int nl = text.indexOf('\n');
        ObjectNode first = (ObjectNode) Json.mapper().readTree(text.substring(0, nl));
        if (pid == null) {
            first.remove("pid");
            first.remove("processStarted");
        } else {
            first.put("pid", pid);
            first.put("processStarted", started.toString());
        }
        Files.writeString(journal, Json.mapper().writeValueAsString(first) + text.substring(nl));
    }
}
