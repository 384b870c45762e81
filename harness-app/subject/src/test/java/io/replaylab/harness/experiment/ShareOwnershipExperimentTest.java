package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.faultNotObserved;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.only;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import io.replaylab.barrier.HoldMode;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.harness.subject.ReferenceSubject;
import io.replaylab.harness.subject.ShareTwinMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.assertj.core.api.ListAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

/** share-ownership on the real broker: the reference share consumer and its defective twins. */
@LocalKafkaTest
// two at a time (the module's surefire settings): mostly waits out share sessions and acquisition locks
@Execution(ExecutionMode.CONCURRENT)
class ShareOwnershipExperimentTest {
    @TempDir
    Path dir;

    /**
     * Asserts that share-ownership PASSed as it does for a correct consumer: A held before acknowledging, its lock expired while A
     * stayed a member, B got the record again and handled it as a duplicate, and A's late acknowledgement was refused on the wire and
     * reported by A's client as {@code clientReported}; the events' summaries, for what a client does beyond that.
     */
    static ListAssert<String> passedWithTheStaleAcknowledgementRefused(ExperimentEvidence x, String clientReported) {
        passed(x).matches("A held before acknowledging rl-[0-9a-f]+\\.share-ownership-\\d+ \\(event \\d+\\), "
                + "its lock expired and B got it again \\(event \\d+\\), A's acknowledgement refused");
        return assertThat(x.events().stream().map(ev -> ev.payload().summary()).toList())
                .anyMatch(t -> t.contains("B got") && t.contains("delivery 2") && t.contains("handled it as duplicate")
                        && t.contains("still a member (its heartbeats go on while its thread is held): the lock expired"))
                .anyMatch(t -> t.contains("late acknowledgement") && t.contains("refused: the broker answered INVALID_RECORD_STATE on the wire; "
                        + "A's client reported " + clientReported));
    }

    private LabSettings.Builder settings(LocalKafka kafka) {
        return on(kafka, dir.resolve("runs")).records(20)
                .experiments(Experiments.shareOwnership());
    }

    @Test
    void theReferenceShareConsumerPassesItsLockExpiringWhileHeldBAppliesNothingAgainAndAsStaleAcknowledgementIsRefused(LocalKafka kafka)
            throws Exception {
        ExperimentEvidence x = only(settings(kafka));

        passedWithTheStaleAcknowledgementRefused(x, "org.apache.kafka.common.errors.InvalidRecordStateException")
                .anyMatch(t -> t.startsWith("on the wire: ") && t.contains("share-ownership-B"));
        assertThat(x.environment().get("record lock")).isEqualTo("4000 ms (the group's share.record.lock.duration.ms)");
    }

    @Test
    void aShareConsumerWithoutInboxFailsNamingTheDoubledId(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share-no-inbox"))));

        failedItsChecks(x).containsPattern("a second effect of \\d+ message id\\(s\\): rl-[0-9a-f]+\\.share-ownership-\\d+");
    }

    @Test
    void withoutAShareConsumerTheExperimentIsNotRunNamingTheSetting(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(LabSettings.custom().subject(ReferenceSubject.consume()).bootstrap(kafka.bootstrapServers())
                .workDir(dir.resolve("runs")).records(5).experiments(Experiments.shareOwnership()));

        wasNotRun(x).contains("no share consumer to test").contains("LabSettings.shareSubject");
    }

