package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.faultNotObserved;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static io.replaylab.harness.experiment.Runs.run;
import static io.replaylab.harness.experiment.Runs.matrix;
import static io.replaylab.harness.experiment.Runs.payloads;
import static io.replaylab.harness.experiment.Runs.sideBySide;
import static io.replaylab.harness.experiment.Runs.check;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.barrier.BarrierEvent;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.Subject;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.FailKind;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Gdb;
import io.replaylab.kafka.testing.NodeConsumer;
import io.replaylab.kafka.testing.PythonConsumer;
import io.replaylab.oracle.testing.LocalPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The schedules experiment end to end: every fault at every point of the commit protocol, on real processes and a real broker. */
@LocalKafkaTest
class SchedulesExperimentTest {
    @TempDir
    Path dir;

    private LabSettings.Builder schedules(LocalKafka kafka, String... cells) {
        return Runs.on(kafka, dir).records(20).stopGrace(Duration.ofSeconds(5))
                .experiments(cells.length == 0 ? Experiments.schedules() : Experiments.schedules(Stream.of(cells).map(ScheduleCell::parse).toList()));
    }


    @Test
    void theReferenceSubjectPassesEveryCellAndTheMatrixLinksEachToItsOwnTimeline(LocalKafka kafka) throws Exception {
        // one cell at a time here: the suite runs three forks on two cores, and three cells at once beside them were seen to
        // stall A past its poll interval; cells side by side are proven by SideBySideTest and measured by `bench run`
        Lab.LabResult r = Lab.run(schedules(kafka).parallel(1).build(), null);

        RunEvidence ev = r.evidence();
        assertThat(ev.outcome().status()).as(ev.outcome().reason()).isEqualTo(Status.PASS);
        assertThat(ev.experiments()).hasSize(1 + ScheduleCell.all().size());
        Payload.Matrix m = matrix(experiment(ev, "schedules"));
        assertThat(m.rows()).containsExactly("before-db-commit", "before-offset-commit", "after-offset-commit");
        assertThat(m.columns()).containsExactly("hold", "freeze", "crash", "hold-then-crash");
        assertThat(m.cells()).hasSize(10).allSatisfy(c -> {
            assertThat(c.status()).as(c.row() + " × " + c.column() + ": " + c.reason()).isEqualTo("PASS");
            ExperimentEvidence part = experiment(ev, c.experiment());
            assertThat(part.outcome().confirmation()).isNotNull();
            assertThat(payloads(part)).as("held at its own point").anyMatch(p -> p instanceof BarrierEvent.BarrierReached b && b.point().equals(c.row()));
            assertThat(part.checks()).extracting(Check::name).contains("no missing effect", "no second effect",
                    "no committed offset beyond a missing effect");
        });
        assertThat(experiment(ev, "schedules.before-db-commit.hold-then-crash").outcome().confirmation().description())
                .as("the sequence's steps, in order").contains(": held (event ").contains("then A held for the contention window PT3S (event ")
                .endsWith("then crash (event " + experiment(ev, "schedules.before-db-commit.hold-then-crash").outcome().confirmation().eventSeq() + ")");
        ExperimentEvidence frozen = experiment(ev, "schedules.before-offset-commit.freeze");
        assertThat(payloads(frozen)).anyMatch(p -> p instanceof LabEvent.Frozen f && f.by().equals("with SIGSTOP") && f.confirmed().contains("state T"));
        ExperimentEvidence crashed = experiment(ev, "schedules.after-offset-commit.crash");
        assertThat(payloads(crashed)).anyMatch(p -> p instanceof Payload.ProcessStopped s && s.how().equals("SIGKILL (crash)"));
        assertThat(payloads(crashed)).filteredOn(p -> p instanceof Payload.ProcessStarted s && s.instance().equals("after-offset-commit.crash-A"))
                .as("A restarted as a new process with the same instance name").hasSize(2);
        ExperimentEvidence db = experiment(ev, "schedules.before-db-commit.hold");
        BarrierEvent.BarrierReached atDb = payloads(db).stream().filter(p -> p instanceof BarrierEvent.BarrierReached b && b.point().equals("before-db-commit"))
                .map(BarrierEvent.BarrierReached.class::cast).findFirst().orElseThrow();
        assertThat(atDb.stack()).as("held in the JDBC commit the subject calls").anyMatch(f -> f.contains(".commit("))
                .anyMatch(f -> f.startsWith("io.replaylab.harness.subject.InboxProjection.apply"));
        String md = Files.readString(r.report());
        assertThat(md).contains("| **after-offset-commit** | [**PASS**](#exp-schedules.after-offset-commit.hold) |")
                .contains("<a id=\"exp-schedules.after-offset-commit.hold\"></a>")
                .contains("- **after-offset-commit × crash**: at after-offset-commit (the broker has stored the offset;");
        assertThat(Files.readString(r.runDir().resolve("report.html")))
                .contains("<td class=\"PASS\" title=\"").contains("<a href=\"#exp-schedules.before-db-commit.freeze\"><strong>PASS</strong></a>");
    }

