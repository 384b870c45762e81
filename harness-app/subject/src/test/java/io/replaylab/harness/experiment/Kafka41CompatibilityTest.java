package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.experiment;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Versions;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.broker.LocalKafkaConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handbook's Kafka 4.1.2 stays a tested target while the project builds on a newer Kafka: the
 * default run, schedules and wire-faults PASS for the reference subject on a 4.1.2 broker, started
 * once for this class from the jars module {@code kafka-4.1-broker} copies (surefire names them in
 * {@value #BROKER_CLASSPATH}), in a fresh data dir of its own (a newer kafka-storage formats what an
 * older broker may not read). The subjects and the lab use this build's kafka-clients.
 */
class Kafka41CompatibilityTest {
    static final String BROKER_CLASSPATH = "replaylab.kafka41.classpath";
    private static final String HANDBOOK_BROKER = "4.1.2";

    private static LocalKafka kafka;

    @TempDir
    Path dir;

    @BeforeAll
    static void startTheHandbooksBroker() {
        String classpath = System.getProperty(BROKER_CLASSPATH);
        assertThat(classpath).as("system property " + BROKER_CLASSPATH + " (set by harness-subject's surefire configuration: "
                + "kafka-4.1-broker/target/broker-lib/*; build that module first)").isNotBlank();
        kafka = LocalKafka.create(LocalKafkaConfig.custom().classpath(classpath).build()).start();
        assertThat(kafka.brokerVersion()).contains(HANDBOOK_BROKER);
    }

    @AfterAll
    static void stopIt() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void theDefaultRunPassesOnTheHandbooksBrokerAndTheEvidenceNamesBothVersions() throws Exception {
        Lab.LabResult r = Lab.run(Runs.on(kafka, dir).build(), null);

        assertPass(r.evidence());
        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("replay", "rebalance", "rebuild");
        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.environment())
                .containsEntry("broker", HANDBOOK_BROKER).containsEntry("kafka-clients", Versions.kafkaClients()));
        assertThat(Versions.kafkaClients()).as("the clients are this build's, not the broker's").isNotEqualTo(HANDBOOK_BROKER);
    }

    /**
     * The hold and freeze cells at every point: each ends with A's offset commit reaching the broker after its partition moved,
     * a commit the broker's epoch check decides (the check KIP-1251 relaxed in 4.3 for partitions a member still owns).
     * The crash cells send no commit from the old member
     * (A is killed; its restart joins as a new one), so their verdict does not depend on the broker and they run on the
     * project's broker only (SchedulesExperimentTest).
     */
    @Test
    void schedulesPassOnTheHandbooksBroker() throws Exception {
        List<ScheduleCell> fenced = ScheduleCell.all().stream()
                .filter(c -> c.fault() == ScheduleCell.Fault.HOLD || c.fault() == ScheduleCell.Fault.FREEZE).toList();
        assertThat(fenced).hasSize(6);
        RunEvidence ev = Lab.run(cells().experiments(Experiments.schedules(fenced)).build(), null).evidence();
        assertPass(ev);
        assertThat(ev.experiments()).hasSize(1 + fenced.size());
    }

    @Test
    void wireFaultsPassOnTheHandbooksBroker() throws Exception {
        assertPass(Lab.run(cells().experiments(Experiments.wireFaults()).build(), null).evidence());
    }

    /** As SchedulesExperimentTest and WireFaultsExperimentTest run their matrices: 20 records, two cells side by side. */
    private LabSettings.Builder cells() {
        return Runs.on(kafka, dir).records(20).stopGrace(Duration.ofSeconds(5)).parallel(2);
    }

    private static void assertPass(RunEvidence ev) {
        assertThat(ev.outcome().status()).as(ev.outcome().reason()).isEqualTo(Status.PASS);
        assertThat(ev.experiments()).allSatisfy(x -> {
            assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            assertThat(x.environment()).containsEntry("broker", HANDBOOK_BROKER);
        });
    }
}
