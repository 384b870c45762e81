package io.replaylab.harness.subject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;

import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

/** The share mode's settings pass the share consumer's own validation (it refuses the consumer group's), with no broker. */
class ShareConsumerPropertiesTest {
    @Test
    void theShareModesSettingsAreAcceptedByKafkaShareConsumer() {
        Properties p = SubjectLogs.shareConsumerProperties(io.replaylab.kafka.ClientProperties.none(), "127.0.0.1:9", "g", "A", 1);

        new KafkaShareConsumer<String, String>(p).close(); // the constructor validates; it connects to nothing yet

        assertThat(p).containsEntry("share.acknowledgement.mode", "explicit").containsEntry("share.acquire.mode", "record_limit")
                .containsEntry("max.poll.records", 1);
    }

    @Test
    void theConsumerGroupsSettingsAreRefusedByKafkaShareConsumer() {
        Properties p = SubjectLogs.consumerProperties(io.replaylab.kafka.ClientProperties.none(), "127.0.0.1:9", "g", "A", GroupProtocol.CLASSIC, 300_000, 6000, 1);

        assertThatThrownBy(() -> new KafkaShareConsumer<String, String>(p)).isInstanceOf(KafkaException.class)
                .hasMessageContaining("auto.offset.reset").hasMessageContaining("session.timeout.ms").hasMessageContaining("group.protocol");
    }
}
