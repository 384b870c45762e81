package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.barrier.BarrierEvent;
import io.replaylab.harness.lab.Subject;
import java.nio.file.Files;
import java.nio.file.Path;

import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.PythonConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab on the handbook's kind of consumer: a serial Python program on librdkafka, reached only
 * through its command line, the wire barrier and a target query.
 */
@LocalKafkaTest
class PythonSubjectTest {
    @TempDir
    Path dir;

    @Test
    void aLibrdkafkaConsumerPassesReplayRebalanceAndRebuildThroughTheWireBarrier(LocalKafka kafka) throws Exception {
        LabSettings settings = Runs.on(kafka, dir.resolve("runs")).records(60)
                .subject(Subject.command(PythonConsumer.template(dir, false))).targetQuery(PythonConsumer.TARGET_QUERY).build();

        Lab.LabResult r = Lab.run(settings, null);

        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("replay", "rebalance", "rebuild");
        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason())
                .isEqualTo(Status.PASS));
        ExperimentEvidence rebalance = experiment(r.evidence(), "rebalance");
        assertThat(rebalance.environment().get("barrier")).isEqualTo("wire (the subject's program 'python3' is not java: the JVM debugger cannot hold it)");
        BarrierEvent.BarrierReached reached = rebalance.events().stream().map(e -> e.payload()).filter(BarrierEvent.BarrierReached.class::isInstance)
                .map(BarrierEvent.BarrierReached.class::cast).findFirst().orElseThrow();
        assertThat(reached.context()).containsEntry("api.version", "7").containsEntry("client.id", "rebalance-A"); // librdkafka 2.0's OffsetCommit
        BarrierEvent.CommitRejected rejected = rebalance.events().stream().map(e -> e.payload()).filter(BarrierEvent.CommitRejected.class::isInstance)
                .map(BarrierEvent.CommitRejected.class::cast).findFirst().orElseThrow();
        assertThat(rejected.exception()).isIn("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "REBALANCE_IN_PROGRESS");
        assertThat(Files.readString(r.runDir().resolve("logs/rebalance-A.out"))).as("librdkafka gave the program the broker's answer")
                .contains("commit failed");
    }

    /** librdkafka's own default reset: a new group starts at the log end, past every record produced before it joined. */
    @Test
    void aConsumerThatResetsToTheLogEndFailsNamingTheRecordsItSkippedAndHow(LocalKafka kafka) throws Exception {
        LabSettings settings = Runs.on(kafka, dir.resolve("runs")).records(20)
                .experiments(Experiments.replay()).subject(Subject.command(PythonConsumer.template(dir, "--offset-reset latest")))
                .targetQuery(PythonConsumer.TARGET_QUERY).build();

        Lab.LabResult r = Lab.run(settings, null);

        ExperimentEvidence replay = experiment(r.evidence(), "replay");
        failedItsChecks(replay).matches("records skipped: client replay-A reset \\S+\\.source-[0-9] to its log end [1-9][0-9]* \\(ListOffsets "
                + "LATEST\\) with no committed offset \\(auto\\.offset\\.reset=latest\\), and the record below it, \\S+@[0-9]+ \\(\\S+\\), has no "
                + "effect: every record of \\S+ from 0 to [1-9][0-9]* that nobody applied is lost for good");
    }

    @Test
    void aLibrdkafkaConsumerPassesWireFaultsOnItsCommitAndItsOffsetFetch(LocalKafka kafka) throws Exception {
        LabSettings settings = Runs.on(kafka, dir.resolve("runs")).records(30)
                .experiments(Experiments.wireFaults(java.util.stream.Stream.of("offset-commit:lost-answer", "offset-commit:error=NOT_COORDINATOR",
                        "offset-fetch:rewind=5").map(WireFaultCell::parse).toList()))
                .subject(Subject.command(PythonConsumer.template(dir, false))).targetQuery(PythonConsumer.TARGET_QUERY).build();

        Lab.LabResult r = Lab.run(settings, null);

        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason())
                .isEqualTo(Status.PASS));
        ExperimentEvidence lost = experiment(r.evidence(), "wire-faults.offset-commit.lost-answer");
        assertThat(lost.outcome().confirmation().toString()).contains("the broker answered {NONE=1}; that answer was dropped");
        assertThat(lost.events().stream().map(e -> e.payload()).filter(BarrierEvent.CommitWitnessed.class::isInstance).map(BarrierEvent.CommitWitnessed.class::cast))
                .as("librdkafka's commits on the wire, stored").anyMatch(BarrierEvent.CommitWitnessed::accepted);
    }

    @Test
    void itsTwinWithoutTheInboxCheckFailsTheRebalanceWithASecondEffect(LocalKafka kafka) throws Exception {
        LabSettings settings = Runs.on(kafka, dir.resolve("runs")).records(60)
                .experiments(Experiments.rebalance()).subject(Subject.command(PythonConsumer.template(dir, true))).targetQuery(PythonConsumer.TARGET_QUERY).build();

        Lab.LabResult r = Lab.run(settings, null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        failedItsChecks(x);
        assertThat(x.checks()).filteredOn(c -> c.status() == Status.FAIL).extracting(c -> c.name()).contains("no second effect from the old/new collision");
    }
}
