package io.replaylab.harness.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import io.replaylab.evidence.Event;
import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.SavedProtocol;
import io.replaylab.evidence.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lab's own events are typed kinds: written to evidence.json and read back as themselves, each saying itself as its note did. */
class LabEventTest {
    @TempDir
    Path dir;

    @Test
    void everyKindIsWrittenAndReadBackTypedAndSaysItselfInTheNotesWords() throws Exception {
        List<LabEvent> kinds = List.of(
                new LabEvent.Frozen("A", 41, "before-db-commit", "a native debugger (gdb) breakpoint at the SQLite commit", "through the debugger",
                        ": all 3 of its threads stopped, /proc/41/task/*/stat shows state t for each"),
                new LabEvent.Exited("A", 41, 1, "the subject A (pid 41) exited on its own with code 1", "{0=5, 1=none}"),
                new LabEvent.Restarted("A", 42, 1, 1, 5),
                new LabEvent.FaultFired("offset-commit:lost-answer", "fired at OffsetCommit v9 (matching request #1, connection 3): dropped"),
                new LabEvent.ClientDid("reconnected", "", List.of("opened connection 4")),
                new LabEvent.HandoffWait("66 s", "A's session timeout is 6 s"),
                new LabEvent.DebuggerAttached("A", 43, 41, "/lib/libsqlite3.so.0", 12),
                new LabEvent.DbTransaction("A", 3, "FAILED", "40001", List.of("BEGIN", "INSERT INTO pg_inbox VALUES ('n', 'id-7')", "COMMIT")),
                new LabEvent.HeartbeatsWithheld(15),
                new LabEvent.Rejoined("rebalance-A", "m-2", "rebalance-A"),
                new LabEvent.SourceCopied("x.produced", "x.source", 60, 9, "x", "key", "key=id"),
                new LabEvent.SourceStaged("x.source", true, ", 40 record(s) in two halves: the second once A is held"),
                new LabEvent.DrainPatience("recovery", "x.group", "41 s", "its poll interval and session timeout: 11 s, plus 30 s"),
                new LabEvent.DoneShort("x.group", "every record delivered to it from where the replay began", "{0=14 of 15}", "2 s"),
                new LabEvent.HeldForATimer("10 s", "its first offset commit came 7.5 s after its start", "8 s"),
                new LabEvent.ReleasedUnkilled("10 s"));
        assertThat(kinds.stream().map(Object::getClass).distinct()).as("one of each kind").hasSameSizeAs(new LabEvent.Types().types());

        SavedProtocol saved;
        try (RunRecorder run = RunRecorder.start(dir, "run-lab-events")) {
            ExperimentRecorder e = run.experiment("events", "R8");
            Event first = null;
            for (LabEvent k : kinds) {
                Event ev = e.record(Source.here("harness"), k);
                first = first == null ? ev : first;
            }
            e.finish(Outcome.notRun("a test of the kinds"));
            saved = run.save();
        }
        List<Payload> read = Evidence.read(saved.evidenceFile()).experiments().get(0).events().stream().map(Event::payload).toList();
        assertThat(read).containsExactlyElementsOf(kinds);
        assertThat(kinds.get(0).summary()).isEqualTo("A (pid 41) frozen through the debugger at before-db-commit (held there by a native debugger (gdb) "
                + "breakpoint at the SQLite commit): all 3 of its threads stopped, /proc/41/task/*/stat shows state t for each");
        assertThat(kinds.get(2).summary()).isEqualTo("A restarted as pid 42 after a back-off of 1 s (restart 1 of at most 5), as a supervisor restarts "
                + "a process that exits");
        assertThat(kinds.get(6).summary()).isEqualTo("gdb attached to A (pid 43: a descendant of the subject's pid 41); the point is in "
                + "/lib/libsqlite3.so.0; it stood still for 12 ms while gdb attached");
        assertThat(kinds.get(7).summary()).isEqualTo("A's transaction on PostgreSQL session 3 failed (SQLSTATE 40001): INSERT INTO pg_inbox VALUES "
                + "('n', 'id-7')");
        assertThat(kinds.get(8).summary()).isEqualTo("15 heartbeat(s) of A's member withheld on the wire (answered by the proxy as a live member's), so "
                + "that the coordinator dropped A after its session timeout; A's heartbeats reach it again from now on");
        assertThat(new LabEvent.HeartbeatsWithheld(0).summary()).startsWith("no heartbeat of A's member came through to withhold");
        assertThat(kinds.get(9).summary()).isEqualTo("rebalance-A joined again as a new member m-2 (client.id rebalance-A): it is A, not B; the handoff "
                + "waits for another member");
        assertThat(kinds.get(10).summary()).isEqualTo("the producer's 60 record(s) in x.produced copied into x.source in committed transactions, with 9 "
                + "record(s) of aborted transactions between them: copies of its records under fresh ids (x-aborted-<n>, written at key)");
        assertThat(new LabEvent.SourceCopied("x.produced", "x.source", 60, 0, "x", "key", "key=id").summary()).endsWith("with no aborted transaction "
                + "between them: none of its records takes a fresh id at key (each must read with key=id)");
        assertThat(kinds.get(11).summary()).isEqualTo("the source set goes to x.source unchanged, in committed transactions with aborted ones (copies "
                + "under fresh ids) between them, 40 record(s) in two halves: the second once A is held");
        assertThat(new LabEvent.SourceStaged("x.source", false, " in two steps").summary()).isEqualTo("the source set goes to x.source unchanged in two steps");
        assertThat(kinds.subList(12, 16)).extracting(LabEvent::summary).containsExactly(
                "the recovery of x.group waits while it progresses; 41 s without progress (no new commit, effect, join or restart) is a stall, "
                        + "FAIL: its poll interval and session timeout: 11 s, plus 30 s",
                "x.group: every record delivered to it from where the replay began, its committed offsets then still at {0=14 of 15} for 2 s: "
                        + "done short of the end",
                "A held at its DB commit for up to 10 s while the check watches its commits (its first offset commit came 7.5 s after its start; "
                        + "at least 8 s)",
                "A released after 10 s at its DB commit: no commit of A's covered the held record meanwhile; it goes on, its commits still "
                        + "checked and killed at if ahead, until its group drained");
        assertThat(saved.reportMarkdown()).content().contains("| frozen | A (pid 41) frozen through the debugger").contains("| handoff-wait | ")
                .doesNotContain("unregistered");
    }
}
