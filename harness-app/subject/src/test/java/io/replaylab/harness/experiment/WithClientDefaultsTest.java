package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.sideBySide;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.RecordSource;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.NodeConsumer;
import io.replaylab.kafka.testing.PythonConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumers exactly as their clients' defaults make them, written apart from the lab: the Java client (session.timeout.ms
 * 45 s, max.poll.interval.ms 300 s), librdkafka (the same), KafkaJS (sessionTimeout 30 s, rebalanceTimeout 60 s, and its autoCommit) and
 * kafka-python (session_timeout_ms 10 s, max_poll_interval_ms 300 s). The default run's rebalance used to FAIL on the first
 * two ("no handoff" after a fixed 2 minutes, while a held thread's heartbeats kept A in the group for 300 s). Their timeouts
 * are read on the wire, A's heartbeats withheld, and A is dropped after its session timeout. The runs go side by side (mostly
 * waits); named to start first among the suite's classes.
 */
@LocalKafkaTest
class WithClientDefaultsTest {
    @TempDir
    Path dir;

    @Test
    void consumersWithTheirClientsDefaultsPassTheRebalanceAtTheirSessionTimeoutAndOneThatCannotReadCommittedIsCaughtOnAbortedRecords(LocalKafka kafka) throws Exception {
        Map<String, LabSettings.Builder> runs = new LinkedHashMap<>();
        runs.put("java", rebalance(kafka, "java").subject(Subject.command(ForeignSubjectMain.template("client-defaults")))
                .targetQuery(ForeignSubjectMain.TARGET_QUERY));
        runs.put("librdkafka", rebalance(kafka, "librdkafka").subject(Subject.command(PythonConsumer.template(dir, "--client-timeouts")))
                .targetQuery(PythonConsumer.TARGET_QUERY));
        runs.put("kafkajs", rebalance(kafka, "kafkajs").subject(Subject.command(NodeConsumer.template() + " --client-defaults"))
                .targetQuery(NodeConsumer.TARGET_QUERY));
        runs.put("kafka-python", rebalance(kafka, "kafka-python").subject(Subject.command(PythonConsumer.kafkaPythonTemplate(dir)))
                .targetQuery(PythonConsumer.KAFKA_PYTHON_TARGET_QUERY));
        // kafka-python has no isolation setting and reads uncommitted: on a source with aborted transactions, a defect of its own
        runs.put(ABORTED, on(kafka, dir.resolve(ABORTED)).experiments(Experiments.replay()).source(RecordSource.reference().withAbortedTransactions())
                .subject(Subject.command(PythonConsumer.kafkaPythonTemplate(dir))).targetQuery(PythonConsumer.KAFKA_PYTHON_TARGET_QUERY));
        Map<String, ExperimentEvidence> done = sideBySide(runs);
        ExperimentEvidence readAborted = done.remove(ABORTED);
        Map<String, String> timeouts = Map.of(
                "java", "classic protocol, session.timeout.ms 45000, max.poll.interval.ms 300000 (JoinGroup v",
                "librdkafka", "classic protocol, session.timeout.ms 45000, max.poll.interval.ms 300000 (JoinGroup v",
                "kafkajs", "classic protocol, session.timeout.ms 30000, max.poll.interval.ms 60000 (JoinGroup v",
                "kafka-python", "classic protocol, session.timeout.ms 10000, max.poll.interval.ms 300000 (JoinGroup v");
        Map<String, String> waits = Map.of("java", "105 s: A's session timeout is 45 s", "librdkafka", "105 s: A's session timeout is 45 s",
                "kafkajs", "90 s: A's session timeout is 30 s", "kafka-python", "70 s: A's session timeout is 10 s");
        done.forEach((client, x) -> {
            assertThat(x.outcome().status()).as(client + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
            assertThat(x.environment().get("A's timeouts")).as(client).startsWith(timeouts.get(client));
            assertThat(x.events()).as(client).extracting(ev -> ev.payload()).anyMatch(p -> p instanceof LabEvent.HandoffWait n
                    && n.summary().startsWith("the handoff wait is " + waits.get(client) + " (classic protocol) and its heartbeats are withheld"));
        });
        Runs.failedItsChecks(readAborted).contains(io.replaylab.harness.lab.LabTarget.NO_ABORTED_EFFECT);
        assertThat(Defect.READS_ABORTED.verdict(readAborted)).isEqualTo(Defect.Verdict.CAUGHT);
    }

    /** The replay of kafka-python's run on a source with aborted transactions. */
    private static final String ABORTED = "kafka-python-aborted";

    private LabSettings.Builder rebalance(LocalKafka kafka, String client) {
        return on(kafka, dir.resolve(client)).experiments(Experiments.rebalance());
    }
}
