package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.failed;
import static io.replaylab.harness.experiment.Runs.run;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import io.replaylab.barrier.BarrierEvent;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Status;
import io.replaylab.evidence.process.Platform;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.RecordSource;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Java consumers the lab was not written around ({@link ForeignSubjectMain}: its own schema, the client's defaults, commitAsync,
 * commitSync() of its positions, a client that gives a commit up, one that dies, hangs or stops reading), each judged by what it
 * does. Apart from {@link LabTest} so that these mostly waiting runs start early in the suite's reverse alphabetical order.
 */
@LocalKafkaTest
// two at a time (the module's surefire settings): mostly waits out its consumers' own timeouts (a stall, a give-up, a session)
@Execution(ExecutionMode.CONCURRENT)
class UnseenConsumerTest {
    @TempDir
    Path dir;

    /**
     * A client that gives its held commit up (its own 3 s timeout) sends no stale commit: the lab holds it again, frozen at its
     * commit, and the broker refuses the commit it sends once the partition moved. On a machine that cannot freeze, NOT_RUN saying so.
     */
    @Test
    void aCommitTheSubjectGaveUpWhileHeldOnTheWireIsHeldAgainWithTheSubjectFrozenAndNeverPassesUnheld(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(foreign(kafka, ForeignSubjectMain.template("gives-up")).experiments(Experiments.rebalance())
                .barrier(BarrierKind.WIRE).build(), null);

        ExperimentEvidence frozen = experiment(r.evidence(), "rebalance");
        passed(frozen);
        assertThat(frozen.environment().get("barrier")).startsWith("wire, A frozen at the hold (fallback: A's client gave up its commit held on "
                + "the wire, its own request timeout; wire (asked for) before)");
        assertThat(frozen.environment().get("hold mode")).isEqualTo("connection, with A frozen (SIGSTOP) from the hold until its commit is answered");
        assertThat(frozen.events()).extracting(e -> e.payload().summary())
                .anyMatch(t -> t.startsWith("A's client gave up its held commit before the partition moved: the client closed the connection"))
                .anyMatch(t -> t.matches("rebalance-A \\(pid \\d+\\) frozen with SIGSTOP at offset-commit .*"));
        assertThat(Runs.check(frozen, "stale commit rejected").actual()).startsWith("rejected by the broker");

        Lab.LabResult unfrozen = Lab.run(foreign(kafka, ForeignSubjectMain.template("gives-up")).experiments(Experiments.rebalance())
                .barrier(BarrierKind.WIRE).platform(Platform.jdkOnly("Windows 11")).build(), null);
        ExperimentEvidence x = experiment(unfrozen.evidence(), "rebalance");
        wasNotRun(x).contains("never reached the broker").contains("closed the connection")
                .containsPattern("[0-9.]+ s into the hold, before the release")
                .contains("; A could not be held whole (frozen) instead: not available on Windows 11 (simulated on ")
                .endsWith("): no /proc, no setsid, no POSIX signals, no /bin/sh: holding A whole on the wire freezes it (SIGSTOP), which needs "
                        + "POSIX signals and /proc");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("stale commit rejected")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.NOT_RUN));
        assertThat(x.events()).extracting(e -> e.type()).contains("commit-not-delivered").doesNotContain("commit-rejected", "commit-accepted");
    }

    /**
     * A source with aborted transactions between committed ones: the Java client's default isolation level (read_uncommitted)
     * applies the aborted records, a FAIL naming them and the setting; the reference (read_committed) passes the same source.
     */
    @Test
    void aJavaConsumerWithTheClientsDefaultIsolationAppliesAbortedRecordsAndFailsNamingThem(LocalKafka kafka) throws Exception {
        RecordSource aborted = RecordSource.reference().withAbortedTransactions();
        Lab.LabResult defaults = Lab.run(foreign(kafka, ForeignSubjectMain.template("async-batch")).source(aborted).experiments(Experiments.replay())
                .build(), null);
        Lab.LabResult reference = Lab.run(on(kafka, dir).source(aborted).experiments(Experiments.replay()).build(), null);

        ExperimentEvidence x = experiment(defaults.evidence(), "replay");
        failed(x).contains("no effect of an aborted record (R12)");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no effect of an aborted record")).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.FAIL);
            assertThat(c.actual()).matches("[1-9][0-9]* applied, e\\.g\\. \\[\\S+-aborted-[0-9]+.*\\]: the consumer applies records of transactions "
                    + "their producer aborted: it reads uncommitted \\(isolation\\.level=read_uncommitted, the Java client's default\\), or its "
                    + "client keeps the records a read_committed fetch's answer lists as aborted");
        });
        ExperimentEvidence ok = experiment(reference.evidence(), "replay");
        passed(ok);
        assertThat(ok.checks()).filteredOn(c -> c.name().equals("no effect of an aborted record")).singleElement()
                .satisfies(c -> assertThat(c.expected()).matches("no effect of the [1-9][0-9]* record\\(s\\) of aborted transactions"));
    }

    /**
     * A consumer that dies on every redelivered message (its insert raises on the duplicate key): the lab restarts it as a
     * supervisor would, and after three exits in a row with its group's offsets standing still the replay FAILs naming the record.
     */
    @Test
    void aConsumerThatDiesOnEveryRedeliveryIsRestartedThenFailsNamingTheRecordItNeverGetsPast(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(foreign(kafka, ForeignSubjectMain.template("dies-on-redelivery")).experiments(Experiments.replay()), "replay");
        failed(x).matches("replay-A2 crashes on every delivery of \\S+ \\(\\S+-[0-9]@0\\).*: it exited 3 times in a row \\(last with "
                + "code 1\\) while its group's committed offsets stayed at \\{0=0, 1=0, 2=0\\}, restarted each time: the partition is stuck; "
                + "last lines of logs/replay-A2\\.err: .*");
        assertThat(x.events()).extracting(ev -> ev.payload()).filteredOn(p -> p instanceof LabEvent.Restarted n && n.instance().equals("replay-A2"))
                .hasSize(2);
    }

    /** One exit, then it recovers: the supervisor's restart is a finding in the evidence, and the verdict is on what it reached. */
    @Test
    void aConsumerThatDiesOnceAndRecoversIsJudgedOnWhatItReached(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(foreign(kafka, ForeignSubjectMain.template("dies-once")).experiments(Experiments.replay()), "replay");
        passed(x);
        assertThat(x.events()).extracting(ev -> ev.payload()).filteredOn(p -> p instanceof LabEvent.Exited n && n.exit() == 1
                && n.summary().startsWith("exit 1: the subject replay-A2 (pid ") && n.why().contains("exited on its own with code 1")
                && n.why().contains("dying at the redelivered")).hasSize(1);
        assertThat(x.events()).extracting(ev -> ev.payload()).filteredOn(p -> p instanceof LabEvent.Restarted n && n.instance().equals("replay-A2")
                && n.restart() == 1).hasSize(1);
    }

    /**
     * Alive but stuck in a database call that never returns: once its own timeouts (read on the wire) say it had its chance,
     * with no new commit and no new effect, the stall is the consumer's, named with what it left undone.
     */
    @Test
    void aConsumerThatHangsMidwayFailsOnceItsOwnTimeoutsSayItHadItsChance(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(foreign(kafka, ForeignSubjectMain.template("hangs")).experiments(Experiments.replay()), "replay");
        failed(x).matches("\\S+ stalled during first pass: [0-9]+ effect\\(s\\) missing \\(.+\\), its committed offsets stood at "
                + "\\{.*\\} with no progress for 41 s, longer than its poll interval and session timeout \\(classic protocol, session.timeout.ms 6000, "
                + "max.poll.interval.ms 5000 .*\\): 11 s, plus 30 s for a restart and a rejoin allow: a live consumer would have gone on, or been replaced");
        assertThat(x.environment()).doesNotContainKey("exits of replay-A");
    }

    /**
     * Stuck in its first record's database call, it never reaches a point or a warm-up: each was NOT_RUN at the barrier timeout
     * ("A did not reach KafkaConsumer#commitSync within PT1M"), and rebuild's generation 1 NOT_RUN for want of an offset commit.
     * Its progress is watched while the lab waits for it, and once its own timeouts say it had its chance, each FAILs naming what
     * it left undone: past the barrier timeout (20 s here), which ends the wait only for a consumer that goes on working.
     */
    @Test
    void aConsumerThatHangsAtItsFirstRecordFailsAtEveryPointOnceItsOwnTimeoutsSayItHadItsChance(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir).subject(Subject.command(ForeignSubjectMain.template("hangs")).env("HANGS_AT", "1"))
                .targetQuery(ForeignSubjectMain.TARGET_QUERY).barrierTimeout(java.time.Duration.ofSeconds(20)).experiments(Experiments.rebalance(),
                        Experiments.rebuild(), Experiments.schedules(List.of(ScheduleCell.parse("before-db-commit:hold"),
                                ScheduleCell.parse("before-offset-commit:crash")))).build(), null);

        String judged = " with no progress for 41 s, longer than its poll interval and session timeout (classic protocol, session.timeout.ms "
                + "6000, max.poll.interval.ms 5000 ";
        failed(experiment(r.evidence(), "rebalance")).matches("\\S+ stalled before reaching offset-commit: 60 effect\\(s\\) missing .*")
                .contains("its committed offsets stood at {").contains(judged);
        failed(experiment(r.evidence(), "rebuild")).matches("\\S+\\.g1 stalled during generation 1: 60 effect\\(s\\) missing .*").contains(judged);
        failed(experiment(r.evidence(), "schedules.before-db-commit.hold")).contains(" stalled before reaching its first offset commit (the warm-up): ")
                .contains(judged);
        failed(experiment(r.evidence(), "schedules.before-offset-commit.crash")).contains(" stalled before reaching before-offset-commit: ")
                .contains(judged);
    }

    /**
     * Its effects all in the target from the first pass, a consumer that stops reading the replay hangs: once its own
     * timeouts (read on the wire) say it had its chance, the replay FAILs, saying where its offsets stood.
     */
    @Test
    void aConsumerThatStopsReadingTheReplayFailsOnceItsOwnTimeoutsSayItHadItsChance(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(on(kafka, dir).experiments(Experiments.replay()).subject(Subject.command(
                io.replaylab.harness.subject.BrokenSubjectMain.template("stall-on-replay"))).stopGrace(java.time.Duration.ofSeconds(3)), "replay");
        failed(x).matches("\\S+ stalled during replay: records left unread past its committed offsets, its committed offsets "
                + "stood at \\{.*\\} with no progress for 41 s, longer than its poll interval and session timeout \\(classic protocol, "
                + "session.timeout.ms 6000, max.poll.interval.ms 5000 .*");
    }

    @Test
    void anotherConsumerWithItsOwnSchemaRunsThroughSubjectCmdAndTargetQuery(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(foreign(kafka, ForeignSubjectMain.template()).experiments(Experiments.replay(), Experiments.rebalance()).build(), null);

        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("replay", "rebalance");
        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason())
                .isEqualTo(Status.PASS));
        assertThat(experiment(r.evidence(), "replay").checks()).filteredOn(c -> c.name().equals("records delivered again")).singleElement()
                .satisfies(c -> assertThat(c.actual()).as("no processing log: the wire says it read the topic again")
                        .contains("records delivered again from the reset offsets on the wire"));
    }

    /**
     * A consumer that commits each record's own offset, not the next one to read (a common slip): its effects are right, and each
     * restart redelivers its last record, which its inbox takes once. Its replay and re-send are read on the wire, every record
     * delivered and its offsets then still, one short of the end (each was a stall, FAIL); rebalance holds its second commit, as
     * its first, of offset 0, covers no record (NOT_RUN on it before).
     */
    @Test
    void aConsumerThatCommitsEachRecordsOwnOffsetIsJudgedByWhatItReadAndApplied(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir).subject(Subject.command(ForeignSubjectMain.template()).env("OWN_OFFSET", "1"))
                .targetQuery(ForeignSubjectMain.TARGET_QUERY).experiments(Experiments.replay(), Experiments.rebalance(),
                        Experiments.duplicatePublish()).build(), null);

        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason())
                .isEqualTo(Status.PASS));
        for (String drained : List.of("replay", "duplicate-publish")) {
            assertThat(experiment(r.evidence(), drained).events()).extracting(e -> e.payload().summary()).as(drained)
                    .anyMatch(t -> t.matches(".*: every record delivered to it from where the (replay|re-send) began \\(the broker's Fetch answers "
                            + "on the wire\\), its committed offsets then still at \\{0=\\d+ of \\d+.*: done short of the end"));
        }
        assertThat(experiment(r.evidence(), "rebalance").environment().get("barrier")).isEqualTo("debugger (the subject is a JVM)");
        assertThat(Runs.check(experiment(r.evidence(), "rebalance"), "held after the DB commit, before the offset commit").actual())
                .as("the debugger let the commit of offset 0 pass: the held one covers a record").matches(".* committed \\d+ < [1-9]\\d*");
    }

    /**
     * Kafka's standalone consumer assigns itself every partition and never joins its group: no rebalance can move a partition of
     * its to B, so rebalance and a schedule cell are NOT_RUN saying so (rebalance FAILed "no handoff: … stayed with A for PT2M",
     * a partition A never owned through the group), and the heartbeat cell at its first commit; its replay, which needs no group
     * membership, is judged and PASSes.
     */
    @Test
    void aConsumerThatAssignsItsOwnPartitionsIsNotRunWhereARebalanceMustMoveOneAndJudgedWhereNot(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir).subject(Subject.command(ForeignSubjectMain.template()).env("ASSIGNS", "1"))
                .targetQuery(ForeignSubjectMain.TARGET_QUERY).experiments(Experiments.replay(), Experiments.rebalance(),
                        Experiments.schedules(List.of(ScheduleCell.parse("before-offset-commit:hold"), ScheduleCell.parse("before-offset-commit:crash"))),
                        Experiments.wireFaults(List.of(WireFaultCell.parse("heartbeat:error=REBALANCE_IN_PROGRESS")))).build(), null);

        passed(experiment(r.evidence(), "replay"));
        // at once, not after the barrier timeout ("A did not join group … within PT1M")
        wasNotRun(experiment(r.evidence(), "wire-faults.heartbeat.error-REBALANCE_IN_PROGRESS")).matches("the fault cannot fire: A fetched \\S+ "
                + "from \\{[0-9=, ]+\\} without joining group \\S+: it assigns its partitions itself \\(assign, not subscribe: Kafka's standalone "
                + "consumer\\), and sends no Heartbeat");
        String standalone = " (no JoinGroup or ConsumerGroupHeartbeat of it on the wire, no member in its description) though it consumes and "
                + "commits under it: it assigns its partitions itself (assign, not subscribe: Kafka's standalone consumer), so no rebalance can "
                + "move a partition of A's to B; this experiment needs a consumer that subscribes";
        wasNotRun(experiment(r.evidence(), "rebalance")).startsWith("A never joined group ").endsWith(standalone);
        wasNotRun(experiment(r.evidence(), "schedules.before-offset-commit.hold")).startsWith("A never joined group ").endsWith(standalone);
        // a crash needs no B: A's restart alone takes its records over from the committed offsets, and the cell is judged
        ExperimentEvidence crash = experiment(r.evidence(), "schedules.before-offset-commit.crash");
        passed(crash).matches("crash at before-offset-commit \\(event \\d+\\), then A restarted alone");
        assertThat(crash.events()).extracting(ev -> ev.payload()).filteredOn(p -> p instanceof Payload.ProcessStarted s
                && s.instance().equals("before-offset-commit.crash-A")).as("A, then its restart; no B").hasSize(2);
        assertThat(crash.events()).extracting(ev -> ev.payload()).noneMatch(p -> p instanceof Payload.ProcessStarted s
                && s.instance().equals("before-offset-commit.crash-B"));
    }

    /**
     * The same consumer in a run without the wire witness: no member at A's point, and nothing to say whether A never joined or
     * was dropped; rebalance is NOT_RUN at the point saying both (it FAILed "no handoff" after two minutes).
     */
    @Test
    void withoutTheWitnessAConsumerThatIsNoMemberAtItsPointIsNotRunNamingBothCauses(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(on(kafka, dir).subject(Subject.command(ForeignSubjectMain.template()).env("ASSIGNS", "1")).witness(false)
                .targetQuery(ForeignSubjectMain.TARGET_QUERY).experiments(Experiments.rebalance()), "rebalance");

        wasNotRun(x).startsWith("A is no member of group ").contains("either it assigns its partitions itself (assign, not subscribe: Kafka's "
                + "standalone consumer) or the group dropped it before its point, and this run has no wire witness to tell which");
    }

    /**
     * A correct Java consumer with the client's default timeouts that commits each batch with commitAsync never reaches
     * KafkaConsumer#commitSync, where the debugger holds a JVM's offset commit: its group's first committed offset says so, and
     * the wire, which holds every OffsetCommit, takes over on a new group (each was NOT_RUN after the barrier timeout). The
     * offset-commit cells PASS there. Rebalance holds A's commit until the handoff, its session timeout (45 s), longer than the
     * request timeout (30 s) after which the client gives the held commit up and never sends it again: held again with A frozen,
     * its stale commit is refused. Its DB point is held at its statement: its inserts commit themselves, and it never calls the
     * JDBC commit.
     */
    @Test
    void aJavaAsyncCommitterIsHeldOnTheWireOnceItsFirstCommittedOffsetShowsItCommitsPastTheDebugger(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(foreign(kafka, ForeignSubjectMain.template("async-batch")).experiments(Experiments.rebalance(),
                Experiments.schedules(List.of(ScheduleCell.parse("before-offset-commit:hold"), ScheduleCell.parse("after-offset-commit:crash"),
                        ScheduleCell.parse("before-db-commit:hold"))), Experiments.commitAhead()).barrierTimeout(java.time.Duration.ofSeconds(20))
                .build(), null);

        for (String name : List.of("rebalance", "schedules.before-offset-commit.hold", "schedules.after-offset-commit.crash")) {
            ExperimentEvidence x = experiment(r.evidence(), name);
            assertThat(x.environment().get("barrier")).as(name).contains("wire (fallback: A commits its offsets without KafkaConsumer#commitSync");
            assertThat(x.limitations()).as(name).anyMatch(l -> l.startsWith("A commits its offsets without KafkaConsumer#commitSync, so the "
                    + "wire barrier replaced the debugger: the limitation about commitSync holds for that first try only. "));
            assertThat(x.events()).extracting(ev -> ev.payload().summary()).as(name).anyMatch(t -> t.matches("A committed offsets of group "
                    + "\\S+ \\(\\S+-\\d=\\d+.*\\) without reaching KafkaConsumer#commitSync: it commits another way \\(commitAsync, its client's "
                    + "auto-commit timer\\).*; the wire barrier takes over"));
            if (name.startsWith("schedules")) {
                assertThat(x.outcome().status()).as(name + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            }
        }
        // its inserts commit themselves (autocommit): it never calls the JDBC commit, while its group's offsets move on; the debugger
        // holds its statement instead (the cell was NOT_RUN after the barrier timeout, naming the statement to hold)
        ExperimentEvidence db = experiment(r.evidence(), "schedules.before-db-commit.hold");
        passed(db);
        assertThat(db.environment().get("barrier")).startsWith("debugger at java.sql.PreparedStatement#executeUpdate (fallback: A's statements "
                + "commit themselves, it never reached java.sql.Connection#commit; ");
        assertThat(db.events()).extracting(ev -> ev.payload().summary()).anyMatch(t -> t.matches("A's group \\S+ committed offsets again "
                + "\\(.*\\) and A had not reached java.sql.Connection#commit 2 s later: its database work commits another way .*; the debugger "
                + "holds java.sql.PreparedStatement#executeUpdate instead"));
        assertThat(db.limitations()).anyMatch(l -> l.startsWith("A's statements commit themselves (a JDBC connection in autocommit mode)"));
        // commit-ahead holds A at its DB commit only to give a commit timer its chance: it goes on without the hold, saying so
        ExperimentEvidence ahead = experiment(r.evidence(), "commit-ahead");
        passed(ahead);
        assertThat(ahead.events()).extracting(ev -> ev.payload().summary()).anyMatch(t -> t.contains("its database work commits another way")
                && t.endsWith(": no hold; the check still sees every commit"));
        // on the wire its client gives the held commitAsync up after its request timeout (30 s) and never sends it again, before its
        // session timeout (45 s) moves the partition: held again with A frozen, its stale commit is refused
        ExperimentEvidence rebalance = experiment(r.evidence(), "rebalance");
        passed(rebalance);
        assertThat(rebalance.environment().get("barrier")).startsWith("wire, A frozen at the hold (fallback: A's client gave up its commit");
        assertThat(rebalance.events()).extracting(ev -> ev.payload().summary()).anyMatch(t -> t.startsWith("A's client gave up its held commit "
                + "before the partition moved") && t.contains("request.timeout.ms"));
        assertThat(Runs.check(rebalance, "stale commit rejected").actual()).startsWith("rejected by the broker");
        assertThat(rebalance.limitations()).anyMatch(l -> l.startsWith("A's client gave up its commit held on the wire before the partition "
                + "moved (its own request timeout), so no stale commit could follow; the next try held the commit with A frozen"));

        // the debugger asked for: no fallback, NOT_RUN at A's first committed offset, which the reason names
        Lab.LabResult asked = Lab.run(foreign(kafka, ForeignSubjectMain.template("async-batch")).experiments(Experiments.rebalance())
                .barrier(BarrierKind.DEBUGGER).build(), null);
        ExperimentEvidence x = experiment(asked.evidence(), "rebalance");
        wasNotRun(x).matches("A committed offsets of group \\S+ \\(.*\\) without reaching KafkaConsumer#commitSync: .*, and the "
                + "barrier was asked for; hold A on the wire instead \\(LabSettings.barrier WIRE\\)");
    }

    /**
     * No processing log and no wire witness (what a TLS broker leaves): the replay reads committed offsets alone, which a consumer that
     * jumps to the log end commits too, so its PASS checks only that and leaves that defect class not judged.
     */
    @Test
    void aReplayReadFromOffsetsAloneChecksOnlyThemAndLeavesSkipsAReplayNotJudged(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(foreign(kafka, ForeignSubjectMain.template()).experiments(Experiments.replay()).witness(false).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "replay");
        passed(x);
        assertThat(Runs.check(x, "offsets committed again").actual()).contains("no processing log and no wire witness: offsets only");
        assertThat(x.checks()).extracting(c -> c.name()).doesNotContain("records delivered again");
        assertThat(x.outcome().confirmation().description()).as("the fault confirmed as what was seen")
                .isEqualTo("every offset committed again after the reset (offsets only: no processing log, no wire witness)");
        assertThat(Defect.SKIPS_THE_REPLAY.verdict(r.evidence())).hasValue(Defect.Verdict.NOT_JUDGED);
        assertThat(Defect.SKIPS_THE_REPLAY.decidedBy(r.evidence())).hasValue("PASS, without a check that rules this defect out (records "
                + "delivered again, made only where the wire witness or the consumer's processing log shows what it read)");
    }

    /**
     * Offsets the debugger cannot read: a Map whose methods wait for a lock (locked-map), or none in the call, {@code commitSync()}
     * committing every assigned partition's own position, those A has not read from yet too (commits-all; it was "A is committing
     * {}"). The wire reads them; a commit of every position is judged on the partitions it moves (it was NOT_RUN for the others).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "locked-map  | (unreadable ",
        "commits-all | (no offsets in the call: commitSync() commits the consumer's own positions)"})
    void aJvmCommitTheDebuggerCannotReadFallsBackToTheWireBarrierAndIsJudgedThere(String mode, String unread, LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(foreign(kafka, ForeignSubjectMain.template(mode)).experiments(Experiments.rebalance()), "rebalance");
        passed(x);
        // contains: on a loaded machine B's start can outlast A's request timeout (30 s), and A is then held again frozen
        assertThat(x.environment().get("barrier")).contains("wire (fallback: the debugger could not read the offsets A commits; the subject is a JVM)");
        assertThat(x.events()).extracting(e -> e.payload().summary())
                .anyMatch(p -> p.contains("could not read the offsets it commits: " + unread) && p.endsWith("the wire barrier takes over"));
        if (mode.equals("commits-all")) {
            assertThat(x.events()).extracting(ev -> ev.payload()).filteredOn(io.replaylab.barrier.BarrierEvent.BarrierReached.class::isInstance)
                    .last().satisfies(p -> assertThat(((io.replaylab.barrier.BarrierEvent.BarrierReached) p).context().get("offsets"))
                            .as("the held commit carries a partition it does not move").containsPattern("-\\d=0\\b"));
        }
    }

    @Test
    void aJvmCommitTheDebuggerCannotReadIsNotRunWhenTheDebuggerWasAskedFor(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(foreign(kafka, ForeignSubjectMain.template("locked-map")).experiments(Experiments.rebalance())
                .barrier(BarrierKind.DEBUGGER), "rebalance");
        wasNotRun(x).contains("the debugger could not read the offsets A commits (unreadable").contains("asked for");
    }

    /** The lab on the foreign subject, started by {@code command} with its own schema. */
    private LabSettings.Builder foreign(LocalKafka kafka, String command) {
        return on(kafka, dir).subject(Subject.command(command)).targetQuery(ForeignSubjectMain.TARGET_QUERY);
    }

}
