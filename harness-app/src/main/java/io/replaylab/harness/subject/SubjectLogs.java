package io.replaylab.harness.subject;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** The lines of the reference subjects' assignment and processing logs (the same format for every subject the lab ships). */
final class SubjectLogs {
    private SubjectLogs() {
    }

    /** The common fields of a processing-log line: time, instance, topic, partition, offset. */
    static Map<String, Object> processing(String instance, ConsumerRecord<?, ?> r) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("time", Instant.now().toString());
        line.put("instance", instance);
        line.put("topic", r.topic());
        line.put("partition", r.partition());
        line.put("offset", r.offset());
        return line;
    }

    /** An assignment change with the group generation and member id, when the consumer knows them in this state. */
    static void assignment(JsonLines out, String instance, KafkaConsumer<?, ?> c, String event, Collection<TopicPartition> parts) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("time", Instant.now().toString());
        line.put("instance", instance);
        line.put("pid", ProcessHandle.current().pid());
        line.put("event", event);
        line.put("partitions", parts.stream().map(TopicPartition::toString).sorted().toList());
        try {
            line.put("generation", c.groupMetadata().generationId());
            line.put("member", c.groupMetadata().memberId());
        } catch (RuntimeException ignored) {
            // not available in this state
        }
        out.write(line);
    }
}
