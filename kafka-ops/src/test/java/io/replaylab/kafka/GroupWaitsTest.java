package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.testing.LocalKafkaExtension;
import io.replaylab.kafka.testing.Offsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LocalKafkaExtension.class)
class GroupWaitsTest {

    @Test
    void drainedMeansEveryPartitionCommittedAtItsEndAndAnEmptyPartitionNeedsNoCommit(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 2);
        Clients.fill(kafka.bootstrapServers(), ns.topic(), 1, 5); // partition 0 only; partition 1 stays empty
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 3);
            List<OffsetSnapshot> seen = new ArrayList<>();
            assertThat(ops.awaitDrained(ns.group(), ns.topic(), Duration.ofMillis(800), seen::add)).isEmpty();
            assertThat(seen).isNotEmpty();

            Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 5);
            OffsetSnapshot drained = ops.awaitDrained(ns.group(), ns.topic(), Duration.ofSeconds(10), s -> { }).orElseThrow();
            assertThat(drained.partitions()).extracting(PartitionOffsets::partition).containsExactly(0, 1);
            assertThat(drained.totalLag()).isZero();
        }
    }

    @Test
    void aGroupWithoutMembersIsInactiveAtOnce(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 0);
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            assertThat(ops.awaitInactive(ns.group(), Duration.ofSeconds(5)).state()).isEqualTo(GroupState.EMPTY);
            assertThat(ops.awaitInactive(ns.group("never"), Duration.ofSeconds(5)).state()).isEqualTo(GroupState.NOT_FOUND);
        }
    }
}
