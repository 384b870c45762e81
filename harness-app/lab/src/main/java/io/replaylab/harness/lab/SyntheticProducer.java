package io.replaylab.harness.lab;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.process.Poll;
import io.replaylab.kafka.ClientProperties;
import io.replaylab.kafka.KafkaOps;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;

/** Produces the synthetic payments (idempotent, acks=all) and describes what it sent. */
public final class SyntheticProducer {
    private SyntheticProducer() {
    }

    /** How many aborted transactions a source with them has, between its committed ones. */
    static final int ABORTED_BETWEEN = 3;

    /** What was produced: also written as the manifest. */
    public record Manifest(String topic, String namespace, long seed, int count, int malformed, int partitions, long sumOfAmounts,
            Map<String, Long> accountSums, Map<Integer, Long> endOffsets) {
    }

    /**
     * Produces {@code count} valid payments (and {@code malformed} bad records at seeded positions) to
     * {@code topic}, creating it with {@code partitions} if needed; writes the manifest when a file is
     * given; {@code progress} (may be null) is told the records sent so far.
     */
    public static Manifest produce(String bootstrap, String topic, int partitions, String namespace, int count, long seed, int accounts,
            int malformed, Path manifestFile, java.util.function.LongConsumer progress) throws Exception {
        return produce(bootstrap, ClientProperties.none(), topic, partitions, namespace, count, seed, accounts, malformed, manifestFile, progress,
                RecordSource.reference());
    }

    /**
     * As above, through a cluster that takes {@code client} properties (SASL, TLS), each valid payment rendered in
     * {@code shape}'s key and value (malformed records stay as they are).
     */
    public static Manifest produce(String bootstrap, ClientProperties client, String topic, int partitions, String namespace, int count, long seed,
            int accounts, int malformed, Path manifestFile, java.util.function.LongConsumer progress, RecordSource shape) throws Exception {
        ensureTopic(bootstrap, client, topic, partitions);
        List<SyntheticPayments.Generated> records = SyntheticPayments.generate(namespace, count, seed, accounts, malformed);
        Properties p = client.properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        boolean aborted = shape.abortedTransactions();
        if (aborted) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "replaylab-source-" + topic);
        }
        Map<Integer, Long> end = new TreeMap<>();
        Map<String, Long> sums = new TreeMap<>();
        long sum = 0;
        int partitionsNow = aborted ? partitionCount(bootstrap, client, topic) : partitions;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
            // aborted: the payments in ABORTED_BETWEEN + 1 committed transactions, an aborted one between each two
            int chunk = Math.max(1, (records.size() + ABORTED_BETWEEN) / (ABORTED_BETWEEN + 1));
            int abortedSoFar = 0;
            if (aborted) {
                producer.initTransactions();
                producer.beginTransaction();
            }
            int i = 0;
            for (SyntheticPayments.Generated g : records) {
                if (aborted && i > 0 && i % chunk == 0) {
                    producer.commitTransaction();
                    producer.beginTransaction();
                    for (int part = 0; part < partitionsNow; part++) {
                        String id = namespace + "-aborted-" + (++abortedSoFar);
                        Map.Entry<String, String> kv = shape.render(id, "acc-aborted", 100, SyntheticPayments.json(id, "acc-aborted", 100));
                        producer.send(new ProducerRecord<>(topic, part, kv.getKey(), kv.getValue()));
                    }
                    producer.flush();
                    producer.abortTransaction();
                    producer.beginTransaction();
                }
                i++;
                String key = g.key();
                String value = g.value();
                if (g.good()) {
                    Map.Entry<String, String> kv = shape.render(g.id(), g.account(), g.amount(), g.value());
                    key = kv.getKey();
                    value = kv.getValue();
                }
                sent.add(producer.send(new ProducerRecord<>(topic, key, value)));
                if (g.good()) {
                    sum += g.amount();
                    sums.merge(g.account(), g.amount(), Long::sum);
                }
            }
            if (aborted) {
                producer.commitTransaction();
                awaitStable(bootstrap, client, topic);
            }
            producer.flush();
            long n = 0;
            for (Future<RecordMetadata> f : sent) {
                RecordMetadata md = f.get();
                end.merge(md.partition(), md.offset() + 1, Math::max);
                if (++n % 1000 == 0 && progress != null) {
                    progress.accept(n);
                }
            }
        }
        int actualPartitions = partitionCount(bootstrap, client, topic);
        Manifest m = new Manifest(topic, namespace, seed, count, malformed, actualPartitions, sum, sums, end);
        if (manifestFile != null) {
            Evidence.writeJson(manifestFile, m);
        }
        return m;
    }

    /** Creates the topic with {@code partitions} unless it exists, and waits until it takes writes. */
    static void ensureTopic(String bootstrap, ClientProperties client, String topic, int partitions) throws InterruptedException, ExecutionException {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        try (Admin admin = Admin.create(client.plus(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000)))) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
        try (KafkaOps ops = KafkaOps.connect(bootstrap, KafkaOps.DEFAULT_TIMEOUT, client)) {
            ops.awaitWritable(topic);
        }
    }

    private static int partitionCount(String bootstrap, ClientProperties client, String topic) throws InterruptedException, ExecutionException {
        try (Admin admin = Admin.create(client.plus(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap)))) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        }
    }

    /**
     * Waits until every partition of {@code topic} is stable: its last stable offset (where a read_committed reader stops) is its
     * log end. A transaction's commit returns once its coordinator has decided it; its markers reach the partitions a moment
     * later, and a read_committed reader that looks before then stops short (CI: a source set of 60 records read as 45).
     */
    static void awaitStable(String bootstrap, ClientProperties client, String topic) throws Exception {
        try (Admin admin = Admin.create(client.plus(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap)))) {
            Map<TopicPartition, OffsetSpec> ends = new java.util.HashMap<>();
            admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()
                    .forEach(p -> ends.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            String[] last = {""};
            boolean stable = Poll.every(java.time.Duration.ofMillis(20)).upTo(java.time.Duration.ofSeconds(30)).until(() -> {
                Map<TopicPartition, Long> stableAt = offsets(admin, ends, IsolationLevel.READ_COMMITTED);
                Map<TopicPartition, Long> end = offsets(admin, ends, IsolationLevel.READ_UNCOMMITTED);
                last[0] = "last stable offsets " + stableAt + ", log ends " + end;
                return stableAt.equals(end);
            });
            if (!stable) {
                throw new IllegalStateException("the transactions written to " + topic + " did not complete within 30 s: " + last[0]);
            }
        }
    }

    private static Map<TopicPartition, Long> offsets(Admin admin, Map<TopicPartition, OffsetSpec> ends, IsolationLevel isolation)
            throws InterruptedException {
        Map<TopicPartition, Long> out = new TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
        try {
            admin.listOffsets(ends, new ListOffsetsOptions(isolation)).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot list the end offsets (" + isolation + ") of " + ends.keySet() + ": " + e.getCause(), e.getCause());
        }
        return out;
    }

    /** One line: how many records, where, the sum of amounts and the end offsets. */
    public static String summary(Manifest m) {
        return "produced " + (m.count() + m.malformed()) + " records (" + m.malformed() + " malformed) to " + m.topic() + " ("
                + m.partitions() + " partitions): sum of amounts " + m.sumOfAmounts() + ", end offsets " + m.endOffsets();
    }

}
