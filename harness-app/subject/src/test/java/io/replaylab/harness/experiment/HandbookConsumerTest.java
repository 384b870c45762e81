package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.faultNotObserved;
import static io.replaylab.harness.experiment.Runs.run;
import static io.replaylab.harness.experiment.Runs.payloads;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.replaylab.barrier.BarrierEvent;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.RecordSource;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Gdb;
import io.replaylab.kafka.testing.PythonConsumer;
import io.replaylab.oracle.SourceMapping;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab on a consumer it was not written for, unchanged: configured only by its environment, with
 * its own message shape ({@code key = paymentId}, {@code {"paymentId","amountCents","currency"}}) and
 * tables, fed by its own producer (both Python on librdkafka, in kafka-ops' test resources).
 */
@LocalKafkaTest
// two at a time (the module's surefire settings): Python consumers (little CPU) and their commit timers: mostly waits
@Execution(ExecutionMode.CONCURRENT)
class HandbookConsumerTest {
    /** The handbook's shape: identity in the key, amount at /amountCents, in cents. */
    private static final SourceMapping SHAPE = Handbook.SHAPE;

    @TempDir
    Path dir;

    private Subject consumer(String dedupe) {
        return Handbook.consumer(dir).env("DEDUPE", dedupe);
    }

    private RecordSource theirProducer() {
        return Handbook.producer(dir);
    }

    private LabSettings.Builder settings(LocalKafka kafka) {
        return Runs.on(kafka, dir.resolve("runs")).records(60)
                .targetQuery(PythonConsumer.HANDBOOK_TARGET_QUERY);
    }

    @Test
    void anEnvironmentConfiguredConsumerWithItsOwnShapeFedByItsOwnProducerPassesReplayRebalanceAndRebuild(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(settings(kafka).subject(consumer("1")).source(theirProducer()).build(), null);

        assertThat(r.refused()).isEmpty();
        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("replay", "rebalance", "rebuild");
        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason())
                .isEqualTo(Status.PASS));
        ExperimentEvidence replay = experiment(r.evidence(), "replay");
        assertThat(replay.environment().get("subject")).contains("KAFKA_GROUP={group}");
        assertThat(Files.readString(r.runDir().resolve("logs/replay-producer.out"))).as("their producer ran").contains("produced 60 payments");
        assertThat(replay.events().stream().map(e -> e.payload().toString()))
                .anyMatch(p -> p.contains("the source set: ") && p.contains("holds 60 record(s), 60 read with id key, amount json:/amountCents"));
    }

    @Test
    void theCorrectConsumerPassesTheWholeBatteryWithNoFalseAlarm(LocalKafka kafka) throws Exception {
        Gdb.require(); // the DB points of a program that is not a JVM are held by gdb
        // as the CLI's thorough runs it: their producer's records copied with aborted transactions between them
        Lab.LabResult r = Lab.run(settings(kafka).experiments(Experiments.thorough()).subject(consumer("1")).source(theirProducer().withAbortedTransactions())
                .build(), null);

        assertThat(r.refused()).isEmpty();
        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).contains("replay", "rebalance", "rebuild", "schedules",
                "wire-faults", "commit-ahead", "duplicate-publish").as("db-faults: only on a PostgreSQL target").doesNotContain("db-faults");
        // no false alarm: every experiment PASSes, but one cell may honestly be NOT_RUN: at after-offset-commit:hold, should
        // librdkafka's own session check make A's process join again as a new member before the coordinator drops the held one, the
        // range assignor gives the watched partition back to A and no handoff can happen: the cell says so, and so does the matrix,
        // never FAIL (rarer since the wire's hold stalls A's connection both ways; seen once in CI since, session 45)
        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status() == Status.PASS || isTheHandoffTheAssignorKeptFromB(x))
                .as(x.name() + ": " + x.outcome().reason()).isTrue());
        for (Defect d : Defect.all()) {
            assertThat(d.in(r.evidence())).as(d.name() + " judged by " + d.caughtBy()).hasValueSatisfying(x -> assertThat(x.outcome().status())
                    .isEqualTo(Status.PASS));
        }
        // a CPython program on librdkafka: its DB commit held by the native barrier (gdb at SQLite), its offset commit on the wire
        for (String fault : List.of("hold", "freeze", "crash")) {
            ExperimentEvidence x = experiment(r.evidence(), "schedules.before-db-commit." + fault);
            assertThat(x.environment().get("barrier")).startsWith("native (gdb at the SQLite commit");
            BarrierEvent.BarrierReached at = payloads(x).stream().filter(BarrierEvent.BarrierReached.class::isInstance)
                    .map(BarrierEvent.BarrierReached.class::cast).filter(b -> b.point().equals("before-db-commit")).findFirst()
                    .orElseThrow(); // after the warm-up's, on the wire
            assertThat(at.context()).containsEntry("function", "sqlite3_step").containsEntry("sql", "COMMIT");
            assertThat(at.context().get("library")).contains("libsqlite3");
            assertThat(at.context().get("threads")).as("librdkafka's threads run on").contains("rdk:main").doesNotContain("a thread hold is a freeze");
        }
        assertThat(payloads(experiment(r.evidence(), "schedules.before-db-commit.freeze"))).as("the freeze confirmed for every thread in /proc")
                .anyMatch(p -> p instanceof LabEvent.Frozen n && n.by().equals("through the debugger")
                        && n.confirmed().matches(": all \\d+ of its threads stopped.*state t for each"));
        assertThat(experiment(r.evidence(), "replay").checks()).filteredOn(c -> c.name().equals("no effect of an aborted record")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.PASS));
        assertThat(experiment(r.evidence(), "schedules.before-offset-commit.hold").environment().get("barrier")).startsWith("wire");
        assertThat(experiment(r.evidence(), "schedules").environment().get("barrier")).as("which barrier holds which point, and why")
                .startsWith("wire (the subject's program 'python3' is not java").endsWith("; before-db-commit: native (gdb at the SQLite commit), "
                        + "which the wire barrier cannot see");
        ExperimentEvidence afterOffsetCommit = experiment(r.evidence(), "schedules.after-offset-commit.hold");
        assertThat(payloads(afterOffsetCommit)).as("the broker's answer was held")
                .anyMatch(p -> p instanceof BarrierEvent.BarrierReached b && b.point().equals("after-offset-commit"));
        if (afterOffsetCommit.outcome().status() == Status.PASS) {
            assertThat(payloads(afterOffsetCommit)).as("then accepted").anyMatch(p -> p instanceof BarrierEvent.CommitAccepted);
        }
        // the battery as a CI server reads it: Maven's own JUnit report parser on the lab's JUnit XML
        Path junit = dir.resolve("thorough.xml");
        io.replaylab.evidence.JunitXml.write(r.evidence(), junit);
        List<org.apache.maven.plugins.surefire.report.ReportTestSuite> suites;
        try (java.io.InputStreamReader in = new java.io.InputStreamReader(java.nio.file.Files.newInputStream(junit), java.nio.charset.StandardCharsets.UTF_8)) {
            suites = new org.apache.maven.plugins.surefire.report.TestSuiteXmlParser(new org.apache.maven.plugin.surefire.log.api.NullConsoleLogger()).parse(in);
        }
        assertThat(suites.stream().mapToInt(org.apache.maven.plugins.surefire.report.ReportTestSuite::getNumberOfTests).sum())
                .isEqualTo(r.evidence().experiments().size());
        assertThat(suites.stream().mapToInt(org.apache.maven.plugins.surefire.report.ReportTestSuite::getNumberOfFailures).sum()).isZero();
        assertThat(suites.stream().flatMap(s -> s.getTestCases().stream()).map(org.apache.maven.plugins.surefire.report.ReportTestCase::getName))
                .contains("replay", "schedules", "schedules.before-db-commit.hold-then-crash", "wire-faults.offset-commit.lost-answer");
    }


    /** The matrix's or the cell's own NOT_RUN when A kept the watched partition at after-offset-commit:hold (above). */
    private static boolean isTheHandoffTheAssignorKeptFromB(ExperimentEvidence x) {
        String keptIt = "A kept taking part in the group while held at after-offset-commit: ";
        return x.outcome().status() == Status.NOT_RUN && (x.name().equals("schedules.after-offset-commit.hold") && x.outcome().reason().startsWith(keptIt)
                || x.name().equals("schedules") && x.outcome().reason().matches("cell after-offset-commit:hold NOT_RUN \\(" + keptIt + ".*\\); "
                        + "10 cell\\(s\\): 9 PASS, 1 NOT_RUN \\(after-offset-commit:hold\\)"));
    }

    /** Their producer's records copied with aborted transactions between them: the twin that reads uncommitted applies the aborted copies. */
    @Test
    void itsReadUncommittedTwinFedByTheirOwnProducerFailsNamingTheAbortedCopiesItApplied(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(settings(kafka).experiments(Experiments.replay()).subject(consumer("1").env("ISOLATION", "read_uncommitted"))
                .source(theirProducer().withAbortedTransactions()), "replay");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.FAIL);
        assertThat(payloads(x)).anyMatch(p -> p instanceof LabEvent.SourceCopied c && c.records() == 60 && c.aborted() == 9 && c.idField().equals("key")
                && c.summary().matches("the producer's 60 record\\(s\\) in \\S+\\.produced copied into \\S+ in committed transactions, with 9 "
                        + "record\\(s\\) of aborted transactions between them: copies of its records under fresh ids \\(\\S+-aborted-<n>, written at key\\)"));
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no effect of an aborted record")).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.FAIL);
            assertThat(c.actual()).matches("9 applied, e\\.g\\. \\[\\S+-aborted-[0-9]+, .*\\]: the consumer applies records of transactions their "
                    + "producer aborted: it reads uncommitted \\(isolation.level=read_uncommitted.*");
        });
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no missing effect")).singleElement().satisfies(c -> assertThat(c.status())
                .as("the copies are the producer's records, all applied").isEqualTo(Status.PASS));
        assertThat(Defect.READS_ABORTED.verdict(x)).isEqualTo(Defect.Verdict.CAUGHT);
    }

    @Test
    void itsTwinThatAppliesEveryDeliveryFailsTheRebalanceWithASecondEffect(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(settings(kafka).experiments(Experiments.rebalance()).subject(consumer("0")).source(theirProducer()), "rebalance");
        failedItsChecks(x);
        assertThat(x.checks()).filteredOn(c -> c.status() == Status.FAIL).extracting(c -> c.name()).contains("no second effect from the old/new collision");
    }

    @Test
    void theLabsOwnProducerWritesTheUsersShapeAndTheConsumerPasses(LocalKafka kafka) throws Exception {
        RecordSource shaped = Handbook.shaped();
        ExperimentEvidence x = run(settings(kafka).experiments(Experiments.replay()).subject(consumer("1")).source(shaped), "replay");
        passed(x);
    }

    @Test
    void aConsumerThatJumpsToTheLogEndAfterTheResetIsNotPassedByReplayBecauseTheWireSawNoFetchBelowTheEnd(LocalKafka kafka) throws Exception {
        Subject skipper = consumer("1").env("SKIP_TO_END", "1");
        Lab.LabResult r = Lab.run(settings(kafka).experiments(Experiments.replay()).subject(skipper).source(theirProducer()).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "replay");
        faultNotObserved(x).contains("handled 0 of 60 records again").contains("delivered again from the reset offsets on the wire");

        assertThat(x.outcome().reason()).as("the committed offsets alone said redelivered").contains("60 offsets committed again");
        assertThat(Defect.SKIPS_THE_REPLAY.verdict(r.evidence())).hasValue(Defect.Verdict.CAUGHT);
    }

    @Test
    void itsTwinThatSwallowsABusyWriteFailsHoldThenCrashAtTheDbCommitNamingTheLostPayment(LocalKafka kafka) throws Exception {
        Gdb.require(); // the DB point of a program that is not a JVM is held by gdb
        Subject swallower = consumer("1").env("SWALLOW_BUSY", "1").env("BUSY_TIMEOUT", "0.5");
        Lab.LabResult r = Lab.run(settings(kafka).experiments(Experiments.schedules(List.of(ScheduleCell.parse("before-db-commit:hold-then-crash"))))
                .subject(swallower).source(theirProducer()).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "schedules.before-db-commit.hold-then-crash");
        failedItsChecks(x).as("the reason names the lost payments").containsPattern("effect lost of \\d+ message id\\(s\\): "
                + "rl-[0-9a-f]+\\.schedules\\.before-db-commit\\.hold-then-crash-\\d+");
        assertThat(x.outcome().confirmation().description()).as("each step confirmed, in order").matches("hold-then-crash at before-db-commit: held "
                + "\\(event \\d+\\), then \\S+ moved to another member \\(event \\d+\\), then A held for the contention window PT3S \\(event "
                + "\\d+\\), then crash \\(event \\d+\\)");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no missing effect")).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.FAIL);
            assertThat(c.actual()).as("the lost payments named by id").matches("\\d+ missing: rl-[0-9a-f]+\\.schedules\\.before-db-commit\\."
                    + "hold-then-crash-\\d+ .*");
        });
        assertThat(Files.readString(r.runDir().resolve("logs/before-db-commit.hold-then-crash-B.out"))).as("B skipped a busy write")
                .contains("db busy, skipping");
    }

    @Test
    void theCorrectConsumerPassesHoldThenCrashAtTheDbCommitItsWriteWaitingForTheLock(LocalKafka kafka) throws Exception {
        Gdb.require();
        ExperimentEvidence x = run(settings(kafka).experiments(Experiments.schedules(List.of(ScheduleCell.parse("before-db-commit:hold-then-crash"))))
                .subject(consumer("1")).source(theirProducer()), "schedules.before-db-commit.hold-then-crash");
        passed(x);
        assertThat(x.events()).extracting(e -> e.payload()).anyMatch(p -> p instanceof Payload.ProcessStopped s
                && s.instance().equals("before-db-commit.hold-then-crash-A") && s.how().equals("SIGKILL (crash)"));
        assertThat(x.events()).extracting(e -> e.payload().summary()).anyMatch(t -> t.contains("still held at before-db-commit after the contention "
                + "window (PT3S)"));
    }

    @Test
    void aCorrectTimerCommitterHeldAtItsCommitsAnswerPassesOnceAPartitionThatCommitCarriesMovesToB(LocalKafka kafka) throws Exception {
        // librdkafka's timer commits every partition whose stored offset moved, on a thread of its own: A polls on while the answer is
        // held, but its coordinator connection is stalled both ways, so the coordinator drops A at its session timeout
        Subject timer = consumer("1").env("STORE_AFTER", "1").env("AUTO_COMMIT_INTERVAL_MS", "1000");
        ExperimentEvidence x = run(settings(kafka).experiments(Experiments.schedules(List.of(ScheduleCell.parse("after-offset-commit:hold"))))
                .subject(timer).source(theirProducer()), "schedules.after-offset-commit.hold");
        passed(x);
        BarrierEvent.BarrierReached held = payloads(x).stream().filter(BarrierEvent.BarrierReached.class::isInstance)
                .map(BarrierEvent.BarrierReached.class::cast).filter(b -> b.point().equals("after-offset-commit")).findFirst().orElseThrow();
        String confirmed = x.outcome().confirmation().description();
        assertThat(confirmed).matches("hold at after-offset-commit \\(event \\d+\\), then \\S+-[0-9] moved to another member");
        assertThat(held.context().get("offsets")).as("the partition that moved is one the held commit carried")
                .contains(confirmed.replaceAll(".* then (\\S+) moved to another member", "$1") + "=");
    }

    @Test
    void anAutoCommittingTwinWhosePollingThreadNeverWaitsForTheHeldAnswerIsHandedOffAtItsSessionTimeout(LocalKafka kafka) throws Exception {
        // every record on partition 0: librdkafka's timer commit carries only it, and A's polling thread never waits for the held
        // answer; the answer held on the wire stalls A's coordinator connection both ways (a heartbeat sent in the commit's round trip
        // waits behind it too), so the coordinator drops A within its 6 s session and B takes partition 0 (A's process used to
        // join again first and be given it back, a NOT_RUN in about one CI run of four)
        Subject autoCommitter = consumer("1").env("AUTO_COMMIT", "1").env("AUTO_COMMIT_INTERVAL_MS", "1000");
        RecordSource onePartition = Handbook.producer(dir, "0");
        ExperimentEvidence x = run(settings(kafka).experiments(Experiments.schedules(List.of(ScheduleCell.parse("after-offset-commit:hold"))))
                .subject(autoCommitter).source(onePartition), "schedules.after-offset-commit.hold");
        passed(x);
        assertThat(x.outcome().confirmation().description()).matches("hold at after-offset-commit \\(event \\d+\\), then \\S+-0 moved to another member");
    }

    @Test
    void aConsumerGivenTheBrokerItselfInsteadOfBootstrapIsNotRunOnceItsGroupShowsWhatTheWireNeverSaw(LocalKafka kafka) throws Exception {
        // its command names the broker, not {bootstrap}: nothing of it passes the wire proxy that is to hold its commit or fault its
        // requests (each NOT_RUN after the barrier timeout before, "A did not send an OffsetCommit", "A did not join", "A sent no")
        Lab.LabResult r = Lab.run(settings(kafka).experiments(Experiments.rebalance(), Experiments.wireFaults(List.of(
                        WireFaultCell.parse("heartbeat:error=REBALANCE_IN_PROGRESS"), WireFaultCell.parse("offset-commit:lost-answer"))))
                .subject(consumer("1").env("KAFKA_BOOTSTRAP", kafka.bootstrapServers())).source(theirProducer()).build(), null);
        String wentRound = " that no request through the run's wire proxy made: A reaches the broker some other way than the address it was "
                + "given as \\{bootstrap\\} \\(127\\.0\\.0\\.1:\\d+\\), so the proxy sees none of its requests \\(does the consumer take its "
                + "bootstrap servers from \\{bootstrap\\}\\?\\)";
        wasNotRun(experiment(r.evidence(), "rebalance")).matches("the injection point cannot be reached: A's group \\S+ has committed offsets "
                + "\\(\\S+-\\d=\\d+.*\\)" + wentRound);
        for (String cell : List.of("heartbeat.error-REBALANCE_IN_PROGRESS", "offset-commit.lost-answer")) {
            wasNotRun(experiment(r.evidence(), "wire-faults." + cell)).matches("the fault cannot fire: A's group \\S+ has a member \\(client "
                    + "\\S+-A\\)" + wentRound);
        }
    }

    /** commit-ahead on 40 records of its shape, written by the lab's producer. */
    private ExperimentEvidence commitAhead(LocalKafka kafka, Subject consumer) throws Exception {
        return run(settings(kafka).records(40).source(Handbook.shaped()).experiments(Experiments.commitAhead()).subject(consumer),
                CommitAheadExperiment.NAME);
    }

    /**
     * commit-ahead on its auto-committing twin: its timer's interval (10 s) is longer than the lab's least hold (8 s): A is held
     * past it, as long as its first commit took.
     */
    @Test
    void anAutoCommittingConsumerIsKilledAtItsTimersCommitAndFailsNamingTheLostRecord(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = commitAhead(kafka, Handbook.consumer(dir).env("AUTO_COMMIT", "1").env("AUTO_COMMIT_INTERVAL_MS", "10000")
                .env("MAX_POLL_INTERVAL_MS", "60000"));

        failedItsChecks(x).contains("no missing effect").contains("effect lost of");
        assertThat(x.events().stream().map(ev -> ev.payload().summary()))
                .anyMatch(p -> p.matches(".*A held at its DB commit for up to 1\\d s while the check watches its commits \\(its first offset commit "
                        + "came 1\\d[.\\d]* s after its start; at least 8 s\\).*"))
                .anyMatch(p -> p.contains("commit ahead of the database: commit-ahead-A"))
                .anyMatch(p -> p.contains("killed at that commit") && p.contains("still have no effect"));
    }

    /**
     * commit-ahead on its timer twin that follows librdkafka's advice for at-least-once: its timer commits only what the handler
     * stored after the transaction.
     */
    @Test
    void aTimerCommitterThatStoresEachOffsetAfterItsTransactionPassesHeldPastItsInterval(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = commitAhead(kafka, Handbook.consumer(dir).env("STORE_AFTER", "1").env("AUTO_COMMIT_INTERVAL_MS", "10000")
                .env("MAX_POLL_INTERVAL_MS", "60000"));

        passed(x);
        assertThat(x.events().stream().map(ev -> ev.payload().summary())).noneMatch(p -> p.contains("commit ahead of the database"))
                .anyMatch(p -> p.matches(".*A released after 1\\d s at its DB commit: no commit of A's covered the held record meanwhile.*"));
    }

    @Test
    void aProducerThatFailsHangsOrWritesNothingMakesTheExperimentNotRunNamingTheCommandAndItsStderr(LocalKafka kafka) throws Exception {
        String[][] producers = {
            {"sh -c 'echo broker refused the payments >&2; exit 3' {topic}", "exited with code 3", "broker refused the payments"},
            {"sh -c 'exit 0' {topic}", "wrote no record to topic", "does the producer take its topic from {topic}?"},
            {"sh -c 'echo still starting >&2; sleep 60' {topic}", "did not finish within PT2S", "still starting"},
        };
        for (String[] p : producers) {
            Lab.LabResult r = Lab.run(settings(kafka).experiments(Experiments.replay()).drainTimeout(java.time.Duration.ofSeconds(2))
                    .subject(consumer("1")).source(RecordSource.producer(Subject.command(p[0])).mapping(SHAPE)).build(), null);

            ExperimentEvidence x = experiment(r.evidence(), "replay");
            assertThat(x.outcome().status()).as(p[0]).isEqualTo(Status.NOT_RUN);
            assertThat(x.outcome().reason()).as(p[0]).contains(p[1]).contains(p[2]);
            assertThat(r.refused()).as("a producer's failure is the experiment's, not bad input").isEmpty();
        }
    }

    @Test
    void rebuildWithATargetQueryWithoutNamespaceIsNotRunBecauseBothGenerationsWouldReadTheSameRows(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(settings(kafka).experiments(Experiments.rebuild()).subject(consumer("1")).source(theirProducer())
                .targetQuery("SELECT payment_id AS message_id, amount_cents AS amount FROM payment_ledger"), "rebuild");
        wasNotRun(x).contains("the target query has no {namespace}").contains("cannot be told");
    }

    @Test
    void aMappingThatReadsNoneOfTheRecordsStopsTheRunAsBadInputShowingOneRecord(LocalKafka kafka) throws Exception {
        RecordSource wrong = theirProducer().mapping(SourceMapping.of("json:/payment_id", "json:/amountCents", 0));
        Lab.LabResult r = Lab.run(settings(kafka).subject(consumer("1")).source(wrong).build(), null);

        assertThat(r.refused()).hasValueSatisfying(why -> assertThat(why).contains("read 0 of 60 records")
                .contains("json:/payment_id").contains("\"paymentId\"").contains("missing id at json:/payment_id"));
        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN));
        assertThat(r.evidence().experiments()).noneSatisfy(x -> assertThat(x.events().stream().map(e -> e.payload().toString()))
                .anyMatch(p -> p.contains("ProcessStarted[instance=" + x.name() + "-A")));
    }

    @Test
    void aWrapperScriptWithoutExecInItsOwnDirectoryIsCrashedWholeAndLeavesNothingRunning(LocalKafka kafka) throws Exception {
        Path bin = Files.createDirectories(dir.resolve(".venv/bin"));
        Files.createSymbolicLink(bin.resolve("python"), onPath(PythonConsumer.python()));
        PythonConsumer.copy(dir, "handbook_consumer.py");
        Path wrapper = dir.resolve("run.sh");
        Files.writeString(wrapper, "#!/bin/sh\n# no exec: the shell stays the subject's pid, python its child\n.venv/bin/python handbook_consumer.py\n");
        wrapper.toFile().setExecutable(true);
        Subject wrapped = Subject.command("./run.sh").directory(dir)
                .env("KAFKA_BOOTSTRAP", "{bootstrap}").env("KAFKA_TOPIC", "{topic}").env("KAFKA_GROUP", "{group}").env("CLIENT_ID", "{instance}")
                .env("DB_PATH", "{db}").env("LEDGER_NS", "{namespace}");

        Lab.LabResult r = Lab.run(settings(kafka).experiments(Experiments.schedules(List.of(ScheduleCell.parse("before-offset-commit:crash"))))
                .subject(wrapped).source(theirProducer()).build(), null);

        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason())
                .isEqualTo(Status.PASS));
        assertThat(leftInDirectory()).as("no consumer of this directory runs after the run").isEmpty();
    }

    /** The interpreter itself: an absolute path as it is, a bare name looked up on the PATH. */
    private static Path onPath(String program) {
        if (program.contains("/")) {
            return Path.of(program).toAbsolutePath();
        }
        return java.util.Arrays.stream(System.getenv("PATH").split(java.io.File.pathSeparator)).map(d -> Path.of(d, program))
                .filter(Files::isExecutable).findFirst().orElseThrow(() -> new IllegalStateException(program + " is on no PATH directory"));
    }

    /** Processes whose working directory is this test's: a consumer a crash or a stop did not reach. */
    private List<String> leftInDirectory() {
        return ProcessHandle.allProcesses().filter(h -> {
            try {
                return Files.readSymbolicLink(Path.of("/proc", Long.toString(h.pid()), "cwd")).equals(dir.toRealPath());
            } catch (Exception e) {
                return false;
            }
        }).map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList();
    }
}
