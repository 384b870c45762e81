package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.failedCheck;
import static io.replaylab.harness.experiment.Runs.run;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import io.replaylab.barrier.BarrierEvent;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.NodeConsumer;
import io.replaylab.kafka.testing.PythonConsumer;
import io.replaylab.oracle.testing.LocalPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DB points of a consumer that is not a JVM, on a real PostgreSQL: a Python program on librdkafka and psycopg2, written
 * apart from the lab and told where its database is only by libpq's environment, held at its COMMIT and at the COMMIT's
 * answer in the run's PostgreSQL proxy.
 */
@LocalKafkaTest
class PostgresWireTest {
    private final LocalPostgres pg = LocalPostgres.shared();

    @TempDir
    Path dir;

    private LabSettings.Builder psycopg(LocalKafka kafka, String flags) {
        return Runs.on(kafka, dir.resolve("runs")).records(20).stopGrace(Duration.ofSeconds(5))
                .target(pg.createDatabase(), LocalPostgres.USER, LocalPostgres.PASSWORD).subject(Subject.command(PythonConsumer.pgTemplate(dir, flags)))
                .targetQuery(PythonConsumer.PG_TARGET_QUERY);
    }

    private LabSettings.Builder cells(LocalKafka kafka, String flags, String... cells) {
        return psycopg(kafka, flags).experiments(Experiments.schedules(Stream.of(cells).map(ScheduleCell::parse).toList()));
    }

    private LabSettings.Builder dbFaults(LocalKafka kafka, String flags, String... cells) {
        return psycopg(kafka, flags).experiments(cells.length == 0 ? Experiments.dbFaults()
                : Experiments.dbFaults(Stream.of(cells).map(DbFaultCell::parse).toList()));
    }

