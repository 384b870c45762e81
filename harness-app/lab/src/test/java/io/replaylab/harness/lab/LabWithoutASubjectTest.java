package io.replaylab.harness.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.experiment.Experiments;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The library has no default subject: an experiment that needs one nobody gave is NOT_RUN naming what to pass, and the run still saves its protocol. */
@LocalKafkaTest
class LabWithoutASubjectTest {
    @TempDir
    Path dir;

    @Test
    void everyExperimentThatStartsASubjectIsNotRunNamingLabSettingsSubject(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(LabSettings.custom().bootstrap(kafka.bootstrapServers()).workDir(dir).records(10)
                .experiments(Experiments.replay(), Experiments.rebalance()).build(), null);

        assertThat(r.evidence().experiments()).hasSize(2).allSatisfy((ExperimentEvidence x) -> {
            assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
            assertThat(x.outcome().reason()).startsWith("no subject to test: give the lab one (LabSettings.subject");
            assertThat(x.environment()).containsEntry("subject", "none given");
        });
        assertThat(r.report()).exists();
    }
}
