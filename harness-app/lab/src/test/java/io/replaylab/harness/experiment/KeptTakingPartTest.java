package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.replaylab.kafka.GroupMember;
import io.replaylab.kafka.GroupState;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionRef;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A schedule cell whose watched partition never moved is NOT_RUN, not FAIL, when the group shows A kept taking part: settled with
 * another member in it and the partition still A's, under A's member id or a new one of A's process (told by its client id).
 * Judged on a real group of two consumers whose client ids are A's and B's instance names.
 */
@LocalKafkaTest
class KeptTakingPartTest {
    @Test
    void aGroupThatSettledWithThePartitionStillAProcesssIsNotRunAndOneThatGaveItToBIsNot(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 2);
        try (KafkaConsumer<String, String> a = member(kafka, ns, "cell-A"); KafkaConsumer<String, String> b = member(kafka, ns, "cell-B");
             KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers(), Duration.ofSeconds(10))) {
            OffsetSnapshot now = settled(ops, ns, a, b);
            PartitionRef aOwns = owned(now, "cell-A");
            PartitionRef bOwns = owned(now, "cell-B");

            Optional<String> kept = SchedulesExperiment.keptTakingPart(now, Set.of(aOwns), Set.of("a-member-the-group-no-longer-has"), "cell-A",
                    "held at after-offset-commit", Duration.ofSeconds(25));
            Optional<String> movedToB = SchedulesExperiment.keptTakingPart(now, Set.of(bOwns), Set.of(), "cell-A", "held at after-offset-commit",
                    Duration.ofSeconds(25));

            assertThat(kept).hasValueSatisfying(r -> assertThat(r).isEqualTo("A kept taking part in the group while held at "
                    + "after-offset-commit: the group settled (Stable, 2 members, the new one(s) in it) with " + aOwns + " still A's for PT25S; "
                    + "holding this step did not take A out of the group (A stayed a member, or its process joined again as a new one and was "
                    + "given it back), so it cannot move it: this fault needs a consumer whose membership waits for the held step"));
            assertThat(movedToB).as("B owns it: no reason to excuse a missing handoff").isEmpty();
        }
    }

    private static KafkaConsumer<String, String> member(LocalKafka kafka, LabNamespace ns, String clientId) {
        KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, ns.group(), ConsumerConfig.CLIENT_ID_CONFIG, clientId, ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()));
        c.subscribe(List.of(ns.topic()));
        return c;
    }

    /** Both poll until the group is stable with a partition each. */
    private static OffsetSnapshot settled(KafkaOps ops, LabNamespace ns, KafkaConsumer<String, String> a, KafkaConsumer<String, String> b) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            a.poll(Duration.ofMillis(100));
            b.poll(Duration.ofMillis(100));
            OffsetSnapshot now = ops.describe(ns.group());
            if (now.state() == GroupState.STABLE && now.members().size() == 2 && now.members().stream().noneMatch(m -> m.assignment().isEmpty())
                    && !a.assignment().isEmpty() && !b.assignment().isEmpty()) {
                return now;
            }
        }
        throw new AssertionError("the group of two did not settle within 60 s: " + ops.describe(ns.group()));
    }

    private static PartitionRef owned(OffsetSnapshot now, String clientId) {
        return now.members().stream().filter(m -> m.clientId().equals(clientId)).map(GroupMember::assignment).findFirst().orElseThrow().get(0);
    }
}