    @Test
    void aPsycopgConsumerPassesEveryCellOfThePostgresMatrixHeldAtItsCommitAndAtItsAnswerInTheProxy(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(psycopg(kafka, "").experiments(Experiments.schedules()).build(), null);

        assertThat(r.evidence().experiments()).as("on PostgreSQL the default matrix has after-db-commit's single faults")
                .hasSize(1 + ScheduleCell.all(true).size());
        assertThat(ScheduleCell.all(true)).contains(ScheduleCell.parse("after-db-commit:freeze")).doesNotContain(ScheduleCell.parse("after-db-commit:hold-then-crash"));
        for (ScheduleCell c : ScheduleCell.all(true)) {
            ExperimentEvidence x = experiment(r.evidence(), "schedules." + c.id());
            assertThat(x.outcome().status()).as(c + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            if (c.point().id().endsWith("db-commit")) {
                assertThat(x.environment().get("barrier")).startsWith("postgresql (A's COMMIT");
                BarrierEvent.BarrierReached reached = x.events().stream().map(e -> e.payload()).filter(BarrierEvent.BarrierReached.class::isInstance)
                        .map(BarrierEvent.BarrierReached.class::cast).filter(b -> b.point().equals(c.point().id())).findFirst().orElseThrow();
                assertThat(reached.context()).as("A's own session, named by libpq's PGAPPNAME").containsEntry("statement", "COMMIT")
                        .containsEntry("application_name", c.id() + "-A");
            }
        }
        ExperimentEvidence ambiguous = experiment(r.evidence(), "schedules.after-db-commit.crash");
        assertThat(Files.readString(r.runDir().resolve("logs/after-db-commit.crash-B.out")) + Files.readString(r.runDir().resolve("logs/after-db-commit.crash-A.out")))
                .as("the record whose COMMIT A never heard of was delivered again and found in the inbox").contains("new=False");
        assertThat(ambiguous.checks()).extracting(Check::name).contains("no second effect", "no missing effect");
    }

    @Test
    void itsTwinWithoutAnInboxFailsTheAmbiguousCommitNamingTheDoubledRecord(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(cells(kafka, "--no-inbox", "after-db-commit:crash"), "schedules.after-db-commit.crash");
        failedCheck(x, "no second effect").startsWith("1 duplicated").contains("schedules.after-db-commit.crash-");
        assertThat(x.outcome().confirmation()).as("the crash was confirmed at the held answer").isNotNull();
        assertThat(x.events()).map(e -> e.payload()).anyMatch(p -> p instanceof Payload.ProcessStopped s && s.how().equals("SIGKILL (crash)"));
    }

    @Test
    void aPsycopgConsumerThatRetriesThroughItsInboxPassesEveryDatabaseFaultAndTheVerdictSaysWhatItDid(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(dbFaults(kafka, "").build(), null);

        for (String cell : List.of("commit.lost-answer", "commit.error-40001", "statement.error-40P01", "connection.terminate-57P01")) {
            ExperimentEvidence x = experiment(r.evidence(), "db-faults." + cell);
            assertThat(x.outcome().status()).as(cell + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            assertThat(x.outcome().confirmation().description()).as(cell).contains("fired in the PostgreSQL proxy")
                    .containsPattern("after it A ran the transaction of rl-\\S+ again on (a new|the same) session and committed it \\d+ ms after the fault");
            assertThat(x.events()).map(e -> e.payload()).as("the database's witness in the timeline")
                    .anyMatch(p -> p instanceof LabEvent.DbTransaction t && t.instance().equals(cell + "-A") && t.outcome().equals("COMMITTED"));
        }
        assertThat(experiment(r.evidence(), "db-faults").outcome().status()).isEqualTo(Status.PASS);
    }

    /** pgjdbc sends a statement as Parse, Bind, Execute in one batch: the fault takes the Bind's place, whose values name the record. */
    @Test
    void theJvmReferenceOnPgjdbcMeetsAStatementFaultAtItsBindWithItsRecordNamedAndPasses(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(Runs.on(kafka, dir.resolve("runs")).records(20)
                .stopGrace(Duration.ofSeconds(5)).target(pg.createDatabase(), LocalPostgres.USER, LocalPostgres.PASSWORD)
                .experiments(Experiments.dbFaults(List.of(DbFaultCell.parse("statement:error=40P01")))), "db-faults.statement.error-40P01");
        passed(x).contains("fired in the PostgreSQL proxy")
                .containsPattern("after it A ran the transaction of rl-\\S+ again on (a new|the same) session and committed it");
    }

    @Test
    void itsTwinThatRetriesAnAmbiguousCommitWithoutAnInboxFailsNamingTheDoubledRecord(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(dbFaults(kafka, "--no-inbox", "commit:lost-answer"), "db-faults.commit.lost-answer");
        failedCheck(x, "no second effect").startsWith("1 duplicated");
        assertThat(x.outcome().confirmation().description()).contains("ran the transaction of").contains("again");
    }

    @Test
    void itsTwinThatSkipsAFailedCommitAndCommitsItsOffsetFailsNamingTheLostRecord(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(dbFaults(kafka, "--skip-on-error", "commit:error=40001"), "db-faults.commit.error-40001");
        failedCheck(x, "no missing effect").matches("1 missing: rl-[0-9a-f]+\\.db-faults\\.commit\\.error-40001-\\d+ .*");
        assertThat(x.outcome().confirmation().description()).contains("committed no transaction naming");
    }

    @Test
    void aConsumerWithNoTransactionNeverMeetsACommitOrStatementFaultAndIsNotRunSayingSo(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(dbFaults(kafka, "--autocommit", "commit:error=40001", "statement:error=40P01").barrierTimeout(Duration.ofSeconds(8))
                .build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "db-faults.commit.error-40001");
        wasNotRun(x).startsWith("the fault never fired: A ran no COMMIT (a consumer whose writes run with no transaction, "
                + "autocommit, never sends one) through the PostgreSQL proxy within PT8S");
        ExperimentEvidence statement = experiment(r.evidence(), "db-faults.statement.error-40P01");
        wasNotRun(statement).startsWith("the fault never fired: A ran no statement inside a transaction (a consumer whose "
                + "writes run with no transaction, autocommit, never meets it) through the PostgreSQL proxy within PT8S");
    }

    @Test
    void databaseFaultsOnASqliteTargetAreNotRunNamingWhatTheyNeed(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(Runs.on(kafka, dir.resolve("runs")).records(5)
                .experiments(Experiments.dbFaults()), "db-faults");
        wasNotRun(x).isEqualTo("database faults need a PostgreSQL target, which the subjects reach through the run's PostgreSQL "
                + "proxy; this run's target is SQLite (give a PostgreSQL target: LabSettings.target)");
    }

    @Test
    void aNodeConsumerOnNodePostgresPassesHeldAtItsCommitAndKilledAtItsAnswer(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(psycopg(kafka, "").subject(Subject.command(NodeConsumer.pgTemplate("")))
                .experiments(Experiments.schedules(List.of(ScheduleCell.parse("before-db-commit:hold"), ScheduleCell.parse("after-db-commit:crash"))))
                .build(), null);

        for (String cell : List.of("before-db-commit.hold", "after-db-commit.crash")) {
            ExperimentEvidence x = experiment(r.evidence(), "schedules." + cell);
            assertThat(x.outcome().status()).as(cell + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            assertThat(x.events()).map(e -> e.payload()).anyMatch(p -> p instanceof BarrierEvent.BarrierReached b
                    && b.context().getOrDefault("statement", "").equals("COMMIT") && b.context().get("owner").equals(cell + "-A"));
        }
    }

    @Test
    void theJvmReferenceOnTheWireBarrierIsHeldAtItsCommitInTheProxyTooAndPasses(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(Runs.on(kafka, dir.resolve("runs")).records(20)
                .stopGrace(Duration.ofSeconds(5)).target(pg.createDatabase(), LocalPostgres.USER, LocalPostgres.PASSWORD).barrier(BarrierKind.WIRE)
                .experiments(Experiments.schedules(List.of(ScheduleCell.parse("before-db-commit:crash"), ScheduleCell.parse("after-db-commit:hold"))))
                .build(), null);

        for (String cell : List.of("before-db-commit.crash", "after-db-commit.hold")) {
            ExperimentEvidence x = experiment(r.evidence(), "schedules." + cell);
            assertThat(x.outcome().status()).as(cell + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            assertThat(x.environment().get("barrier")).startsWith("postgresql (A's COMMIT");
            assertThat(x.events()).map(e -> e.payload()).as("pgjdbc's COMMIT, found whichever way it sends it").anyMatch(p ->
                    p instanceof BarrierEvent.BarrierReached b && b.context().getOrDefault("statement", "").equals("COMMIT"));
        }
    }

    @Test
    void aConsumerWithNoTransactionNeverReachesItsCommitInTheProxyAndIsNotRunNamingThePoint(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(cells(kafka, "--autocommit", "before-db-commit:hold").barrierTimeout(Duration.ofSeconds(8)),
                "schedules.before-db-commit.hold");
        wasNotRun(x).matches("the injection point before-db-commit was never reached: A did not send a COMMIT through the "
                + "PostgreSQL proxy at 127\\.0\\.0\\.1:\\d+ within PT8S");
    }

    @Test
    void aConsumerThatNeverCommitsAnOffsetIsNotRunBeforeAnyDatabaseFaultIsArmed(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(dbFaults(kafka, "", "commit:lost-answer").subject(Subject.command(Runs.pollsOnly()))
                .barrierTimeout(Duration.ofSeconds(5)), "db-faults.commit.lost-answer");
        wasNotRun(x).matches("A committed no offset for group \\S+ and applied no effect within PT5S \\(the fault is armed after A's first "
                + "offset commit or effect, so that its start-up transactions do not meet it\\)");
    }

    /**
     * A consumer that keeps its positions in PostgreSQL (written in each record's transaction, sought to at each assignment) and
     * never commits an offset to Kafka: the fault is armed after its first effect, and the cell is judged (it was NOT_RUN at the
     * barrier timeout, "A committed no offset").
     */
    @Test
    void aConsumerThatKeepsItsPositionsInPostgresIsJudgedAtADatabaseFault(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(dbFaults(kafka, "--positions-in-db", "commit:error=40001"), "db-faults.commit.error-40001");

        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.PASS);
        assertThat(x.outcome().reason()).contains("commit:error=40001 fired in the PostgreSQL proxy");
    }

    @Test
    void aConsumerThatStopsAtAFailedTransactionWithNoWitnessToJudgeItsTimeoutsIsNotRunSayingTheGroupDidNotDrain(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(dbFaults(kafka, "--hang-on-error", "commit:error=40001").witness(false)
                .barrier(BarrierKind.DEBUGGER) // no Kafka proxy at all: nothing reads the consumer's timeouts, the drain timeout decides
                .drainTimeout(Duration.ofSeconds(5)).build(),
                null);

        ExperimentEvidence x = experiment(r.evidence(), "db-faults.commit.error-40001");
        wasNotRun(x).startsWith("the group did not drain after commit:error=40001: ").contains("; after the fault A committed no "
                + "transaction naming rl-");
    }

    @Test
    void aFaultThatHitsATransactionNamingNoRecordIsNotRunNamingWhatItRan(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(dbFaults(kafka, "--bookkeeping", "commit:error=40001"), "db-faults.commit.error-40001");
        wasNotRun(x).startsWith("the fault hit a transaction of A's that named no record of the source (it had run BEGIN; INSERT "
                + "INTO pg_alive VALUES ('commit.error-40001-A', now())").endsWith("): no record's fate was at stake");
    }
}
