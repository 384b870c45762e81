package io.replaylab.kafka.testing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** Commits offsets for a group as a short-lived consumer (the group is Empty afterwards). */
public final class Offsets {
    private Offsets() {
    }

    /** {@code commit(b, g, "t", 0, 5, 1, 7)}: topic, then partition/offset pairs. */
    public static void commit(String bootstrap, String group, String topic, long... partitionOffsetPairs) {
        Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
        for (int i = 0; i < partitionOffsetPairs.length; i += 2) {
            m.put(new TopicPartition(topic, (int) partitionOffsetPairs[i]), new OffsetAndMetadata(partitionOffsetPairs[i + 1]));
        }
        try (KafkaConsumer<String, String> c = Clients.consumer(bootstrap, group)) {
            c.assign(List.copyOf(m.keySet()));
            c.commitSync(m);
        }
    }
}
