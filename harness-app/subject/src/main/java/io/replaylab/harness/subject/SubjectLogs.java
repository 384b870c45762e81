package io.replaylab.harness.subject;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import io.replaylab.kafka.ClientProperties;

/**
 * What the reference subjects share: their consumer settings and the lines of their assignment and
 * processing logs (the same format for every subject the lab ships).
 */
final class SubjectLogs {
    private SubjectLogs() {
    }

    /** Manual commits, from the earliest offset, read_committed, the lab's poll interval and (classic) session timeout. */
    static Properties consumerProperties(ClientProperties client, String bootstrap, String group, String instanceId, GroupProtocol protocol,
            int maxPollIntervalMs, Integer sessionTimeoutMs, int maxPollRecords) {
        Properties p = member(client, bootstrap, group, instanceId, maxPollRecords);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, maxPollIntervalMs);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol.name);
        if (protocol == GroupProtocol.CLASSIC && sessionTimeoutMs != null) {
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionTimeoutMs);
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Math.max(100, sessionTimeoutMs / 4));
        }
        return p;
    }

    /**
     * A share consumer's settings: explicit acknowledgement (nothing is acknowledged that the code did not
     * acknowledge) and {@code record_limit} acquisition (the broker locks at most {@code maxPollRecords} records
     * for this member, so it acquires only what it processes). None of the consumer group's settings above:
     * {@code ShareConsumerConfig} refuses auto.offset.reset, enable.auto.commit, isolation.level, session and
     * heartbeat timeouts and group.protocol; their share-group counterparts ({@code share.auto.offset.reset},
     * {@code share.isolation.level}, {@code share.record.lock.duration.ms}, ...) are the group's configs, set by
     * whoever runs the group (the lab), not by a member.
     */
    static Properties shareConsumerProperties(ClientProperties client, String bootstrap, String group, String instanceId, int maxPollRecords) {
        Properties p = member(client, bootstrap, group, instanceId, maxPollRecords);
        p.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        p.put(ConsumerConfig.SHARE_ACQUIRE_MODE_CONFIG, "record_limit");
        return p;
    }

    /** What every member of either kind of group is given: the user's client properties, where, who, how many records a poll, strings. */
    private static Properties member(ClientProperties client, String bootstrap, String group, String instanceId, int maxPollRecords) {
        Properties p = client.properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, instanceId);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return p;
    }

    /** The common fields of a processing-log line: time, instance, topic, partition, offset (and a share group's delivery count). */
    static Map<String, Object> processing(String instance, ConsumerRecord<?, ?> r) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("time", Instant.now().toString());
        line.put("instance", instance);
        line.put("topic", r.topic());
        line.put("partition", r.partition());
        line.put("offset", r.offset());
        r.deliveryCount().ifPresent(n -> line.put("deliveryCount", n)); // a share group's record only: its how-many-th delivery
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

    /**
     * The subjects' rebalance listener: logs every assignment change, runs {@code onAssigned} for a new
     * assignment, and keeps the activity clock behind {@code --until-idle} (idle time counts only once
     * the group gave the instance an assignment, maybe an empty one).
     */
    static final class Assignments implements ConsumerRebalanceListener {
        private final JsonLines out;
        private final String instance;
        private final KafkaConsumer<?, ?> consumer;
        private final java.util.function.Consumer<Collection<TopicPartition>> onAssigned;
        private volatile long lastActivity = System.nanoTime();
        private volatile boolean joined;

        Assignments(JsonLines out, String instance, KafkaConsumer<?, ?> consumer, java.util.function.Consumer<Collection<TopicPartition>> onAssigned) {
            this.out = out;
            this.instance = instance;
            this.consumer = consumer;
            this.onAssigned = onAssigned;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> parts) {
            assignment(out, instance, consumer, "revoked", parts);
            touch();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> parts) {
            assignment(out, instance, consumer, "assigned", parts);
            onAssigned.accept(parts);
            joined = true;
            touch();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> parts) {
            assignment(out, instance, consumer, "lost", parts);
            touch();
        }

        /** A record was handled. */
        void touch() {
            lastActivity = System.nanoTime();
        }

        /** No record or assignment change for {@code idle} since the first assignment; never with a null {@code idle}. */
        boolean idleFor(java.time.Duration idle) {
            return idle != null && joined && System.nanoTime() - lastActivity > idle.toNanos();
        }
    }
}

