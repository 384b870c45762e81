package io.replaylab.harness.lab;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.replaylab.kafka.ClientProperties;
import io.replaylab.oracle.SourceMapping;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A producer command's records copied into an experiment's topic as real transactional producers leave a topic: every record
 * as it was written (key, value, headers, timestamp, partition), in {@link SyntheticProducer#ABORTED_BETWEEN} + 1 committed
 * transactions, with an aborted transaction between each two that holds, per partition, a copy of one of the producer's
 * records under a fresh identity ({@code <namespace>-aborted-<n>}, written where the source mapping reads it): an inbox
 * would hide a re-sent identity, and no committed record has these.
 */
final class SourceCopy {
    private SourceCopy() {
    }

    /**
     * The records into {@code topic}; the aborted copies numbered from {@code abortedBefore} + 1 (a topic filled in steps keeps its ids apart).
     * Returns how many aborted copies it wrote.
     */
    static int withAbortedTransactions(String bootstrap, ClientProperties client, List<ConsumerRecord<byte[], byte[]>> records, String topic, SourceMapping mapping,
            String namespace, int abortedBefore) throws Exception {
        // per partition, the first record that takes a fresh identity: the model of that partition's aborted copies
        Map<Integer, SourceMapping.Raw> models = new LinkedHashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (models.containsKey(r.partition())) {
                continue;
            }
            SourceMapping.Raw raw = new SourceMapping.Raw(r.key(), r.value(), r.headers());
            try {
                mapping.withId(raw, namespace + "-aborted-0");
                models.put(r.partition(), raw);
            } catch (IllegalArgumentException noIdentity) {
                // a record the mapping cannot read (malformed) is copied as it is, never as a model
            }
        }
        Properties p = client.properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "replaylab-source-" + topic);
        int aborted = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            int chunk = Math.max(1, (records.size() + SyntheticProducer.ABORTED_BETWEEN) / (SyntheticProducer.ABORTED_BETWEEN + 1));
            for (int i = 0; i < records.size(); i++) {
                if (i > 0 && i % chunk == 0 && !models.isEmpty()) {
                    producer.commitTransaction();
                    producer.beginTransaction();
                    for (Map.Entry<Integer, SourceMapping.Raw> m : models.entrySet()) {
                        SourceMapping.Raw copy = mapping.withId(m.getValue(), namespace + "-aborted-" + (abortedBefore + ++aborted));
                        producer.send(new ProducerRecord<>(topic, m.getKey(), null, copy.key(), copy.value(), copy.headers()));
                    }
                    producer.flush();
                    producer.abortTransaction();
                    producer.beginTransaction();
                }
                ConsumerRecord<byte[], byte[]> r = records.get(i);
                producer.send(new ProducerRecord<>(topic, r.partition(), r.timestamp(), r.key(), r.value(), r.headers()));
            }
            producer.commitTransaction();
        }
        SyntheticProducer.awaitStable(bootstrap, client, topic);
        return aborted;
    }
}
