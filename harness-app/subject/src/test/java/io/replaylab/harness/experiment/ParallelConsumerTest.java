package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.on;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import io.replaylab.barrier.BarrierEvent;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.PythonConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A parallel librdkafka consumer the lab was not written around (kafka-ops' {@code parallel_consumer.py}): four workers finish
 * records out of order. The correct one commits the end of each partition's completed prefix, so its first commits move nothing
 * while offset 0 is in flight; the wire barrier used to hold such a commit, and rebalance was NOT_RUN ("does the subject commit
 * offsets before its DB commit?"). Its twin commits the highest finished offset, past records still in flight.
 */
@LocalKafkaTest
class ParallelConsumerTest {
    private static final String TARGET_QUERY = "SELECT id AS message_id, amount FROM p_ledger WHERE ns = {namespace}";

    @TempDir
    Path dir;

    private LabSettings.Builder parallel(LocalKafka kafka, String commit) {
        String template = "'" + PythonConsumer.python() + "' '" + PythonConsumer.copy(dir, "parallel_consumer.py") + "' --bootstrap {bootstrap} "
                + "--topic {topic} --group {group} --db {db} --namespace {namespace} --instance {instance}";
        return on(kafka, dir.resolve(commit)).records(30).subject(Subject.command(template).env("COMMIT", commit)).targetQuery(TARGET_QUERY)
                .experiments(Experiments.rebalance(), Experiments.commitAhead());
    }

    @Test
    void aCorrectParallelCommitterIsHeldAtItsFirstCommitThatMovesAPartitionAndPasses(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(parallel(kafka, "prefix").build(), null);

        for (String name : new String[] {"rebalance", "commit-ahead"}) {
            ExperimentEvidence x = experiment(r.evidence(), name);
            assertThat(x.outcome().status()).as(name + ": " + x.outcome().reason()).isEqualTo(Status.PASS);
        }
        ExperimentEvidence rebalance = experiment(r.evidence(), "rebalance");
        assertThat(rebalance.events()).extracting(ev -> ev.payload()).filteredOn(BarrierEvent.BarrierReached.class::isInstance)
                .singleElement().satisfies(p -> assertThat(((BarrierEvent.BarrierReached) p).context().get("offsets"))
                        .as("a commit that moves its partition: past offset 0").doesNotEndWith("=0"));
    }

    @Test
    void aParallelCommitterOfTheHighestFinishedOffsetFailsCommitAheadNamingTheRecordsItPassed(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(parallel(kafka, "highest").build(), null);

        // killed at the commit ahead: the records still in flight are lost, or, when a worker wins the race and their effects land before
        // the kill (seen once in CI: it PASSed then), nothing is lost that time; the commit ahead FAILs it either way
        ExperimentEvidence x = experiment(r.evidence(), "commit-ahead");
        Runs.failedCheck(x, CommitAheadExperiment.NO_COMMIT_AHEAD).startsWith("commit-ahead-A sent a commit of ").endsWith(": a crash there loses them");
        assertThat(Defect.COMMITS_AHEAD.verdict(x)).isEqualTo(Defect.Verdict.CAUGHT);
    }
}
