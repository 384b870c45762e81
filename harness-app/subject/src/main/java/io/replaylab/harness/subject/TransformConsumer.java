package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.replaylab.kafka.ClientProperties;

/**
 * The reference consume-transform-produce subject (KIP-447): reads the source {@code read_committed}
 * and, per record, in ONE transaction writes one output record (key and value as read: the same
 * message id and amount) and sends the consumed offset with
 * {@code sendOffsetsToTransaction(offsets, consumer.groupMetadata())}, then {@code commitTransaction}.
 * A failed transaction is aborted, the producer made anew if it was fenced, and the partitions rewound
 * to their committed offsets (the standard loop): nothing is skipped, nothing written twice.
 * Its transactional id is its group plus its instance id, unique per instance as KIP-447 allows.
 */
class TransformConsumer {
    private static final Logger log = LoggerFactory.getLogger(TransformConsumer.class);

    record Options(String bootstrap, String topic, String outputTopic, String group, String instanceId, GroupProtocol groupProtocol,
            int maxPollIntervalMs, Integer sessionTimeoutMs, int transactionTimeoutMs, Duration untilIdle, Path assignmentLog, Path processingLog,
            ClientProperties client) {
    }

    private final Options o;

    TransformConsumer(Options options) {
        this.o = options;
    }

    // Each step below is a method so that the test sources' defective twins (BrokenTransformMain) can change one; the
    // reference subject overrides none.

    /** The output for a record (key and value as read: the same message id and amount), or null for none: a record that is not a payment. */
    String output(ConsumerRecord<String, String> r, String id) {
        return id == null ? null : r.value();
    }

    /** Commits the transaction WITH the consumed offsets (KIP-447): a zombie's commit is fenced by the group's generation. */
    void commit(KafkaProducer<String, String> producer, KafkaConsumer<String, String> c, Map<TopicPartition, OffsetAndMetadata> next) {
        producer.sendOffsetsToTransaction(next, c.groupMetadata());
        producer.commitTransaction();
    }

    /** Runs until idle (if asked) or SIGTERM; returns the exit code. */
    int run() {
        GracefulStop stop = GracefulStop.install();
        long written = 0;
        long failed = 0;
        KafkaProducer<String, String> producer = null;
        try (JsonLines assignments = new JsonLines(o.assignmentLog());
             JsonLines processing = new JsonLines(o.processingLog());
             KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerConfig())) {
            stop.watch(c::wakeup);
            producer = newProducer();
            SubjectLogs.Assignments activity = new SubjectLogs.Assignments(assignments, o.instanceId(), c, parts -> { });
            c.subscribe(List.of(o.topic()), activity);
            while (!stop.requested()) {
                ConsumerRecords<String, String> records = stop.poll(c::poll);
                for (ConsumerRecord<String, String> r : records) {
                    activity.touch();
                    Map<TopicPartition, OffsetAndMetadata> next = Map.of(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    Map<String, Object> line = SubjectLogs.processing(o.instanceId(), r);
                    String id = Payment.idOf(r.value());
                    line.put("id", id);
                    try {
                        producer.beginTransaction();
                        String value = output(r, id);
                        if (value != null) { // no output, and the offset still moves on
                            producer.send(new ProducerRecord<>(o.outputTopic(), r.key(), value));
                        }
                        commit(producer, c, next);
                        written++;
                        line.put("result", id != null ? "committed" : "skipped");
                        processing.write(line);
                    } catch (KafkaException e) {
                        // fenced (a newer epoch: the coordinator aborted us), a stale generation, or any other failed transaction
                        failed++;
                        log.warn("transaction for {}-{}@{} failed: {}", r.topic(), r.partition(), r.offset(), e.toString());
                        line.put("result", "commit-rejected");
                        line.put("exception", e.getClass().getName());
                        line.put("message", e.getMessage());
                        processing.write(line);
                        producer = recover(producer);
                        rewind(c);
                        break; // poll again: rejoin if the group moved on, read again from the committed offsets
                    }
                    if (stop.requested()) {
                        break;
                    }
                }
                if (activity.idleFor(o.untilIdle())) {
                    log.info("idle for {}; stopping", o.untilIdle());
                    break;
                }
            }
            if (stop.requested()) {
                c.close(Duration.ofSeconds(3));
            }
            System.out.printf("%s: committed %d, failed %d%n", o.instanceId(), written, failed);
            System.out.flush();
            closeQuietly(producer);
            return stop.finished(0);
        } catch (RuntimeException e) {
            log.error("fatal: {}", e.toString(), e);
            System.err.println("fatal: " + e);
            closeQuietly(producer);
            return stop.finished(1);
        }
    }

    /** Aborts the failed transaction; a producer that cannot abort (fenced, or in a fatal state) is replaced by a new one. */
    private KafkaProducer<String, String> recover(KafkaProducer<String, String> producer) {
        try {
            producer.abortTransaction();
            return producer;
        } catch (KafkaException e) {
            log.info("the producer cannot abort ({}); starting a new one with the same transactional id", e.toString());
            producer.close(Duration.ofSeconds(3));
            return newProducer();
        }
    }

    /** Every assigned partition back to its committed offset (or the start): what the failed transaction read is read again. */
    private static void rewind(KafkaConsumer<String, String> c) {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(c.assignment()));
            Map<TopicPartition, Long> beginnings = c.beginningOffsets(c.assignment());
            for (TopicPartition tp : c.assignment()) {
                OffsetAndMetadata at = committed.get(tp);
                c.seek(tp, at != null ? at.offset() : beginnings.get(tp));
            }
        } catch (KafkaException e) {
            log.info("cannot rewind now ({}); the next rebalance resets the positions", e.toString());
        }
    }

    private KafkaProducer<String, String> newProducer() {
        Properties p = o.client().properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrap());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, o.instanceId() + "-producer");
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, o.group() + "-" + o.instanceId());
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, o.transactionTimeoutMs());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        producer.initTransactions();
        return producer;
    }

    private Properties consumerConfig() {
        return SubjectLogs.consumerProperties(o.client(), o.bootstrap(), o.group(), o.instanceId(), o.groupProtocol(), o.maxPollIntervalMs(),
                o.sessionTimeoutMs(), 100);
    }

    private static void closeQuietly(KafkaProducer<String, String> producer) {
        if (producer != null) {
            try {
                producer.close(Duration.ofSeconds(3));
            } catch (RuntimeException e) {
                log.debug("closing the producer: {}", e.toString());
            }
        }
    }

}