    @Test
    void aShareConsumerThatIsNotAJvmNeedsTheWireAndWithoutItsProxyIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command("/usr/bin/python3 -c pass {group}")).witness(false));

        wasNotRun(x).isEqualTo("the share consumer is not a JVM (no debugger can hold it), and this run has no wire proxy to hold "
                + "its acknowledgement (LabSettings.witness(false))");
    }

    @Test
    void onTheWireBarrierTheReferenceShareConsumerPassesItsAcknowledgementHeldInTheProxy(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).barrier(BarrierKind.WIRE));

        passed(x);
        assertThat(x.environment().get("barrier")).startsWith("wire: A's acknowledgement request");
        assertThat(x.events()).extracting(ev -> ev.payload().summary())
                .anyMatch(t -> t.contains("B got") && t.contains("delivery 2"))
                .anyMatch(t -> t.contains("late acknowledgement") && t.contains("the broker answered INVALID_RECORD_STATE on the wire"));
    }

    @Test
    void aConsumerThatNeverAcknowledgesAShareRecordIsNotRunNamingThePoint(LocalKafka kafka) throws Exception {
        // a consumer-group consumer given the share group's id: it never calls KafkaShareConsumer#acknowledge
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(BrokenSubjectMain.template("stall")))
                .barrierTimeout(java.time.Duration.ofSeconds(4)));

        wasNotRun(x).isEqualTo("the injection point was never reached: A did not call "
                + "org.apache.kafka.clients.consumer.KafkaShareConsumer#acknowledge within PT4S (does it acknowledge explicitly: "
                + "share.acknowledgement.mode=explicit?)");
    }

    @Test
    void aShareConsumerWithoutAProcessingLogIsNotRunBecauseTheHeldRecordCannotBeNamed(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share") + " no-log=1")));

        wasNotRun(x).contains("names no record it applied: the lab cannot tell which record's lock to watch");
    }

    @Test
    void aBThatNeverAcknowledgesLeavesTheRedeliveryUnconfirmedAndFailsAsFaultNotObserved(LocalKafka kafka) throws Exception {
        // the reference as A; B stalls after its first record's transaction, before acknowledging it
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share") + " stall-b=60000"))
                .barrierTimeout(java.time.Duration.ofSeconds(12)));

        faultNotObserved(x).matches("no redelivery: B did not acknowledge any record within PT12S after A's lock on "
                + "rl-[0-9a-f]+\\.share-ownership-\\d+ had run out");
    }

    @Test
    void aConsumerThatLengthensItsGroupsLockKeepsTheHeldRecordSoBGetsAnotherAndTheRedeliveryIsNotObserved(LocalKafka kafka) throws Exception {
        // the application sets its own group's lock to 60 s as it starts, over the lab's 4 s: A's record is still A's when B starts
        // (and so may be the one after it, when A's client fetched ahead: B's first is a later one, never the held one)
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share") + " lock-ms=60000")));

        faultNotObserved(x).matches("no redelivery: B's first record was rl-[0-9a-f]+\\.share-ownership-\\d+ \\(offset [1-9]\\d*, delivery 1\\), "
                + "not rl-[0-9a-f]+\\.share-ownership-\\d+ again, after A held it unacknowledged past its 4000 ms lock; the group's "
                + "share.record.lock.duration.ms is now 60000 ms, not the lab's 4000 ms: something else set it");
    }

    @Test
    void anAcknowledgementThatNeverLeavesAIsNotRefusedSoTheFaultIsNotObserved(LocalKafka kafka) throws Exception {
        // A hangs after acknowledge() of the held record, before the commitSync that would send it
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share") + " hang-after-ack=1")));

        faultNotObserved(x).isEqualTo("the stale acknowledgement was not refused: no answer to A's acknowledgement within PT10S "
                + "(wire or processing log) (B held the record, delivery 2)");
    }

    @Test
    void membersThatStopAfterTheHandoffLeaveTheShareGroupUndrainedAndTheExperimentNotRun(LocalKafka kafka) throws Exception {
        // both members handle the held record (A applies it, B finds it in the inbox), then stall on their next one
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share") + " stall-after=1"))
                .drainTimeout(java.time.Duration.ofSeconds(6)));

        wasNotRun(x).isEqualTo("the group did not drain after the recovery: not done within 6 s (the lab's drain timeout, LabSettings.drainTimeout: a share group's timeouts are not read on the wire)");
        assertThat(x.checks()).anyMatch(c -> c.name().equals("A's stale acknowledgement refused by the broker") && c.status() == Status.PASS);
    }

    @Test
    void aFrozenAIsRemovedAfterTheShareSessionTimeoutYetItsRecordComesBackOnlyWhenItsLockRunsOutAndTheEvidenceSaysSo(LocalKafka kafka)
            throws Exception {
        ExperimentEvidence x = only(settings(kafka).holdMode(HoldMode.PROCESS));

        passed(x);
        assertThat(x.environment().get("hold mode")).startsWith("process: A's whole JVM frozen");
        assertThat(x.environment().get("record lock")).isEqualTo("21000 ms (the group's share.record.lock.duration.ms)");
        assertThat(x.events()).extracting(ev -> ev.payload().summary())
                .anyMatch(t -> t.startsWith("the broker removed frozen A from the share group"))
                .anyMatch(t -> t.startsWith("at A's removal a probe member got rl-") && t.matches(".*\\(offset [1-9]\\d*, delivery 1\\).*")
                        && t.endsWith("is still A's, locked; the probe killed before its acknowledgement"))
                .anyMatch(t -> t.contains("B got") && t.contains("delivery 2") && t.contains("no longer a member (removed after the share session "
                        + "timeout), yet the record came back only when its lock ran out: at A's removal it was still A's"))
                .anyMatch(t -> t.contains("late acknowledgement") && t.contains("refused: the broker answered INVALID_RECORD_STATE on the wire"));
    }
}
