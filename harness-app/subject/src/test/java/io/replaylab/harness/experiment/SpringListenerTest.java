package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.failed;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.oracle.testing.LocalPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spring Kafka listener on PostgreSQL, written as a Spring user writes one (container defaults: BATCH acknowledgement,
 * synchronous commits; the Java client's timeouts), judged by replay and rebalance: docs/recipes/spring-on-postgres.md.
 */
@LocalKafkaTest
class SpringListenerTest {
    static final String TARGET_QUERY = "SELECT payment_id AS message_id, amount FROM payment_ledger WHERE ns = {namespace}";

    private final LocalPostgres pg = LocalPostgres.shared();

    @TempDir
    Path dir;

    private LabSettings.Builder spring(LocalKafka kafka, String... twin) {
        String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("{bootstrap}", "{topic}", "{group}", "{db}", "{namespace}", "{instance}"),
                java.util.stream.Stream.of(twin)).toArray(String[]::new);
        return Runs.on(kafka, dir.resolve("runs")).records(30).stopGrace(Duration.ofSeconds(10))
                .target(pg.createDatabase(), LocalPostgres.USER, LocalPostgres.PASSWORD).subject(Subject.javaMain(SpringPaymentsListener.class, args))
                .targetQuery(TARGET_QUERY);
    }

    @Test
    void aSpringListenerWithTheContainersDefaultsPassesReplayAndRebalanceHeldAtItsJdbcCommit(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(spring(kafka).experiments(Experiments.replay(), Experiments.rebalance()).build(), null);

        for (ExperimentEvidence x : r.evidence().experiments()) {
            assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
        }
        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("replay", "rebalance");
    }

    @Test
    void itsTwinWithoutAnInboxFailsTheReplayNamingASecondEffect(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(spring(kafka, "no-inbox").experiments(Experiments.replay()).build(), null);

        ExperimentEvidence replay = r.evidence().experiments().get(0);
        failed(replay).contains("a second effect of 30 message id(s)");
    }
}
