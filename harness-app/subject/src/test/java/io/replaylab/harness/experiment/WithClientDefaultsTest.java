package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.on;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer exactly as the Java client's defaults make it (session.timeout.ms 45 s, max.poll.interval.ms 300 s), written
 * apart from the lab: the default run's rebalance used to FAIL on it ("no handoff" after a fixed 2 minutes, while a held
 * thread's heartbeats kept A in the group for 300 s). Its timeouts are read on the wire, its heartbeats withheld, and A is
 * dropped after its 45 s session. Named to start first among the suite's classes: most of its minute is a wait.
 */
@LocalKafkaTest
class WithClientDefaultsTest {
    @TempDir
    Path dir;

    @Test
    void aJavaConsumerWithItsClientsDefaultTimeoutsPassesTheRebalanceHandingOffAtItsSessionTimeout(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir).subject(Subject.command(ForeignSubjectMain.template("client-defaults")))
                .targetQuery(ForeignSubjectMain.TARGET_QUERY).experiments(Experiments.rebalance()).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.PASS);
        assertThat(x.environment().get("A's timeouts")).startsWith("classic protocol, session.timeout.ms 45000, max.poll.interval.ms 300000 (JoinGroup v");
        assertThat(x.events()).extracting(ev -> ev.payload()).anyMatch(p -> p instanceof Payload.Note n
                && n.text().startsWith("the handoff wait is 105 s: A's session timeout is 45 s (classic protocol) and its heartbeats are withheld"));
    }
}
