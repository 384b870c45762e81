package io.replaylab.harness.subject;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.lab.Subject;
import java.nio.file.Path;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;

import org.apache.kafka.clients.consumer.GroupProtocol;

/**
 * Test-only broken variants of the reference transform subject, to prove the eos experiment catches
 * them: {@code offsets-outside} commits its output transaction, then the consumed offset with the
 * consumer, outside the transaction (a zombie's late commit goes through: duplicates);
 * {@code empty-transaction} commits transactions that carry its offsets but no output; {@code renamed-output} writes its
 * output under another id than the input's.
 */
public final class BrokenTransformMain {
    private BrokenTransformMain() {
    }

    public static void main(String[] a) {
        // mode bootstrap topic output group instance logdir
        TransformConsumer.Options o = new TransformConsumer.Options(a[1], a[2], a[3], a[4], a[5], GroupProtocol.CLASSIC, 5000, 6000, 15_000, null,
                Path.of(a[6], a[5] + ".assignments.jsonl"), Path.of(a[6], a[5] + ".processing.jsonl"), io.replaylab.kafka.ClientProperties.none());
        System.exit(twin(a[0], o).run());
    }

    /** The reference transform consumer with one step changed, by mode. */
    static TransformConsumer twin(String mode, TransformConsumer.Options o) {
        return switch (mode) {
            case "offsets-outside" -> new TransformConsumer(o) {
                @Override
                void commit(KafkaProducer<String, String> producer, KafkaConsumer<String, String> c, Map<TopicPartition, OffsetAndMetadata> next) {
                    producer.commitTransaction();
                    c.commitSync(next); // outside the transaction: a zombie's late commit goes through
                }
            };
            case "empty-transaction" -> new TransformConsumer(o) {
                @Override
                String output(ConsumerRecord<String, String> r, String id) {
                    return null;
                }
            };
            case "renamed-output" -> new TransformConsumer(o) {
                @Override
                String output(ConsumerRecord<String, String> r, String id) {
                    return id == null ? null : r.value().replace(id, id + "-copy");
                }
            };
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        };
    }

    /** The eos experiment's transform template for a mode, on this JVM's classpath. */
    public static String template(String mode) {
        return Subject.javaCommand(BrokenTransformMain.class.getName(), ChildProcess.shortLived("-Xmx256m").toArray(String[]::new)) + " " + mode
                + " {bootstrap} {topic} {output} {group} {instance} {logdir}";
    }
}
