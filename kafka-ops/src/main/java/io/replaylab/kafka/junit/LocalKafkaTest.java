package io.replaylab.kafka.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class against a real Kafka broker: one {@link io.replaylab.kafka.broker.LocalKafka} per test
 * JVM, started on first use and stopped when the JVM exits (surefire's forks run each test class as a
 * JUnit run of its own: the broker outlives them all). Test methods take as
 * parameters the {@code LocalKafka}, a {@link io.replaylab.kafka.LabNamespace} unique to the test
 * (its topic, group and inbox names) and a connected {@link io.replaylab.kafka.KafkaOps} (closed
 * after the test), or a {@link io.replaylab.kafka.broker.LocalKafkaCluster} (3 brokers and a KRaft
 * controller of their own, started only for the tests that ask for it and stopped when their JUnit run ends). A
 * test that kills or freezes a cluster broker restarts or thaws it before it ends. After a test that passed, the namespace's topics and groups are deleted; after a
 * test that failed they are kept for inspection, and the failure names them. The shared broker also has a SASL_PLAINTEXT
 * listener ({@code kafka.saslBootstrapServers()}) that lets in {@link #SASL_USER} ({@code kafka.saslClient(SASL_USER)}).
 *
 * <pre>{@code
 * @LocalKafkaTest
 * class MyConsumerTest {
 *     @Test
 *     void drainsTheTopic(LocalKafka kafka, LabNamespace ns, KafkaOps ops) {
 *         // kafka.bootstrapServers(), ns.topic(), ns.group(), ops.describe(ns.group()) ...
 *     }
 * }
 * }</pre>
 *
 * <p>Needs {@code junit-jupiter-api} (an optional dependency of kafka-ops), plus
 * {@code org.apache.kafka:kafka_2.13} and a log binding on the test classpath for the broker.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(LocalKafkaExtension.class)
public @interface LocalKafkaTest {
    /** The shared broker's SASL user (PLAIN), and its password: a test looks for the latter where no secret may be. */
    String SASL_USER = "lab-client";
    String SASL_PASSWORD = "lab-client-secret-4711";
}
