package io.replaylab.kafka.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Small helpers for tests that need plain clients against the shared broker. */
public final class Clients {
    private Clients() {
    }

    public static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000));
    }

    /**
     * Commits {@code offset} for {@code group} (a group of offsets only, no member), retrying while a
     * topic just created is not yet known to the coordinator.
     */
    public static void commit(Admin admin, String group, org.apache.kafka.common.TopicPartition tp, long offset) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try {
                admin.alterConsumerGroupOffsets(group, Map.of(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset))).all().get(10, java.util.concurrent.TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot commit offset " + offset + " of " + tp + " for group " + group, e);
                }
                sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Creates the topic and waits until the broker's metadata gives every partition a leader: a request for it (an
     * OffsetCommit, a Produce) made at once could otherwise meet UNKNOWN_TOPIC_OR_PARTITION (seen once on a loaded machine).
     */
    public static void createTopic(String bootstrap, String topic, int partitions) {
        try (Admin admin = admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (true) {
                try {
                    var d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
                    if (d.partitions().size() == partitions && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                        return;
                    }
                } catch (ExecutionException notYet) {
                    // UNKNOWN_TOPIC_OR_PARTITION until the metadata has it
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("topic " + topic + " has no leader for every partition after 10 s");
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("cannot create topic " + topic, e);
        }
    }

    /** A new topic of {@code partitions} with {@code perPartition} records in each ({@link #createTopic}, then {@link #fill}). */
    public static void topicWith(String bootstrap, String topic, int partitions, int perPartition) {
        createTopic(bootstrap, topic, partitions);
        fill(bootstrap, topic, partitions, perPartition);
    }

    public static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    /** Produces {@code perPartition} records to each partition, synchronously. */
    public static void fill(String bootstrap, String topic, int partitions, int perPartition) {
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            for (int p = 0; p < partitions; p++) {
                for (int i = 0; i < perPartition; i++) {
                    producer.send(new ProducerRecord<>(topic, p, "k" + i, "v-" + p + "-" + i)).get();
                }
            }
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("cannot produce to " + topic, e);
        }
    }

    public static KafkaConsumer<String, String> consumer(String bootstrap, String group) {
        return consumer(bootstrap, group, "classic");
    }

    /** A consumer with {@code group.protocol} classic or consumer. */
    public static KafkaConsumer<String, String> consumer(String bootstrap, String group, String protocol) {
        return consumer(bootstrap, group, protocol, "earliest");
    }

    /** A consumer with {@code auto.offset.reset} {@code reset} ("none": an offset out of range is an error, not a jump). */
    public static KafkaConsumer<String, String> consumer(String bootstrap, String group, String protocol, String reset) {
        Properties p = new Properties();
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        if (group != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    /** Reads a partition from the beginning with no group, until {@code count} records or the timeout. */
    public static List<ConsumerRecord<String, String>> readAll(String bootstrap, TopicPartition tp, int count, Duration timeout) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(bootstrap, null)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (out.size() < count && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}
