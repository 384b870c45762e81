package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.only;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.oracle.TargetEvent;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.harness.subject.ReferenceSubject;
import io.replaylab.harness.subject.ShareTwinMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** share-poison on the real broker: what became of a record no consumer can read, as the wire saw it. */
@LocalKafkaTest
class SharePoisonExperimentTest {
    @TempDir
    Path dir;

    private LabSettings.Builder settings(LocalKafka kafka) {
        return on(kafka, dir.resolve("runs")).records(10)
                .experiments(Experiments.sharePoison());
    }

    @Test
    void theReferenceShareConsumerQuarantinesThePoisonAndAcceptsItOnce(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka));

        passed(x);
        assertThat(x.checks()).filteredOn(c -> c.name().equals("the poison record's fate is the consumer's word")).singleElement()
                .satisfies(c -> assertThat(c.actual()).isEqualTo("ACCEPT at delivery 1"));
    }

    @Test
    void aConsumerThatRejectsThePoisonMeantItAndPasses(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share-reject-malformed"))));

        passed(x);
        assertThat(x.checks()).filteredOn(c -> c.name().equals("the poison record's fate is the consumer's word")).singleElement()
                .satisfies(c -> assertThat(c.actual()).isEqualTo("REJECT at delivery 1"));
        assertThat(x.events()).extracting(ev -> ev.payload()).filteredOn(p -> p instanceof TargetEvent.OracleVerdict).singleElement()
                .satisfies(p -> assertThat(((TargetEvent.OracleVerdict) p).counts()).as("a REJECTed poison is the consumer's word on it")
                        .containsEntry("rejected", 0L).containsEntry("archived", 0L).containsEntry("malformed", 1L));
    }

    @Test
    void aConsumerThatReleasesThePoisonEveryTimeLosesItToTheBrokersArchiveAndFails(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share-release-malformed"))));

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
        ExperimentEvidence x = only(settings(kafka).witness(false));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains("no wire witness");
    }

    @Test
    void aShareConsumerThatBypassesTheProxyLeavesTheWireBlindAndIsNotRun(LocalKafka kafka) throws Exception {
        Subject direct = Subject.javaMain(ReferenceSubject.class.getName(), ReferenceSubject.jvm("share-consume"),
                List.of("consume", "--group-type", "share", "--bootstrap-server", kafka.bootstrapServers(), "--topic", "{topic}", "--group", "{group}",
                        "--db", "{db}", "--namespace", "{namespace}", "--instance-id", "{instance}"), "the reference share consumer, straight to the broker");
        ExperimentEvidence x = only(settings(kafka).shareSubject(direct));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains("the wire saw no delivery of the poison record").contains("{bootstrap}");
    }

    @Test
    void aConsumerThatNeverGetsPastThePoisonIsNotRunAfterTheDrainTimeout(LocalKafka kafka) throws Exception {
        // a share consumer that stalls: it takes records and acknowledges none of them
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(ShareTwinMain.template("share") + " stall-first=60000"))
                .drainTimeout(java.time.Duration.ofSeconds(3)));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains("the share group did not get past every record").contains("within PT3S");
    }

    @Test
    void aConsumerGroupsConsumerGivenTheShareGroupIsNotRunNamingWhatItIs(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = only(settings(kafka).shareSubject(Subject.command(BrokenSubjectMain.template("stall")))
                .drainTimeout(java.time.Duration.ofSeconds(10)));

        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains("joined").contains("as another kind of group").contains("need a share group's consumer");
    }
}
