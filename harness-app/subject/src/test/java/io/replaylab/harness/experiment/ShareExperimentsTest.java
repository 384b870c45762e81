package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.only;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.harness.subject.ReferenceSubject;
import io.replaylab.harness.subject.ShareTwinMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.oracle.TargetEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The share-group experiments on the real broker, each with the reference share consumer and the twins it
 * must judge: share-ack-ahead, share-crash, share-poison and share-replay (share-ownership has its own class).
 */
@LocalKafkaTest
class ShareExperimentsTest {
    @TempDir
    Path dir;

    /** One share experiment over {@code records} synthetic payments. */
    private LabSettings.Builder share(LocalKafka kafka, Experiment experiment, int records) {
        return on(kafka, dir.resolve("runs")).records(records).experiments(experiment);
    }

    /** The experiment with a share consumer that stalls after its first record's transaction, acknowledging nothing; a 3 s drain timeout. */
    private ExperimentEvidence withAConsumerThatAcknowledgesNothing(LocalKafka kafka, Experiment experiment, int records) throws Exception {
        return only(share(kafka, experiment, records).shareSubject(Subject.command(ShareTwinMain.template("share") + " stall-first=60000"))
                .drainTimeout(java.time.Duration.ofSeconds(3)));
    }

    // ---- share-ack-ahead: every ACCEPT checked against the target on the wire, A killed at its first one ahead