    @Test
    void aJvmIsHeldAfterItsDbCommitWhereItsJdbcCommitReturnsAndPasses(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(schedules(kafka, "after-db-commit:hold", "after-db-commit:crash").build(), null);

        for (String cell : List.of("after-db-commit.hold", "after-db-commit.crash")) {
            ExperimentEvidence x = experiment(r.evidence(), "schedules." + cell);
            assertThat(x.outcome().status()).as(cell + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            assertThat(payloads(x)).anyMatch(p -> p instanceof BarrierEvent.BarrierReached b && b.point().equals("after-db-commit"));
        }
        assertThat(matrix(experiment(r.evidence(), "schedules")).rows()).as("the default matrix's points (its cells NOT_SELECTED) and the one named")
                .containsExactly("before-db-commit", "after-db-commit", "before-offset-commit", "after-offset-commit");
        assertThat(matrix(experiment(r.evidence(), "schedules")).cell("after-db-commit", "freeze")).as("named only on demand: absent").isEmpty();
    }

    @Test
    void aProgramOnSqliteIsNotRunAfterItsDbCommitNamingWhatWouldReachIt(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(schedules(kafka, "after-db-commit:crash").subject(Subject.command(PythonConsumer.template(dir, false)))
                .targetQuery(PythonConsumer.TARGET_QUERY), "schedules.after-db-commit.crash");
        wasNotRun(x).isEqualTo("not reachable for a subject that is not a JVM on a SQLite target: gdb holds the SQLite commit "
                + "where it starts (sqlite3_step of a COMMIT), not where it returns; on a PostgreSQL target the PostgreSQL proxy holds the answer to "
                + "any client's COMMIT");
    }

    @Test
    void aSubjectThatCommitsItsOffsetBeforeItsDbWriteFailsTheCrashAfterTheOffsetCommitWithTheLostRecordNamed(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(schedules(kafka, "after-offset-commit:crash").subject(Subject.command(BrokenSubjectMain.template("commit-first"))).build(), null);

        ExperimentEvidence cell = experiment(r.evidence(), "schedules.after-offset-commit.crash");
        failedItsChecks(cell);
        assertThat(cell.outcome().confirmation()).as("the fault was confirmed: a FAIL, not a NOT_RUN").isNotNull();
        Check missing = check(cell, "no missing effect");
        assertThat(missing.status()).isEqualTo(Status.FAIL);
        assertThat(missing.actual()).as("named by message id and offset")
                .matches("1 missing: rl-[0-9a-f]+\\.schedules\\.after-offset-commit\\.crash-\\d+ \\(p\\d+@\\d+, amount -?\\d+\\)");
        Check hole = check(cell, "no committed offset beyond a missing effect");
        assertThat(hole.status()).isEqualTo(Status.FAIL);
        assertThat(hole.actual()).as("the frontier names the hole").matches("1 holes?: \\S+-\\d+ committed \\d+ but offset \\d+ \\(\\S+\\) has no effect");
        assertThat(experiment(r.evidence(), "schedules").outcome().status()).isEqualTo(Status.FAIL);
        assertThat(r.evidence().outcome().status()).isEqualTo(Status.FAIL);
    }

    @Test
    void aSubjectWithoutTheInboxCheckFailsTheCrashBeforeTheOffsetCommitWithASecondEffect(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(schedules(kafka, "before-offset-commit:crash").subject(Subject.command(BrokenSubjectMain.template("no-inbox"))).build(), null);

        ExperimentEvidence cell = experiment(r.evidence(), "schedules.before-offset-commit.crash");
        assertThat(cell.outcome().status()).as(cell.outcome().reason()).isEqualTo(Status.FAIL);
        Check second = check(cell, "no second effect");
        assertThat(second.status()).isEqualTo(Status.FAIL);
        assertThat(second.actual()).startsWith("1 duplicated");
        assertThat(matrix(experiment(r.evidence(), "schedules")).cell("before-offset-commit", "crash").orElseThrow().status()).isEqualTo("FAIL");
        assertThat(matrix(experiment(r.evidence(), "schedules")).cell("before-db-commit", "hold").orElseThrow().status()).isEqualTo("NOT_SELECTED");
        assertThat(experiment(r.evidence(), "schedules").outcome().reason()).startsWith("cell before-offset-commit:crash FAILED (check failed: ");
    }

    @Test
    void aSubjectThatExitsIsNotRunWithItsExitCodeAtTheDbPointAndOnTheWire(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(schedules(kafka, "before-db-commit:crash", "before-offset-commit:hold")
                .subject(Subject.command("sh -c 'echo no broker for me >&2; exit 3' {bootstrap} {topic} {group} {db} {namespace} {instance} {logdir}")).build(), null);

        for (String cell : List.of("before-db-commit.crash", "before-offset-commit.hold")) {
            ExperimentEvidence x = experiment(r.evidence(), "schedules." + cell);
            assertThat(x.outcome().status()).as(cell).isEqualTo(Status.NOT_RUN);
            assertThat(x.outcome().reason()).as(cell).contains("exited on its own with code 3").contains("no broker for me");
        }
    }

    @Test
    void aProgramWithoutSqliteIsNotRunAtTheDbPointNamingWhatTheNativeBarrierSearched(LocalKafka kafka) throws Exception {
        Gdb.require();
        Lab.LabResult r = Lab.run(schedules(kafka, "before-db-commit:hold").barrierTimeout(Duration.ofSeconds(2))
                .subject(Subject.command("sh -c 'sleep 60' {bootstrap} {topic} {group} {db} {namespace} {instance}")).build(), null);

        ExperimentEvidence db = experiment(r.evidence(), "schedules.before-db-commit.hold");
        wasNotRun(db).startsWith("not reachable for this subject: the native barrier could not attach (no sqlite3_step in pid ")
                .contains("or its descendants within PT2S").contains("sleep 60");
        assertThat(db.environment().get("barrier")).startsWith("native (gdb at the SQLite commit");
        assertThat(matrix(experiment(r.evidence(), "schedules")).cell("before-db-commit", "hold").orElseThrow().reason()).isEqualTo(db.outcome().reason());
    }

    @Test
    void aProgramWithSqliteThatNeverCommitsAnOffsetIsNotRunAtTheWarmUpOfTheDbPoint(LocalKafka kafka) throws Exception {
        Gdb.require();
        Lab.LabResult r = Lab.run(schedules(kafka, "before-db-commit:crash").barrierTimeout(Duration.ofSeconds(3))
                .subject(Subject.command("'" + PythonConsumer.python() + "' -c 'import sqlite3, time; time.sleep(60)' {bootstrap} {topic} {group} {db}"))
                .build(), null);

        ExperimentEvidence db = experiment(r.evidence(), "schedules.before-db-commit.crash");
        wasNotRun(db).matches("the injection point before-db-commit was never reached: A did not send an OffsetCommit for group "
                + "rl-[0-9a-f]+\\.schedules\\.before-db-commit\\.crash\\.group \\(the warm-up: the DB point is armed while it is held\\) within PT3S");
        assertThat(payloads(db)).as("gdb was attached: the program had SQLite").anyMatch(p -> p instanceof LabEvent.DebuggerAttached n && n.library().contains("sqlite"));
    }

    @Test
    void aPythonConsumerWhoseWritesHaveNoTransactionNeverReachesTheDbCommitAndIsNotRun(LocalKafka kafka) throws Exception {
        Gdb.require();
        Lab.LabResult r = Lab.run(schedules(kafka, "before-db-commit:hold").barrierTimeout(Duration.ofSeconds(5))
                .subject(Subject.command(PythonConsumer.template(dir, "--autocommit"))).targetQuery(PythonConsumer.TARGET_QUERY).build(), null);

        ExperimentEvidence db = experiment(r.evidence(), "schedules.before-db-commit.hold");
        wasNotRun(db).isEqualTo("the injection point before-db-commit was never reached: A did not reach the SQLite commit "
                + "(sqlite3_step of COMMIT/END, or sqlite3_exec of a script with one) (only a COMMIT or END that ends a BEGIN ... transaction "
                + "reaches it: autocommit writes (no BEGIN) and a RELEASE of the outermost savepoint do not) within PT5S");
    }

    @Test
    void aPointTheSubjectNeverReachesIsNotRunNamingThePoint(LocalKafka kafka) throws Exception {
        // a consumer at work that commits no offset (it keeps its positions in its database): within 4 s, before its commit timer
        // could show it never will, it is not at the point; one that reads nothing is judged a stall (UnseenConsumerTest)
        Lab.LabResult r = Lab.run(schedules(kafka, "before-offset-commit:hold", "before-db-commit:hold").subject(DbOffsetsMain.subject())
                .targetQuery(DbOffsetsMain.TARGET_QUERY).barrierTimeout(Duration.ofSeconds(4)).build(), null);

        ExperimentEvidence offsets = experiment(r.evidence(), "schedules.before-offset-commit.hold");
        wasNotRun(offsets).isEqualTo("the injection point before-offset-commit was never reached: A did not reach "
                + "org.apache.kafka.clients.consumer.KafkaConsumer#commitSync within PT4S");
        ExperimentEvidence db = experiment(r.evidence(), "schedules.before-db-commit.hold");
        assertThat(db.outcome().reason()).matches("the injection point before-db-commit was never reached: A did not commit an offset of "
                + "group rl-[0-9a-f]+\\.schedules\\.before-db-commit\\.hold\\.group \\(the warm-up: its first commit, held at "
                + "KafkaConsumer#commitSync or seen in the group\\) within PT4S");
        assertThat(matrix(experiment(r.evidence(), "schedules")).cell("before-db-commit", "hold").orElseThrow().reason()).isEqualTo(db.outcome().reason());
    }

    /**
     * A consumer that hangs in its second record's handler, after its warm-up and before its next DB commit, never reaches the DB
     * point: its progress is watched there as at an offset point, and once its own timeouts say it had its chance the cell FAILs
     * naming what it left undone (NOT_RUN before, at the barrier timeout: "the injection point before-db-commit was never reached").
     * For each technology that holds a DB point, side by side: the debugger's JDBC commit (a JVM), gdb's SQLite commit and the
     * PostgreSQL proxy's COMMIT (librdkafka programs).
     */
    @Test
    void aConsumerThatHangsBeforeTheDbPointFailsOnceItsOwnTimeoutsSayItHadItsChance(LocalKafka kafka) throws Exception {
        Gdb.require();
        Map<String, LabSettings.Builder> runs = new LinkedHashMap<>();
        // the barrier timeout leaves A's start-up and warm-up room (5 s did not, once, on CI's machine); the stall is judged by A's
        // own timeouts past it either way
        runs.put("debugger", hangingCell(kafka, "debugger").subject(Subject.command(BrokenSubjectMain.template("hang-at-second"))));
        runs.put("native", hangingCell(kafka, "native").subject(Subject.command(PythonConsumer.template(dir, "--hang-at-second")))
                .targetQuery(PythonConsumer.TARGET_QUERY));
        runs.put("postgresql", hangingCell(kafka, "postgresql").target(LocalPostgres.shared().createDatabase(), LocalPostgres.USER,
                LocalPostgres.PASSWORD).subject(Subject.command(PythonConsumer.pgTemplate(dir, "--hang-at-second"))).targetQuery(PythonConsumer.PG_TARGET_QUERY));

        sideBySide(runs, "schedules.before-db-commit.hold").forEach((technology, x) -> {
            assertThat(x.outcome().status()).as(technology + ": " + x.outcome().reason()).isEqualTo(Status.FAIL);
            assertThat(x.outcome().reason()).as(technology).contains(" stalled before reaching before-db-commit: ").contains(" with no progress for ");
            assertThat(x.environment().get("barrier")).as("the run's key is the barrier's name").startsWith(technology);
        });
    }

    private LabSettings.Builder hangingCell(LocalKafka kafka, String technology) {
        return schedules(kafka, "before-db-commit:hold").workDir(dir.resolve(technology)).barrierTimeout(Duration.ofSeconds(30));
    }

    @Test
    void anAutoCommittingJvmConsumerReachesTheDbPointItsTimersFirstCommitEndingTheWarmUp(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(schedules(kafka, "before-db-commit:crash").subject(Subject.command(BrokenSubjectMain.template("auto-commit")))
                , "schedules.before-db-commit.crash");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isNotEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().confirmation()).as("the crash at the DB point was confirmed: " + x.outcome().reason()).isNotNull();
        assertThat(x.events()).extracting(e -> e.payload().summary()).anyMatch(t -> t.contains("got its first committed offset without A calling "
                + "KafkaConsumer#commitSync"));
    }

