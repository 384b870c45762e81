package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.only;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.harness.subject.ShareTwinMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** share-crash on the real broker: a kill at the DB commit loses nothing for the reference, the record for an acknowledge-first twin. */
@LocalKafkaTest
class ShareCrashExperimentTest {
    @TempDir
    Path dir;

    private LabSettings.Builder settings(LocalKafka kafka) {
        return on(kafka, dir.resolve("runs")).records(10)
                .experiments(Experiments.shareCrash());
    }

    @Test
    void theReferenceShareConsumerCrashedAtItsDbCommitLosesNothingItsRecordComesBackToB(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka));

        passed(x).isEqualTo("A crashed at its DB commit, after its first acknowledgement");
    }

    @Test
    void aShareConsumerThatAcknowledgesBeforeItsTransactionLosesTheRecordAtTheCrashAndFailsNamingIt(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share-ack-first"))));

        failedItsChecks(x).containsPattern("effect lost of 1 message id\\(s\\): rl-[0-9a-f]+\\.share-crash-\\d+");
        assertThat(x.events()).extracting(ev -> ev.payload().summary()).anyMatch(t -> t.startsWith("A crashed at its DB commit; its accepted "
                + "acknowledgements on the wire: ") && t.contains("ACCEPT"))
                .as("the passive live check lists each acknowledgement sent before its effect")
                .anyMatch(t -> t.startsWith("acknowledgement ahead of the database: share-crash-A"));
    }

    @Test
    void aShareConsumerThatRejectsTheRecordRedeliveredAfterTheCrashLosesItByItsOwnWordAndFails(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share-reject-redelivered"))));

        failedItsChecks(x).containsPattern("rejected by the consumer, its effect lost, \\d+ message id\\(s\\): rl-[0-9a-f]+\\.share-crash-\\d+ "
                + "\\(p0@\\d+\\) rejected by the consumer at delivery 2");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no readable record rejected without its effect")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.FAIL));
    }

    @Test
    void aShareConsumerThatIsNotAJvmIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command("/usr/bin/python3 -c pass {group}")));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).startsWith("the share consumer is not a JVM: A is held by a debugger breakpoint at its DB commit");
    }

    @Test
    void aConsumerThatNeverAcknowledgesAShareRecordNeverEndsTheWarmUpAndIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(BrokenSubjectMain.template("stall")))
                .barrierTimeout(java.time.Duration.ofSeconds(4)));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).isEqualTo("the injection point was never reached: A did not call "
                + "org.apache.kafka.clients.consumer.KafkaShareConsumer#acknowledge (the warm-up) within PT4S");
    }

    @Test
    void aSourceOfOneRecordLeavesNoDbCommitAfterTheWarmUpAndIsNotRun(LocalKafka kafka) throws Exception {
        // long enough for A to start, join and acknowledge its one record: the wait that ends NOT_RUN is the one after it.
        // The reference with a lock of 60 s for its group (over the lab's 4 s): under load its first acknowledgement once came
        // after the lab's lock ran out, the record came back and its second DB commit was the point (a PASS)
        ExperimentEvidence x = only(settings(kafka).records(1).barrierTimeout(java.time.Duration.ofSeconds(10))
                .shareSubject(Subject.command(ShareTwinMain.template("share") + " lock-ms=60000")));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).startsWith("the injection point was never reached: A did not reach ").endsWith(" after its first "
                + "acknowledgement within PT10S");
    }

    @Test
    void aBThatNeverAcknowledgesLeavesTheGroupUndrainedAndTheExperimentNotRun(LocalKafka kafka) throws Exception {
        // the reference as A; B stalls after its first record's transaction, before acknowledging it
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share") + " stall-b=60000"))
                .drainTimeout(java.time.Duration.ofSeconds(6)));

        wasNotRun(x).isEqualTo("the group did not drain after the recovery: not done within 6 s (the lab's drain timeout, "
                + "LabSettings.drainTimeout: a share group's timeouts are not read on the wire)");
    }
}
