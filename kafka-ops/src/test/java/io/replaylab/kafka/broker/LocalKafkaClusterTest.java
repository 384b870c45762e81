package io.replaylab.kafka.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The local 3-broker cluster: real brokers in their own JVMs, a KRaft controller of their own, faults per broker. */
@LocalKafkaTest
class LocalKafkaClusterTest {
    private static TopicPartition replicatedTopic(LocalKafkaCluster cluster, LabNamespace ns) {
        try (KafkaOps ops = KafkaOps.connect(cluster.bootstrapServers())) {
            ops.createTopic(ns, ns.topic(), 1, 3, Map.of("min.insync.replicas", "2"));
        }
        return new TopicPartition(ns.topic(), 0);
    }

    @Test
    void threeBrokersInTheirOwnJvmsAndAControllerOfTheirOwnServeAReplicatedTopic(LocalKafkaCluster cluster, LabNamespace ns) throws Exception {
        TopicPartition tp = replicatedTopic(cluster, ns);

        assertThat(cluster.brokerIds()).containsExactly(1, 2, 3);
        assertThat(cluster.bootstrapServers().split(",")).hasSize(3).allMatch(a -> a.startsWith("127.0.0.1:"));
        Set<Long> pids = cluster.brokerIds().stream().map(cluster::pid).collect(Collectors.toSet());
        pids.add(cluster.pid(LocalKafkaCluster.CONTROLLER_ID));
        assertThat(pids).as("four JVMs").hasSize(4);
        try (Admin admin = Clients.admin(cluster.bootstrapServers())) {
            assertThat(admin.describeCluster().nodes().get()).extracting(Node::id).containsExactlyInAnyOrder(1, 2, 3);
        }
        assertThat(cluster.replicas(tp)).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(cluster.isr(tp)).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(cluster.nodeDir(2).resolve("broker.log")).exists();
        assertThatThrownBy(() -> cluster.kill(7)).hasMessageContaining("no broker 7");
    }

    @Test
    void aKilledLeaderIsReplacedAndComesBackOnItsOwnDataAndPort(LocalKafkaCluster cluster, LabNamespace ns) throws Exception {
        TopicPartition tp = replicatedTopic(cluster, ns);
        Clients.fill(cluster.bootstrapServers(), ns.topic(), 1, 10);
        int leader = cluster.leaderOf(tp);
        int port = cluster.port(leader);

        cluster.kill(leader);
        int next = cluster.awaitLeaderOtherThan(tp, leader, Duration.ofSeconds(30));
        cluster.restart(leader);
        cluster.awaitInIsr(tp, leader, Duration.ofSeconds(60));

        assertThat(next).isNotEqualTo(leader).isIn(1, 2, 3);
        assertThat(cluster.isRunning(leader)).isTrue();
        assertThat(cluster.port(leader)).isEqualTo(port);
        assertThat(Clients.readAll("127.0.0.1:" + port, tp, 10, Duration.ofSeconds(20))).as("all records, read through the restarted broker")
                .hasSize(10);
    }

    @Test
    void aFollowerFrozenForLessThanTheLagTimeStaysInTheIsrAndRunsAgainWhenThawed(LocalKafkaCluster cluster, LabNamespace ns) throws Exception {
        TopicPartition tp = replicatedTopic(cluster, ns);
        int leader = cluster.leaderOf(tp);
        int follower = cluster.isr(tp).stream().filter(id -> id != leader).findFirst().orElseThrow();

        cluster.freeze(follower);
        try {
            Thread.sleep(3000);
            assertThat(cluster.isr(tp)).as("still in sync for replica.lag.time.max.ms").contains(follower);
        } finally {
            cluster.thaw(follower);
        }
        Clients.fill(cluster.bootstrapServers(), ns.topic(), 1, 5); // acks=all: the thawed follower fetches again
        assertThat(cluster.isr(tp)).contains(follower);
        assertThat(cluster.isRunning(follower)).isTrue();
        assertThat(List.of(leader, follower)).doesNotHaveDuplicates();
    }
    @Test
    void recordsTheLeaderAloneHoldsAreInItsLogEndOffsetButBelowNoHighWatermarkUntilTheFollowersFetchThem(LocalKafkaCluster cluster, LabNamespace ns)
            throws Exception {
        TopicPartition tp = replicatedTopic(cluster, ns);
        Clients.fill(cluster.bootstrapServers(), ns.topic(), 1, 3);
        int leader = cluster.leaderOf(tp);
        List<Integer> followers = cluster.isr(tp).stream().filter(id -> id != leader).toList();
        cluster.awaitHighWatermark(tp, 3, Duration.ofSeconds(30));
        Properties acksOne = new Properties();
        acksOne.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        acksOne.put(ProducerConfig.ACKS_CONFIG, "1");
        acksOne.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        acksOne.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());

        long leaderEnd;
        List<Long> followerEnds;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(acksOne)) {
            producer.partitionsFor(ns.topic()); // metadata before the freeze: no Admin or metadata call waits on a frozen broker
            followers.forEach(cluster::freeze);
            try {
                Thread.sleep(1000); // fetches the followers had waiting at the leader expire (replica.fetch.wait.max.ms)
                for (int i = 0; i < 4; i++) {
                    producer.send(new ProducerRecord<>(ns.topic(), 0, "k" + i, "v" + i)).get(10, TimeUnit.SECONDS);
                }
                leaderEnd = cluster.logEndOffset(tp, leader);
                followerEnds = followers.stream().map(f -> cluster.logEndOffset(tp, f)).toList();
            } finally {
                followers.forEach(cluster::thaw);
            }
        }
        cluster.awaitHighWatermark(tp, leaderEnd, Duration.ofSeconds(30));

        assertThat(leaderEnd).as("acknowledged by the leader alone").isEqualTo(7);
        assertThat(followerEnds).as("read from the frozen followers' own files: the high watermark stays at 3 while they are frozen")
                .containsOnly(3L);
        assertThat(cluster.highWatermark(tp)).isEqualTo(7);
        assertThat(followers.stream().map(f -> cluster.logEndOffset(tp, f)).toList()).as("fetched once thawed").containsOnly(7L);
        assertThatThrownBy(() -> cluster.logEndOffset(new TopicPartition(ns.topic(), 9), leader)).hasMessageContaining("has no log of");
    }
}
