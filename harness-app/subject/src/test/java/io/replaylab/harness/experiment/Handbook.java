package io.replaylab.harness.experiment;

import java.nio.file.Path;

import io.replaylab.harness.lab.RecordSource;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.testing.PythonConsumer;
import io.replaylab.oracle.SourceMapping;

/**
 * The handbook's Python consumer and producer (kafka-ops' test resources) as the lab runs them:
 * configured only by their environment, in their own shape. A defect twin is the consumer with one
 * more switch, e.g. {@code Handbook.consumer(dir).env("AUTO_COMMIT", "1")}.
 */
final class Handbook {
    /** Their shape: identity in the key, amount at /amountCents, in cents. */
    static final SourceMapping SHAPE = SourceMapping.of("key", "json:/amountCents", 0);

    private Handbook() {
    }

    /** The consumer as it is (an inbox keyed by payment id, the offset committed after the transaction), its script copied into {@code dir}. */
    static Subject consumer(Path dir) {
        return Subject.command("'" + PythonConsumer.python() + "' '" + PythonConsumer.copy(dir, "handbook_consumer.py") + "'")
                .env("KAFKA_BOOTSTRAP", "{bootstrap}").env("KAFKA_TOPIC", "{topic}").env("KAFKA_GROUP", "{group}").env("CLIENT_ID", "{instance}")
                .env("DB_PATH", "{db}").env("LEDGER_NS", "{namespace}");
    }

    /** Their own producer fills the source. */
    static RecordSource producer(Path dir) {
        return RecordSource.producer(producing(dir)).mapping(SHAPE);
    }

    /** Their own producer fills the source, every payment on that one partition. */
    static RecordSource producer(Path dir, String partition) {
        return RecordSource.producer(producing(dir).env("PARTITION", partition)).mapping(SHAPE);
    }

    private static Subject producing(Path dir) {
        return Subject.command("'" + PythonConsumer.python() + "' '" + PythonConsumer.copy(dir, "handbook_producer.py") + "'")
                .env("KAFKA_BOOTSTRAP", "{bootstrap}").env("KAFKA_TOPIC", "{topic}").env("COUNT", "{count}").env("PAYMENT_PREFIX", "{namespace}");
    }

    /** The lab's producer writes their shape. */
    static RecordSource shaped() {
        return RecordSource.shaped("{id}", "{\"paymentId\":\"{id}\",\"amountCents\":{amount},\"currency\":\"EUR\"}").mapping(SHAPE);
    }
}
