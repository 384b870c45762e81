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
import io.replaylab.harness.subject.ShareTwinMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** share-ack-ahead on the real broker: every ACCEPT checked against the target on the wire, A killed at its first one ahead. */
@LocalKafkaTest
class ShareAckAheadExperimentTest {
    @TempDir
    Path dir;

    private LabSettings.Builder settings(LocalKafka kafka) {
        return on(kafka, dir.resolve("runs")).records(20)
                .experiments(Experiments.shareAckAhead());
    }

    @Test
    void theReferenceShareConsumerAcceptsEveryRecordOnlyAfterItsEffectAndPasses(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka));

        passed(x).isEqualTo("every acknowledgement of the group checked against the target the moment "
                + "it was sent: 20 covered records, none ahead");
    }

    @Test
    void aShareConsumerThatAcknowledgesBeforeItsTransactionIsKilledThereAndFailsNamingTheLostRecord(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share-ack-first"))));

        failedItsChecks(x).containsPattern("effect lost of 1 message id\\(s\\): rl-[0-9a-f]+\\.share-ack-ahead-0 \\(p0@0");
        assertThat(x.events()).extracting(ev -> ev.payload().summary())
                .anyMatch(t -> t.startsWith("acknowledgement ahead of the database: share-ack-ahead-A"))
                .anyMatch(t -> t.startsWith("share-ack-ahead-A killed at that acknowledgement; asked again once it was dead, 1 record(s) still "
                        + "have no effect"));
    }

    @Test
    void withoutTheWireProxyTheLiveCheckCannotRunAndTheExperimentIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).witness(false));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).isEqualTo("the live check reads each acknowledgement on the wire, and this run has no wire proxy (the "
                + "witness is off)");
    }

    @Test
    void tooFewAcknowledgementsCheckedSayNothingAndTheExperimentIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).records(2));

        wasNotRun(x).isEqualTo("only 2 acknowledgement(s) covering a record were checked (3 needed): too few to say the "
                + "consumer never acknowledges ahead of its database");
    }
}