    @Test
    void theReferenceShareConsumerAcceptsEveryRecordOnlyAfterItsEffectAndPasses(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareAckAhead(), 20));

        passed(x).isEqualTo("every acknowledgement of the group checked against the target the moment "
                + "it was sent: 20 covered records, none ahead");
    }

    @Test
    void aShareConsumerThatAcknowledgesBeforeItsTransactionIsKilledThereAndFailsNamingTheLostRecord(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareAckAhead(), 20)
                .shareSubject(Subject.command(ShareTwinMain.template("share-ack-first"))));

        failedItsChecks(x).containsPattern("effect lost of 1 message id\\(s\\): rl-[0-9a-f]+\\.share-ack-ahead-0 \\(p0@0");
        Runs.failedCheck(x, "no acknowledgement ahead of the database").matches("share-ack-ahead-A sent an acknowledgement of \\S+-0 while 1 "
                + "record\\(s\\) it covered had no effect in the target yet: \\[.+\\]: a crash there loses them");
        assertThat(x.events()).extracting(ev -> ev.payload().summary())
                .anyMatch(t -> t.startsWith("acknowledgement ahead of the database: share-ack-ahead-A"))
                .anyMatch(t -> t.startsWith("share-ack-ahead-A killed at that acknowledgement; asked again once it was dead, 1 record(s) still "
                        + "have no effect"));
    }

    @Test
    void withoutTheWireProxyTheLiveCheckCannotRunAndTheExperimentIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareAckAhead(), 20).witness(false));

        wasNotRun(x).isEqualTo("the live check reads each acknowledgement on the wire, and this run has no wire proxy (the "
                + "witness is off)");
    }

    @Test
    void tooFewAcknowledgementsCheckedSayNothingAndTheExperimentIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareAckAhead(), 20).records(2));

        wasNotRun(x).isEqualTo("only 2 acknowledgement(s) covering a record were checked (3 needed): too few to say the "
                + "consumer never acknowledges ahead of its database");
    }

    // ---- share-crash: a kill at the DB commit loses nothing for the reference, the record for an acknowledge-first twin

    @Test
    void theReferenceShareConsumerCrashedAtItsDbCommitLosesNothingItsRecordComesBackToB(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareCrash(), 10));

        passed(x).isEqualTo("A crashed at its DB commit, after its first acknowledgement");
    }

    @Test
    void aShareConsumerThatAcknowledgesBeforeItsTransactionLosesTheRecordAtTheCrashAndFailsNamingIt(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareCrash(), 10)
                .shareSubject(Subject.command(ShareTwinMain.template("share-ack-first"))));

        failedItsChecks(x).containsPattern("effect lost of 1 message id\\(s\\): rl-[0-9a-f]+\\.share-crash-\\d+");
        assertThat(x.events()).extracting(ev -> ev.payload().summary()).anyMatch(t -> t.startsWith("A crashed at its DB commit; its accepted "
                + "acknowledgements on the wire: ") && t.contains("ACCEPT"))
                .as("the passive live check lists each acknowledgement sent before its effect")
                .anyMatch(t -> t.startsWith("acknowledgement ahead of the database: share-crash-A"));
    }

    @Test
    void aShareConsumerThatRejectsTheRecordRedeliveredAfterTheCrashLosesItByItsOwnWordAndFails(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareCrash(), 10)
                .shareSubject(Subject.command(ShareTwinMain.template("share-reject-redelivered"))));

        failedItsChecks(x).containsPattern("rejected by the consumer, its effect lost, \\d+ message id\\(s\\): rl-[0-9a-f]+\\.share-crash-\\d+ "
                + "\\(p0@\\d+\\) rejected by the consumer at delivery 2");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no readable record rejected without its effect")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.FAIL));
    }

    @Test
    void aShareConsumerThatIsNotAJvmIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareCrash(), 10).shareSubject(Subject.command("/usr/bin/python3 -c pass {group}")));

        wasNotRun(x).startsWith("the share consumer is not a JVM: A is held by a debugger breakpoint at its DB commit");
    }

    @Test
    void aConsumerThatNeverAcknowledgesAShareRecordNeverEndsTheWarmUpAndIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareCrash(), 10).shareSubject(Subject.command(BrokenSubjectMain.template("stall")))
                .barrierTimeout(java.time.Duration.ofSeconds(4)));

        wasNotRun(x).isEqualTo("the injection point was never reached: A did not call "
                + "org.apache.kafka.clients.consumer.KafkaShareConsumer#acknowledge (the warm-up) within PT4S");
    }

    @Test
    void aSourceOfOneRecordLeavesNoDbCommitAfterTheWarmUpAndIsNotRun(LocalKafka kafka) throws Exception {
        // long enough for A to start, join and acknowledge its one record: the wait that ends NOT_RUN is the one after it.
        // The reference with a lock of 60 s for its group (over the lab's 4 s): under load its first acknowledgement once came
        // after the lab's lock ran out, the record came back and its second DB commit was the point (a PASS)
        ExperimentEvidence x = only(share(kafka, Experiments.shareCrash(), 10).records(1).barrierTimeout(java.time.Duration.ofSeconds(10))
                .shareSubject(Subject.command(ShareTwinMain.template("share") + " lock-ms=60000")));

        wasNotRun(x).startsWith("the injection point was never reached: A did not reach ").endsWith(" after its first "
                + "acknowledgement within PT10S");
    }

    @Test
    void aBThatNeverAcknowledgesLeavesTheGroupUndrainedAndTheExperimentNotRun(LocalKafka kafka) throws Exception {
        // the reference as A; B stalls after its first record's transaction, before acknowledging it
        ExperimentEvidence x = only(share(kafka, Experiments.shareCrash(), 10)
                .shareSubject(Subject.command(ShareTwinMain.template("share") + " stall-b=60000"))
                .drainTimeout(java.time.Duration.ofSeconds(6)));

        wasNotRun(x).isEqualTo("the group did not drain after the recovery: not done within 6 s (the lab's drain timeout, "
                + "LabSettings.drainTimeout: a share group's timeouts are not read on the wire)");
    }

    // ---- share-poison: what became of a record no consumer can read, as the wire saw it

    @Test
    void theReferenceShareConsumerQuarantinesThePoisonAndAcceptsItOnce(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.sharePoison(), 10));

        passed(x);
        assertThat(x.checks()).filteredOn(c -> c.name().equals("the poison record's fate is the consumer's word")).singleElement()
                .satisfies(c -> assertThat(c.actual()).isEqualTo("ACCEPT at delivery 1"));
    }

    @Test
    void aConsumerThatRejectsThePoisonMeantItAndPasses(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.sharePoison(), 10)
                .shareSubject(Subject.command(ShareTwinMain.template("share-reject-malformed"))));

        passed(x);
        assertThat(x.checks()).filteredOn(c -> c.name().equals("the poison record's fate is the consumer's word")).singleElement()
                .satisfies(c -> assertThat(c.actual()).isEqualTo("REJECT at delivery 1"));
        assertThat(x.events()).extracting(ev -> ev.payload()).filteredOn(p -> p instanceof TargetEvent.OracleVerdict).singleElement()
                .satisfies(p -> assertThat(((TargetEvent.OracleVerdict) p).counts()).as("a REJECTed poison is the consumer's word on it")
                        .containsEntry("rejected", 0L).containsEntry("archived", 0L).containsEntry("malformed", 1L));
    }

    @Test
    void aConsumerThatReleasesThePoisonEveryTimeLosesItToTheBrokersArchiveAndFails(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.sharePoison(), 10)
                .shareSubject(Subject.command(ShareTwinMain.template("share-release-malformed"))));

        failedItsChecks(x).containsPattern("the poison record rl-[0-9a-f]+\\.share-poison\\.source-0@10 was archived after 5 deliveries "
                + "with nobody's word for it \\(5 deliveries, acknowledgements: RELEASE accepted, RELEASE accepted, RELEASE accepted, RELEASE accepted, "
                + "RELEASE accepted\\): the consumer lost it");
        assertThat(x.outcome().reason()).containsPattern("archived by the broker with nobody's word for it, 1 message id\\(s\\): p0@10 \\(malformed\\) "
                + "archived after 5 deliveries");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no record archived with nobody's word for it")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.FAIL));
        assertThat(x.environment().get("delivery count limit")).isEqualTo("5 (the group's share.delivery.count.limit)");
    }

    @Test
    void withoutTheWireWitnessTheExperimentIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.sharePoison(), 10).witness(false));

        wasNotRun(x).contains("no wire witness");
    }

    @Test
    void aShareConsumerThatBypassesTheProxyLeavesTheWireBlindAndIsNotRun(LocalKafka kafka) throws Exception {
        Subject direct = Subject.javaMain(ReferenceSubject.class.getName(), ReferenceSubject.jvm("share-consume"),
                List.of("consume", "--group-type", "share", "--bootstrap-server", kafka.bootstrapServers(), "--topic", "{topic}", "--group", "{group}",
                        "--db", "{db}", "--namespace", "{namespace}", "--instance-id", "{instance}"), "the reference share consumer, straight to the broker");
        ExperimentEvidence x = only(share(kafka, Experiments.sharePoison(), 10).shareSubject(direct));

        wasNotRun(x).contains("the wire saw no delivery of the poison record").contains("{bootstrap}");
    }

    @Test
    void aConsumerThatNeverGetsPastThePoisonIsNotRunAfterTheDrainTimeout(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = withAConsumerThatAcknowledgesNothing(kafka, Experiments.sharePoison(), 10);

        wasNotRun(x).contains("the share group did not get past every record").contains("within PT3S");
    }

    @Test
    void aConsumerGroupsConsumerGivenTheShareGroupIsNotRunNamingWhatItIs(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.sharePoison(), 10).shareSubject(Subject.command(BrokenSubjectMain.template("stall")))
                .drainTimeout(java.time.Duration.ofSeconds(10)));

        wasNotRun(x).contains("joined").contains("as another kind of group").contains("need a share group's consumer");
    }

    // ---- share-replay: a share group's start offsets reset through the guards, every record again, no second effect

    @Test
    void theReferenceShareConsumerGetsEveryRecordAgainAfterTheResetAndTheTargetDoesNotChange(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareReplay(), 20));

        passed(x);
        assertThat(x.checks()).extracting(c -> c.name()).contains("plan and previous offsets saved before the reset",
                "reset executed only for a share group without members, in the lab's namespace", "reset landed on every partition", "records delivered again");
        assertThat(x.limitations()).anyMatch(l -> l.contains("a share group's reset moves only its start offsets"));
        assertThat(x.artifacts()).anyMatch(a -> a.path().startsWith("plans/") && a.path().endsWith(".plan.json"));
    }

    @Test
    void aShareConsumerWithoutInboxAppliesTheReplayAgainAndFailsNamingTheDoubledIds(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareReplay(), 20)
                .shareSubject(Subject.command(ShareTwinMain.template("share-no-inbox"))));

        failedItsChecks(x).containsPattern("a second effect of 20 message id\\(s\\): rl-[0-9a-f]+\\.share-replay-\\d+");
    }

    @Test
    void aShareConsumerWithoutAProcessingLogIsNotRunBecauseTheRedeliveryCannotBeConfirmed(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(share(kafka, Experiments.shareReplay(), 20)
                .shareSubject(Subject.command(ShareTwinMain.template("share") + " no-log=1")));

        wasNotRun(x).contains("writes no processing log").contains("cannot confirm that it got the records again");
    }

    @Test
    void aConsumerThatAcknowledgesNothingIsNotRunAfterTheDrainTimeout(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = withAConsumerThatAcknowledgesNothing(kafka, Experiments.shareReplay(), 20);

        wasNotRun(x).contains("the share consumer did not acknowledge every record of").contains("within PT3S");
    }
}
