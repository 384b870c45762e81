package io.replaylab.barrier.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

@LocalKafkaTest
class BarrierConsumerTest {

    @Test
    void commitSyncStopsBeforeTheRequestLeavesAndTheOutcomeIsRecorded(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        Barrier barrier = Barrier.arm("before-commit", BarrierListener.NONE, BarrierOptions.ofDefaults());
        TopicPartition tp = new TopicPartition(ns.topic(), 0);
        try (Consumer<String, String> consumer = BarrierConsumer.wrap(Clients.consumer(kafka.bootstrapServers(), ns.group()), barrier);
             KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            consumer.assign(List.of(tp));
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(0))); // a record's own offset, as an off-by-one consumer commits it
            assertThat(barrier.arrival()).as("a commit that covers no record passes, the barrier armed").isEmpty();
            CompletableFuture<Void> commit = CompletableFuture.runAsync(() -> consumer.commitSync(Map.of(tp, new OffsetAndMetadata(3))));

            Arrival a = barrier.awaitArrival(Duration.ofSeconds(10));
            assertThat(a.context()).containsEntry("offsets", ns.topic() + "-0=3").containsEntry("method", "commitSync");
            Thread.sleep(300);
            assertThat(ops.describe(ns.group()).partitions()).as("nothing committed while held")
                    .noneMatch(p -> p.committed() == 3);

            barrier.release();
            commit.get();

            assertThat(barrier.awaitOutcome(Duration.ofSeconds(1))).get().extracting(CallOutcome::verdict).isEqualTo(CallOutcome.Verdict.ACCEPTED);
            assertThat(ops.describe(ns.group()).partitions()).extracting(PartitionOffsets::committed).containsExactly(3L);
            assertThat(consumer.assignment()).containsExactly(tp); // other methods pass straight through
        }
    }
}
