package io.replaylab.kafka.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Uses its own broker: these tests take it away. */
class LocalKafkaLifecycleTest {

    @Test
    void killMakesClientsSeeTheBrokerGoneRestartKeepsTopicAndOffsetsAndDeletingDataKeepsTheLog() throws Exception {
        LabNamespace ns = LabNamespace.random("life");
        try (LocalKafka kafka = LocalKafka.create().start()) {
            String bootstrap = kafka.bootstrapServers();
            Clients.createTopic(bootstrap, ns.topic(), 1);
            TopicPartition tp = new TopicPartition(ns.topic(), 0);
            try (KafkaConsumer<String, String> c = Clients.consumer(bootstrap, ns.group())) {
                c.assign(List.of(tp));
                c.commitSync(Map.of(tp, new OffsetAndMetadata(42)));
            }
            long pid = kafka.pid();

            kafka.kill();

            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            try (Admin admin = Clients.admin(bootstrap)) {
                assertThatThrownBy(() -> admin.describeCluster(new DescribeClusterOptions().timeoutMs(1500))
                        .clusterId().get(5, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class);
            }

            kafka.restart();

            assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
            try (Admin admin = Clients.admin(bootstrap)) {
                assertThat(admin.listTopics().names().get()).contains(ns.topic());
                assertThat(admin.listConsumerGroupOffsets(ns.group()).partitionsToOffsetAndMetadata().get().get(tp).offset())
                        .isEqualTo(42);
            }

            long restarted = kafka.pid();
            kafka.stopAndDeleteData();

            assertThat(ProcessHandle.of(restarted).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            assertThat(kafka.dataDir()).doesNotExist();
            assertThat(kafka.logFile()).exists(); // the broker's own account stays for the protocol
        }
    }

    @Test
    void startOnATakenPortFailsFastWithAClearMessageAndNoLeftoverProcess() throws Exception {
        Set<Long> before = childPids();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             LocalKafka kafka = LocalKafka.create(LocalKafkaConfig.custom().port(taken.getLocalPort()).build())) {
            long t0 = System.nanoTime();
            assertThatThrownBy(kafka::start)
                    .isInstanceOf(LocalKafkaException.class)
                    .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("already in use");
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).isLessThan(5);
            assertThat(kafka.isRunning()).isFalse();
        }
        assertThat(childPids()).isEqualTo(before);
    }

    @Test
    void brokerThatDiesDuringStartIsReportedWithItsOwnErrorAndLeavesNoProcess() {
        Set<Long> before = childPids();
        // an invalid value the broker itself rejects at start
        LocalKafkaConfig config = LocalKafkaConfig.custom().brokerProperty("num.network.threads", "0").build();
        try (LocalKafka kafka = LocalKafka.create(config)) {
            assertThatThrownBy(kafka::start)
                    .isInstanceOf(LocalKafkaException.class)
                    .hasMessageContaining("exited with code")
                    .hasMessageContaining("num.network.threads");
        }
        assertThat(childPids()).isEqualTo(before);
    }

    private static Set<Long> childPids() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).collect(Collectors.toSet());
    }
}
