package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Offsets;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

@LocalKafkaTest
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

    @Test
    void aPartitionMovingToAnotherMemberIsSeenWithTheDescriptionThatShowsIt(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        PartitionRef p0 = new PartitionRef(ns.topic(), 0);
        AtomicBoolean stop = new AtomicBoolean();
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            KafkaConsumer<String, String> a = Clients.consumer(kafka.bootstrapServers(), ns.group());
            a.subscribe(List.of(ns.topic()));
            while (a.assignment().isEmpty()) {
                a.poll(Duration.ofMillis(100));
            }
            Set<String> owners = ops.describe(ns.group()).members().stream().map(GroupMember::memberId).collect(Collectors.toSet());
            assertThat(ops.awaitOwnerChange(ns.group(), Set.of(p0), owners, Duration.ofMillis(600), s -> { })).as("A still owns it").isEmpty();

            Thread b = new Thread(() -> { // B joins and keeps polling; A leaves, so the partition moves to B
                try (KafkaConsumer<String, String> c = Clients.consumer(kafka.bootstrapServers(), ns.group())) {
                    c.subscribe(List.of(ns.topic()));
                    while (!stop.get()) {
                        c.poll(Duration.ofMillis(100));
                    }
                }
            });
            b.start();
            a.close();
            List<OffsetSnapshot> looks = new ArrayList<>();
            try {
                Set<String> growing = new HashSet<>(owners);
                assertThat(ops.awaitOwnerChange(ns.group(), Set.of(p0), growing, Duration.ofSeconds(3), s -> s.members().forEach(m -> growing.add(m.memberId()))))
                        .as("a look that counts every member among the previous owners, B too, sees no change").isEmpty();
                assertThat(growing).as("B was looked at").hasSizeGreaterThan(owners.size());
                OffsetSnapshot moved = ops.awaitOwnerChange(ns.group(), Set.of(p0), owners, Duration.ofSeconds(30), looks::add).orElseThrow();
                assertThat(moved.members()).anyMatch(m -> !owners.contains(m.memberId()) && m.assignment().contains(p0));
                assertThat(looks.get(looks.size() - 1)).isEqualTo(moved);
            } finally {
                stop.set(true);
                b.join();
            }
        }
    }
}
