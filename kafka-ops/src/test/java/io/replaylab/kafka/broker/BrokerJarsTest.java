package io.replaylab.kafka.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;

import org.junit.jupiter.api.Test;

/** A build that pins another kafka_2.13 than its kafka-clients is told so, not that the broker jars are missing. */
class BrokerJarsTest {
    private static String path(String... entries) {
        return String.join(File.pathSeparator, entries);
    }

    @Test
    void aBrokerJarOfAnotherVersionThanTheClientsIsNamedWithBothVersions() {
        assertThat(KafkaNode.versionMismatch(path("/m2/org/apache/kafka/kafka_2.13/4.1.0/kafka_2.13-4.1.0.jar",
                "/m2/org/apache/kafka/kafka-clients/4.4.0/kafka-clients-4.4.0.jar", "/m2/x/y-1.jar")))
                .hasValue("The Kafka broker jars are on the classpath, but org.apache.kafka:kafka_2.13 is 4.1.0 and org.apache.kafka:kafka-clients "
                        + "is 4.4.0: the broker needs both at one version (pin kafka_2.13 to 4.4.0, or both to one version).");
        assertThat(KafkaNode.versionMismatch(path("/a/kafka_2.13-4.4.0.jar", "/a/kafka-clients-4.4.0.jar"))).isEmpty();
        assertThat(KafkaNode.versionMismatch(path("/a/kafka-clients-4.4.0.jar"))).as("no broker jar: the other message says so").isEmpty();
        assertThat(KafkaNode.versionMismatch(System.getProperty("java.class.path"))).as("this build's own class path").isEmpty();
    }
}
