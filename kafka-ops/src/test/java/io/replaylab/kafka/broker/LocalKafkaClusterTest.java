package io.replaylab.kafka.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
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
}
