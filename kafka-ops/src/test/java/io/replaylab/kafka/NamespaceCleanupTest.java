package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.testing.Offsets;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** R17: cleanup deletes the run's own topics and groups, and nothing of anyone else's, not even a namespace that merely starts alike. */
@LocalKafkaTest
class NamespaceCleanupTest {
    @Test
    void deleteNamespaceTakesOnlyItsOwnTopicsAndGroupsNotThoseOfANamespaceThatStartsAlike(LocalKafka kafka, LabNamespace ns) throws Exception {
        LabNamespace sibling = LabNamespace.of(ns.prefix() + "x"); // "rl-abc" must not take "rl-abcx.*"
        String stranger = "shared-" + ns.prefix(); // contains the prefix, but not at the start
        for (String topic : List.of(ns.topic(), ns.topic("other"), sibling.topic(), stranger)) {
            Clients.topicWith(kafka.bootstrapServers(), topic, 1, 1);
        }
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 1);
        Offsets.commit(kafka.bootstrapServers(), sibling.group(), sibling.topic(), 0, 1);
        Offsets.commit(kafka.bootstrapServers(), stranger, stranger, 0, 1);

        List<String> deleted;
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            deleted = ops.deleteNamespace(ns).lines();
        }

        assertThat(deleted).containsExactlyInAnyOrder("group " + ns.group(), "topic " + ns.topic(), "topic " + ns.topic("other"));
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            Set<String> topics = admin.listTopics().names().get();
            assertThat(topics).contains(sibling.topic(), stranger).doesNotContain(ns.topic(), ns.topic("other"));
            List<String> groups = admin.listGroups().all().get().stream().map(g -> g.groupId()).toList();
            assertThat(groups).contains(sibling.group(), stranger).doesNotContain(ns.group());
            admin.deleteTopics(List.of(sibling.topic(), stranger)).all().get(); // this test's own leftovers
            admin.deleteConsumerGroups(List.of(sibling.group(), stranger)).all().get();
        }
    }

    @Test
    void deleteNamespaceDeletesEachGroupByItsTypeAShareGroupToo(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 1, 2);
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 1);
        io.replaylab.kafka.testing.ShareConsumers.startAtEarliest(kafka.bootstrapServers(), ns.group("queue"));
        try (var share = io.replaylab.kafka.testing.ShareConsumers.open(kafka.bootstrapServers(), ns.group("queue"), "share-a", List.of(ns.topic()))) {
            io.replaylab.kafka.testing.ShareConsumers.acknowledge(share, 2, Duration.ofSeconds(30));
        }

        List<String> deleted;
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            assertThat(ops.describe(ns.group("queue"), GroupType.SHARE).state()).isEqualTo(GroupState.EMPTY); // the member left on close
            deleted = ops.deleteNamespace(ns).lines();
            assertThat(ops.describe(ns.group("queue"), GroupType.SHARE).state()).isEqualTo(GroupState.NOT_FOUND);
        }

        assertThat(deleted).containsExactlyInAnyOrder("group " + ns.group(), "group " + ns.group("queue"), "topic " + ns.topic());
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            assertThat(admin.listGroups().all().get().stream().map(g -> g.groupId())).doesNotContain(ns.group(), ns.group("queue"));
        }
    }

    @Test
    void createTopicMakesOnlyTheNamespacesOwnTopicsWithLeadersAndLeavesAnExistingOneAlone(LocalKafka kafka, LabNamespace ns) throws Exception {
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers()); Admin admin = Clients.admin(kafka.bootstrapServers())) {
            ops.createTopic(ns, ns.topic("output"), 3);
            assertThat(admin.describeTopics(List.of(ns.topic("output"))).allTopicNames().get().get(ns.topic("output")).partitions())
                    .hasSize(3).allSatisfy(p -> assertThat(p.leader()).isNotNull());
            ops.createTopic(ns, ns.topic("output"), 5); // exists: left as it is
            assertThat(admin.describeTopics(List.of(ns.topic("output"))).allTopicNames().get().get(ns.topic("output")).partitions()).hasSize(3);

            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ops.createTopic(ns, "shared-" + ns.prefix(), 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside the namespace " + ns.prefix());
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ops.createTopic(ns, ns.topic("empty"), 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one partition");
            assertThat(admin.listTopics().names().get()).doesNotContain("shared-" + ns.prefix(), ns.topic("empty"));
        }
    }

    @Test
    void aTopicCreatedElsewhereIsWritableOnceAwaitWritableReturnsAndAMissingOneIsNamed(LocalKafka kafka, LabNamespace ns) throws Exception {
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers(), Duration.ofSeconds(2)); Admin admin = Clients.admin(kafka.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(ns.topic("elsewhere"), 3, (short) 1))).all().get();

            ops.awaitWritable(ns.topic("elsewhere"));

            try (KafkaProducer<String, String> idempotent = Clients.producer(kafka.bootstrapServers())) {
                for (int p = 0; p < 3; p++) {
                    assertThat(idempotent.send(new ProducerRecord<>(ns.topic("elsewhere"), p, "k", "v")).get(10, TimeUnit.SECONDS).offset()).isZero();
                }
            }
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ops.awaitWritable(ns.topic("missing")))
                    .isInstanceOf(KafkaOpsException.class).hasMessage("topic " + ns.topic("missing") + " does not exist (the broker did not know it for 2 s)");
        }
    }
}