    @Test
    void theWireBarriersPointsNeverReachedAreNotRunNamingWhatTheSubjectDidNotDo(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(schedules(kafka, "before-offset-commit:hold", "after-offset-commit:hold").subject(DbOffsetsMain.subject())
                .targetQuery(DbOffsetsMain.TARGET_QUERY).barrier(BarrierKind.WIRE).barrierTimeout(Duration.ofSeconds(4)).build(), null);

        String group = "rl-[0-9a-f]+\\.schedules\\.%s\\.hold\\.group";
        assertThat(experiment(r.evidence(), "schedules.before-offset-commit.hold").outcome().reason()).matches("the injection point "
                + "before-offset-commit was never reached: A did not send an OffsetCommit for group " + group.formatted("before-offset-commit") + " within PT4S");
        assertThat(experiment(r.evidence(), "schedules.after-offset-commit.hold").outcome().reason()).matches("the injection point "
                + "after-offset-commit was never reached: A did not get an OffsetCommit accepted for group " + group.formatted("after-offset-commit")
                + " within PT4S");
    }

    /**
     * A held thread of a client whose poll interval is its default (300 s, the Java client's and librdkafka's): its heartbeat
     * thread would keep A in the group for 300 s, past the old fixed 2 min wait (a FAIL, "no handoff"). Its heartbeats withheld
     * on the wire, the coordinator drops A after its session timeout, and the wait comes from A's timeouts read on the wire.
     */
    @Test
    void aHeldThreadWithTheClientsDefaultPollIntervalHandsOffAtItsSessionTimeoutReadOnTheWire(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(Runs.on(kafka, dir).records(20).stopGrace(Duration.ofSeconds(5))
                .maxPollIntervalMs(300_000).experiments(Experiments.rebalance(),
                        Experiments.schedules(List.of(ScheduleCell.parse("before-db-commit:hold")))).build(), null);

        for (String name : List.of("rebalance", "schedules.before-db-commit.hold")) {
            ExperimentEvidence x = experiment(r.evidence(), name);
            assertThat(x.outcome().status()).as(name + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            assertThat(x.environment().get("A's timeouts")).as(name).startsWith("classic protocol, session.timeout.ms 6000, max.poll.interval.ms 300000 (JoinGroup v");
            assertThat(payloads(x)).as(name + ": the wait and why").anyMatch(p -> p instanceof LabEvent.HandoffWait n && n.summary().equals("the handoff wait is 66 s: "
                    + "A's session timeout is 6 s (classic protocol) and its heartbeats are withheld on the wire, so the coordinator drops A within it, "
                    + "whatever its poll interval (300 s); plus 60 s for B to start and join"));
            assertThat(payloads(x)).as(name).anyMatch(p -> p instanceof LabEvent.HeartbeatsWithheld w && w.count() > 0);
        }
    }

    @Test
    void aHoldThatNeverMovesThePartitionFailsAsFaultNotObserved(LocalKafka kafka) throws Exception {
        // A's session (60 s) and poll interval (120 s) both outlast the 3 s asked for: its heartbeats withheld, A is still in the group then
        Lab.LabResult r = Lab.run(schedules(kafka, "before-offset-commit:hold").maxPollIntervalMs(120_000).sessionTimeoutMs(60_000)
                .handoffTimeout(Duration.ofSeconds(3)).build(), null);

        ExperimentEvidence cell = experiment(r.evidence(), "schedules.before-offset-commit.hold");
        faultNotObserved(cell).matches("no handoff: \\S+ stayed with A's member for PT3S after A was held");
        // the matrix and the whole experiment see the cell's own outcome (A, still held, is stopped after the cell's outcome was sealed)
        assertThat(matrix(experiment(r.evidence(), "schedules")).cell("before-offset-commit", "hold").orElseThrow().status()).isEqualTo("FAIL");
        assertThat(experiment(r.evidence(), "schedules").outcome().reason()).startsWith("cell before-offset-commit:hold FAILED (no handoff: ");
        assertThat(experiment(r.evidence(), "schedules").outcome().failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
    }

    @Test
    void aGroupThatDoesNotDrainAfterTheFaultIsNotRun(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(schedules(kafka, "before-offset-commit:crash").records(6000).drainTimeout(Duration.ofSeconds(2)).witness(false).build(), null);

        ExperimentEvidence cell = experiment(r.evidence(), "schedules.before-offset-commit.crash");
        wasNotRun(cell).isEqualTo("the group did not drain after the recovery: not done within 2 s (the lab's drain timeout, LabSettings.drainTimeout: the run has no wire witness to show the consumer's own timeouts)");
    }

    @Test
    void aNodeConsumerOnKafkaJsAndBetterSqlite3PassesTheDbCellsWithItsBundledSqliteHeldWhereTheThreadHoldIsAFreezeForKafka(LocalKafka kafka)
            throws Exception {
        Gdb.require();
        Lab.LabResult r = Lab.run(schedules(kafka, "before-db-commit:hold", "before-db-commit:freeze", "before-db-commit:crash").parallel(3)
                .subject(Subject.command(NodeConsumer.template())).targetQuery(NodeConsumer.TARGET_QUERY).build(), null);

        for (String fault : List.of("hold", "freeze", "crash")) {
            ExperimentEvidence x = experiment(r.evidence(), "schedules.before-db-commit." + fault);
            assertThat(x.outcome().status()).as(fault + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            BarrierEvent.BarrierReached at = payloads(x).stream().filter(BarrierEvent.BarrierReached.class::isInstance).map(BarrierEvent.BarrierReached.class::cast)
                    .filter(b -> b.point().equals("before-db-commit")).findFirst().orElseThrow(); // after the warm-up's, on the wire
            assertThat(at.context()).containsEntry("function", "sqlite3_step").containsEntry("sql", "COMMIT");
            assertThat(at.context().get("library")).as("SQLite compiled into the addon, found in its static symbols").endsWith("better_sqlite3.node");
        }
        assertThat(payloads(experiment(r.evidence(), "schedules.before-db-commit.hold"))).as("the evidence says the hold stops KafkaJS too")
                .anyMatch(p -> p instanceof Payload.Note n && n.text().contains("Node's main thread")
                        && n.text().contains("so for Kafka this thread hold is a freeze"));
    }

    @Test
    void itsCommitFirstTwinFailsTheCrashAtTheDbCommitWithTheEffectLostBehindItsOffset(LocalKafka kafka) throws Exception {
        Gdb.require();
        ExperimentEvidence x = run(schedules(kafka, "before-db-commit:crash").subject(Subject.command(PythonConsumer.template(dir, "--commit-first")))
                .targetQuery(PythonConsumer.TARGET_QUERY), "schedules.before-db-commit.crash");
        failedItsChecks(x);
        assertThat(x.checks()).filteredOn(c -> c.status() == Status.FAIL).extracting(Check::name).contains("no missing effect", "no committed offset beyond a missing effect");
    }
}
