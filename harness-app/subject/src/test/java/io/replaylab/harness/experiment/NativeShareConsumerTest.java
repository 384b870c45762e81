package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The share experiments on a share consumer that is not a JVM: C on librdkafka 2.15's share consumer (a preview) and SQLite
 * ({@link NativeShareConsumer}), held on the wire, judged from the broker's answers and its own processing log.
 *
 * <p>librdkafka speaks ShareFetch v1, which has no acquire mode: the broker acquires whole producer batches
 * ({@code batch_optimized}), past {@code max.poll.records=1}. A held at its first acknowledgement holds the locks of every
 * record of its batch; when they expire B gets them all again (delivery 2), and A, released, goes on through its batch,
 * applying records that are B's now (each acknowledgement refused). The inbox makes all of it harmless; without it every
 * record of the batch has a second effect, not only the held one.
 */
@LocalKafkaTest
class NativeShareConsumerTest {
    @TempDir
    Path dir;

    private ExperimentEvidence run(LocalKafka kafka, Experiment experiment, String name, Subject consumer, int records) throws Exception {
        LabSettings.Builder b = Runs.on(kafka, dir.resolve("runs")).records(records)
                .experiments(experiment).shareSubject(consumer).targetQuery(NativeShareConsumer.TARGET_QUERY);
        return experiment(Lab.run(b.build(), null).evidence(), name);
    }

    @Test
    void theCShareConsumerPassesShareOwnershipOnTheWireItsStaleAcknowledgementRefusedByTheBroker(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(kafka, Experiments.shareOwnership(), ShareOwnershipExperiment.NAME, NativeShareConsumer.subject(), 20);

        ShareOwnershipExperimentTest.passedWithTheStaleAcknowledgementRefused(x, "INVALID_RECORD_STATE: Broker: The record state is invalid")
                .as("librdkafka acquires the whole batch: A goes on with records whose locks ran out while it was held")
                .anyMatch(t -> t.matches("after its release A went on with \\d+ more record\\(s\\) it had acquired with .*: their locks had run out "
                        + "while A was held, and each acknowledgement was refused; .*"));
        assertThat(x.environment().get("barrier")).startsWith("wire: A's acknowledgement request");
    }

    @Test
    void itsTwinWithoutInboxFailsShareOwnershipNamingTheHeldIdAmongTheDoubled(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(kafka, Experiments.shareOwnership(), ShareOwnershipExperiment.NAME, NativeShareConsumer.subject().env("NO_INBOX", "1"),
                20);

        failedItsChecks(x);
        // the whole batch A had acquired came back to B, not only the held record (see the class comment)
        assertThat(x.outcome().reason()).containsPattern("a second effect of \\d+ message id\\(s\\): rl-[0-9a-f]+\\.share-ownership-0 x2");
    }

    @Test
    void theCShareConsumerGetsEveryRecordAgainAfterTheResetAndPassesShareReplay(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(kafka, Experiments.shareReplay(), ShareReplayExperiment.NAME, NativeShareConsumer.subject(), 20);

        passed(x);
        assertThat(x.events()).extracting(ev -> ev.payload().summary()).anyMatch(t -> t.contains("share-replay-A2 delivered 20: 0 applied, 20 duplicate"));
    }

    @Test
    void theCShareConsumerQuarantinesThePoisonAndAcceptsItOnce(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(kafka, Experiments.sharePoison(), SharePoisonExperiment.NAME, NativeShareConsumer.subject(), 10);

        passed(x);
        assertThat(x.checks()).filteredOn(c -> c.name().equals("the poison record's fate is the consumer's word")).singleElement()
                .satisfies(c -> assertThat(c.actual()).isEqualTo("ACCEPT at delivery 1"));
    }

    @Test
    void itsTwinThatReleasesThePoisonEveryTimeLosesItToTheBrokersArchiveAndFails(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(kafka, Experiments.sharePoison(), SharePoisonExperiment.NAME, NativeShareConsumer.subject().env("QUARANTINE_ACK", "RELEASE"),
                10);

        failedItsChecks(x).containsPattern("the poison record rl-[0-9a-f]+\\.share-poison\\.source-0@10 was archived after 5 deliveries "
                + "with nobody's word for it");
    }

    @Test
    void theCShareConsumerPassesShareAckAheadAndItsAcknowledgeFirstTwinIsKilledThereAndLosesItsRecord(LocalKafka kafka) throws Exception {
        ExperimentEvidence ok = run(kafka, Experiments.shareAckAhead(), ShareAckAheadExperiment.NAME, NativeShareConsumer.subject(), 20);

        passed(ok).startsWith("every acknowledgement of the group checked against the target");

        ExperimentEvidence first = run(kafka, Experiments.shareAckAhead(), ShareAckAheadExperiment.NAME,
                NativeShareConsumer.subject().env("ACK_FIRST", "1"), 20);

        failedItsChecks(first).containsPattern("effect lost of \\d+ message id\\(s\\): rl-[0-9a-f]+\\.share-ack-ahead-0 \\(p0@0");
        assertThat(first.events()).extracting(ev -> ev.payload().summary())
                .anyMatch(t -> t.startsWith("share-ack-ahead-A killed at that acknowledgement"));
    }
}
