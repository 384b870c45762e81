package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.passed;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.harness.subject.ReferenceLab;
import java.nio.file.Path;
import java.util.List;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.broker.LocalKafkaCluster;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The durability experiment: a cluster of its own, one leader crash, the acknowledged set against the log. */
@LocalKafkaTest
class DurabilityExperimentTest {
    @TempDir
    Path dir;

    private static ExperimentEvidence durability(Lab.LabResult r) {
        return r.evidence().experiments().stream().filter(x -> x.name().equals("durability")).findFirst().orElseThrow();
    }

    private static List<String> notes(ExperimentEvidence x) {
        return x.events().stream().map(Event::payload).filter(Payload.Note.class::isInstance).map(Payload::summary).toList();
    }

    @Test
    void theSafeSettingsLoseNoAcknowledgedRecordWhereTheUnsafeOnesDo() throws Exception {
        Lab.LabResult r = Lab.run(ReferenceLab.settings().workDir(dir).experiments(Experiments.durability()).build(), null);

        ExperimentEvidence x = durability(r);
        passed(x).matches("unsafe lost \\d+ of 300 acknowledged records under the leader crash; safe lost none");
        assertThat(x.checks()).extracting(Check::name).contains("safe: every acknowledged record is in the log",
                "safe: no acknowledged record twice in the log", "safe: no missing effect (target vs log)", "unsafe: no second effect (target vs log)");
        Payload.Matrix m = Runs.matrix(x);
        assertThat(m.cell("acknowledged but lost", "safe").orElseThrow().status()).isEqualTo("0");
        assertThat(Long.parseLong(m.cell("acknowledged but lost", "unsafe").orElseThrow().status())).isBetween(1L, 100L);
        assertThat(m.cell("acknowledged", "safe").orElseThrow().status()).isEqualTo("300");
        // the schedule, in order, for each configuration
        for (String cfg : List.of("safe", "unsafe")) {
            List<String> steps = notes(x).stream().filter(n -> n.startsWith(cfg + ": ")).toList();
            assertThat(steps).extracting(s -> s.replaceAll("^\\w+: (\\w+ \\w+).*", "$1")).containsSubsequence("before the", "froze follower",
                    "froze follower", "produced 100", "killed the", "thawed broker", "thawed broker", "the leader", "the log");
            assertThat(steps).anyMatch(s -> s.matches(cfg + ": broker \\d elected leader; .* leader \\d, ISR \\[[\\d, ]+\\]"))
                    .anyMatch(s -> s.matches(cfg + ": broker \\d restarted on its data and back in the ISR; .*"))
                    .anyMatch(s -> s.matches(cfg + ": the leader, broker \\d, holds the log up to offset \\d+ \\(read from its files\\) and the high"
                            + " watermark reached it: .*"));
        }
        // the count waited until all the leader holds was readable: it read exactly as many records as the leader's files end at
        for (String cfg : List.of("safe", "unsafe")) {
            String inLog = m.cell("records in the log", cfg).orElseThrow().status();
            assertThat(notes(x)).anyMatch(n -> n.startsWith(cfg + ": the leader, broker ") && n.contains(" holds the log up to offset " + inLog + " "));
        }
        assertThat(notes(x)).anyMatch(n -> n.startsWith("unsafe: produced 100 more while both followers were frozen; the producer saw 100"))
                .anyMatch(n -> n.startsWith("safe: produced 100 more while both followers were frozen; the producer saw 0"));
        assertThat(x.environment()).containsKeys("pid.controller", "pid.broker-1", "pid.broker-2", "pid.broker-3", "configuration safe");
        assertThat(x.limitations()).anyMatch(l -> l.contains("disk loss") && l.contains("network partitions"));
        assertThat(r.runDir().resolve("cluster/broker-2/broker.log")).exists();
        assertThat(r.runDir().resolve("cluster/controller/broker.log")).exists();
    }

    @Test
    void aRunWhoseConsumerHasItsOwnShapeIsNotRunBecauseDurabilityProducesTheReferenceShapeItself(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(ReferenceLab.settings().bootstrap(kafka.bootstrapServers()).workDir(dir).experiments(Experiments.durability())
                .source(io.replaylab.harness.lab.RecordSource.shaped("{id}", "{\"paymentId\":\"{id}\",\"amountCents\":{amount}}")
                        .mapping(io.replaylab.oracle.SourceMapping.of("key", "json:/amountCents", 0))).build(), null);

        assertThat(durability(r).outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(durability(r).outcome().reason()).startsWith("durability produces its own records in the reference shape");
    }

    @Test
    void anExternalClusterWithFewerThanThreeBrokersIsNotRun(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(ReferenceLab.settings().bootstrap(kafka.bootstrapServers()).workDir(dir).experiments(Experiments.durability()).build(), null);

        assertThat(durability(r).outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(durability(r).outcome().reason()).isEqualTo("needs 3 brokers: the cluster at " + kafka.bootstrapServers() + " has 1");
    }

    @Test
    void anExternalClusterOfThreeIsNotRunBecauseOnlyBrokersTheLabStartsCanBeKilled(LocalKafkaCluster cluster) throws Exception {
        Lab.LabResult r = Lab.run(ReferenceLab.settings().bootstrap(cluster.bootstrapServers()).workDir(dir).experiments(Experiments.durability()).build(),
                null);

        assertThat(durability(r).outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(durability(r).outcome().reason()).startsWith("replay-lab kills and freezes only brokers it starts");
    }
}
