package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.only;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.subject.ShareTwinMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** share-replay on the real broker: a share group's start offsets reset through the guards, every record again, no second effect. */
@LocalKafkaTest
class ShareReplayExperimentTest {
    @TempDir
    Path dir;

    private LabSettings.Builder settings(LocalKafka kafka) {
        return on(kafka, dir.resolve("runs")).records(20)
                .experiments(Experiments.shareReplay());
    }

    @Test
    void theReferenceShareConsumerGetsEveryRecordAgainAfterTheResetAndTheTargetDoesNotChange(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka));

        passed(x);
        assertThat(x.checks()).extracting(c -> c.name()).contains("plan and previous offsets saved before the reset",
                "reset executed only for a share group without members, in the lab's namespace", "reset landed on every partition", "records delivered again");
        assertThat(x.limitations()).anyMatch(l -> l.contains("a share group's reset moves only its start offsets"));
        assertThat(x.artifacts()).anyMatch(a -> a.path().startsWith("plans/") && a.path().endsWith(".plan.json"));
    }

    @Test
    void aShareConsumerWithoutInboxAppliesTheReplayAgainAndFailsNamingTheDoubledIds(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share-no-inbox"))));

        failedItsChecks(x).containsPattern("a second effect of 20 message id\\(s\\): rl-[0-9a-f]+\\.share-replay-\\d+");
    }

    @Test
    void aShareConsumerWithoutAProcessingLogIsNotRunBecauseTheRedeliveryCannotBeConfirmed(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share") + " no-log=1")));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains("writes no processing log").contains("cannot confirm that it got the records again");
    }

    @Test
    void aConsumerThatAcknowledgesNothingIsNotRunAfterTheDrainTimeout(LocalKafka kafka) throws Exception {
        // a share consumer that stalls after its first record's transaction: it acknowledges nothing
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share") + " stall-first=60000"))
                .drainTimeout(java.time.Duration.ofSeconds(3)));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains("the share consumer did not acknowledge every record of").contains("within PT3S");
    }
}
