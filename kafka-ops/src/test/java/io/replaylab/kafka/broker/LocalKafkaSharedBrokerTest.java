package io.replaylab.kafka.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

@LocalKafkaTest
class LocalKafkaSharedBrokerTest {

    @Test
    void producedRecordIsConsumedBack(LocalKafka kafka, LabNamespace ns) {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 1, 3);

        List<ConsumerRecord<String, String>> read =
                Clients.readAll(kafka.bootstrapServers(), new TopicPartition(ns.topic(), 0), 3, Duration.ofSeconds(20));

        assertThat(read).extracting(ConsumerRecord::value).containsExactly("v-0-0", "v-0-1", "v-0-2");
    }

    @Test
    void groupCommitIsListedByAdmin(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 2);
        TopicPartition tp = new TopicPartition(ns.topic(), 1);
        try (KafkaConsumer<String, String> c = Clients.consumer(kafka.bootstrapServers(), ns.group())) {
            c.assign(List.of(tp));
            c.commitSync(Map.of(tp, new OffsetAndMetadata(7)));
        }
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin.listConsumerGroupOffsets(ns.group()).partitionsToOffsetAndMetadata().get();
            assertThat(offsets).containsOnlyKeys(tp);
            assertThat(offsets.get(tp).offset()).isEqualTo(7);
        }
    }

    @Test
    void brokerReportsItsVersionAndRunsInItsOwnProcess(LocalKafka kafka) {
        assertThat(kafka.brokerVersion()).contains("4.4.0");
        assertThat(kafka.pid()).isNotEqualTo(ProcessHandle.current().pid());
        assertThat(kafka.bootstrapServers()).startsWith("127.0.0.1:");
    }

    /** The lab defaults reach the broker (an offset commit written without the coordinator's 5 ms linger among them). */
    @Test
    void theBrokerRunsWithTheLabDefaults(LocalKafka kafka) throws Exception {
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            String node = admin.describeCluster().nodes().get().iterator().next().idString();
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node);
            Config config = admin.describeConfigs(List.of(broker)).all().get().get(broker);

            LocalKafkaConfig.LAB_BROKER_DEFAULTS.forEach((key, value) ->
                    assertThat(config.get(key)).as(key).isNotNull().extracting(e -> e.value()).isEqualTo(value));
            assertThat(config.get("group.coordinator.append.linger.ms").value()).isEqualTo("0");
        }
    }
}
