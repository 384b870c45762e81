package io.replaylab.harness.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.Resource;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.RunJournal;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.oracle.testing.LocalPostgres;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leftovers of runs that died, on a real broker and a real PostgreSQL: found from their
 * journals, removed by prefix only (a shared topic, a shared group and a neighbour whose name merely
 * starts alike stay), and never touched while the run lives, on another cluster or on a remote host.
 */
@LocalKafkaTest
class LeftoversTest {
    @TempDir
    Path work;

    private static String clusterId(Admin admin) throws Exception {
        return admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS);
    }

    private static Set<String> topics(Admin admin) throws Exception {
        return admin.listTopics().names().get(10, TimeUnit.SECONDS);
    }

    private static Set<String> groups(Admin admin) throws Exception {
        return Set.copyOf(admin.listGroups().all().get(10, TimeUnit.SECONDS).stream().map(g -> g.groupId()).toList());
    }

    /** A topic and a group with a committed offset, as a run (or anyone else) leaves them. */
    private static void topicAndGroup(Admin admin, String topic, String group) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(10, TimeUnit.SECONDS);
        Clients.commit(admin, group, new TopicPartition(topic, 0), 0);
    }

    @Test
    void aDeadRunsNamespaceIsRemovedByItsPrefixAloneAfterItsProtocolIsSavedAndTheRunIsNoLongerListed(LocalKafka kafka, LabNamespace shared) throws Exception {
        LabNamespace ns = LabNamespace.random("rl");
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            topicAndGroup(admin, ns.prefix() + ".replay.source", ns.prefix() + ".replay.group");
            topicAndGroup(admin, shared.topic("shared-payments"), shared.group("shared"));
            topicAndGroup(admin, ns.prefix() + "0.neighbour", ns.prefix() + "0.neighbour-group"); // starts alike, is not the run's
            Path runDir = work.resolve("run-dead");
            DyingRunMain.die(runDir, "before-save", Leftovers.namespace(ns, kafka.bootstrapServers(), clusterId(admin), false));

            Leftovers.Found found = Leftovers.find(work);
            assertThat(found.runs()).singleElement().satisfies(r -> {
                assertThat(r.runId()).isEqualTo("run-dead");
                assertThat(r.dead()).isTrue();
                assertThat(r.status()).isEqualTo("died before its protocol was saved");
                assertThat(r.left()).containsExactly("topics and groups " + ns.prefix() + ".* on " + kafka.bootstrapServers() + " (cluster " + clusterId(admin) + ")");
            });
            assertThat(runDir.resolve("evidence.json")).doesNotExist();

            List<String> done = Leftovers.remove(found.runs().get(0), Leftovers.Access.local()).stream().map(Leftovers.Step::toString).toList();

            assertThat(done).singleElement().asString().contains("topic " + ns.prefix() + ".replay.source", "group " + ns.prefix() + ".replay.group");
            assertThat(topics(admin)).doesNotContain(ns.prefix() + ".replay.source")
                    .contains(shared.topic("shared-payments"), ns.prefix() + "0.neighbour");
            assertThat(groups(admin)).doesNotContain(ns.prefix() + ".replay.group")
                    .contains(shared.group("shared"), ns.prefix() + "0.neighbour-group");
            RunEvidence saved = Evidence.read(runDir.resolve("evidence.json"));
            assertThat(saved.complete()).isFalse();
            assertThat(saved.outcome().status()).isEqualTo(Status.NOT_RUN);
            assertThat(RunJournal.read(runDir).cleanupSteps()).singleElement().asString()
                    .startsWith("delete the dead run's topics and groups (" + ns.prefix() + ".*)").endsWith(": done");
            assertThat(Leftovers.find(work).runs()).isEmpty();
            admin.deleteTopics(List.of(ns.prefix() + "0.neighbour")).all().get(10, TimeUnit.SECONDS);
            admin.deleteConsumerGroups(List.of(ns.prefix() + "0.neighbour-group")).all().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aBrokerThatIsAnotherClusterNowARemoteBrokerAndALiveRunAreRefusedWithNothingDeleted(LocalKafka kafka) throws Exception {
        LabNamespace ns = LabNamespace.random("rl");
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            topicAndGroup(admin, ns.prefix() + ".replay.source", ns.prefix() + ".replay.group");
            DyingRunMain.die(work.resolve("run-other-cluster"), "before-save", Leftovers.namespace(ns, kafka.bootstrapServers(), "another-cluster-id", false));
            DyingRunMain.die(work.resolve("run-remote"), "before-save", Leftovers.namespace(ns, "10.255.255.1:9092", "c", false));

            assertThatThrownBy(() -> Leftovers.remove(Leftovers.of(work, "run-other-cluster"), Leftovers.Access.local()))
                    .isInstanceOf(CleanupRefusedException.class)
                    .hasMessage("the broker at " + kafka.bootstrapServers() + " is cluster " + clusterId(admin) + ", not the run's cluster another-cluster-id: nothing deleted");
            assertThatThrownBy(() -> Leftovers.remove(Leftovers.of(work, "run-remote"), Leftovers.Access.local()))
                    .isInstanceOf(CleanupRefusedException.class).hasMessageContaining("is remote (10.255.255.1)")
                    .hasMessageContaining("allow remote brokers");
            try (RunRecorder alive = RunRecorder.start(work.resolve("run-alive"), "run-alive")) {
                alive.owns(Leftovers.namespace(ns, kafka.bootstrapServers(), clusterId(admin), false));
                Leftovers.Run r = Leftovers.of(work, "run-alive");
                assertThat(r.status()).startsWith("running (pid " + ProcessHandle.current().pid() + ")");
                assertThat(Leftovers.find(work).runs()).extracting(Leftovers.Run::runId).contains("run-alive", "run-other-cluster", "run-remote");
                assertThatThrownBy(() -> Leftovers.remove(r, Leftovers.Access.local())).isInstanceOf(CleanupRefusedException.class)
                        .hasMessageContaining("is still running");
            }
            assertThat(topics(admin)).contains(ns.prefix() + ".replay.source");
            assertThat(groups(admin)).contains(ns.prefix() + ".replay.group");
            assertThat(RunJournal.read(work.resolve("run-other-cluster")).cleanupSteps()).isEmpty();
            assertThat(work.resolve("run-other-cluster").resolve("evidence.json")).doesNotExist();
            assertThatThrownBy(() -> Leftovers.of(work, "run-nope")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no run 'run-nope' under");
        }
    }

    @Test
    void aDeadRunsClientPropertiesAreDeletedAndAJournaledFileNoRunWritesIsRefused() throws Exception {
        Path secret = Files.createTempDirectory(Leftovers.CLIENT_PROPERTIES_DIR).resolve(Leftovers.CLIENT_PROPERTIES_FILE);
        Files.writeString(secret, "sasl.jaas.config=secret\n");
        Path runDir = work.resolve("run-client");
        DyingRunMain.die(runDir, "in-cleanup", Leftovers.clientProperties(secret));

        Leftovers.Run r = Leftovers.find(work).runs().get(0);
        assertThat(r.left()).containsExactly("its client properties (their secrets) in " + secret);
        assertThat(Leftovers.remove(r, Leftovers.Access.local()).stream().map(Leftovers.Step::toString))
                .containsExactly("client properties " + secret + ": deleted");
        assertThat(secret.getParent()).doesNotExist();

        Path other = Files.writeString(work.resolve("client.properties"), "not the lab's\n");
        DyingRunMain.die(work.resolve("run-other"), "in-cleanup", Leftovers.clientProperties(other));
        assertThatThrownBy(() -> Leftovers.remove(Leftovers.of(work, "run-other"), Leftovers.Access.local()))
                .isInstanceOf(CleanupRefusedException.class).hasMessageContaining("which no run writes");
        assertThat(other).exists();
    }

    @Test
    void aRunWithItsOwnLocalBrokerLeftNothingOnABrokerAndItsBrokerDataGoesWhileTheLogStays() throws Exception {
        Path runDir = work.resolve("run-local");
        Files.createDirectories(runDir.resolve("broker/data/__consumer_offsets-0"));
        Files.writeString(runDir.resolve("broker/broker.log"), "the broker's log\n");
        DyingRunMain.die(runDir, "in-cleanup", Leftovers.brokerData("broker"), Leftovers.namespace(LabNamespace.of("rl-0000aaaa"), "127.0.0.1:1", "c", true));

        Leftovers.Run r = Leftovers.find(work).runs().get(0);
        assertThat(r.status()).isEqualTo("died during its cleanup (its protocol is saved)");
        assertThat(r.left()).containsExactly("its local broker's data in broker/data", "nothing on a broker: its broker was its own local one (namespace rl-0000aaaa)");

        assertThat(Leftovers.remove(r, Leftovers.Access.local()).stream().map(Leftovers.Step::toString))
                .containsExactlyInAnyOrder("local broker data in " + runDir.resolve("broker") + ": deleted", "namespace rl-0000aaaa: nothing left on a broker, its broker was its own local one");
        assertThat(runDir.resolve("broker/data")).doesNotExist();
        assertThat(runDir.resolve("broker/broker.log")).hasContent("the broker's log");
        assertThat(Leftovers.find(work).runs()).isEmpty();
    }

    @Test
    void aDeadRunsPostgresSchemaIsDroppedAndASchemaBesideItStays() throws Exception {
        LocalPostgres pg = LocalPostgres.shared();
        String url = pg.createDatabase();
        try (Connection c = pg.connect(url); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA rl_dead01");
            s.execute("CREATE TABLE rl_dead01.ledger (message_id TEXT)");
            s.execute("CREATE SCHEMA rl_dead010");
        }
        DyingRunMain.die(work.resolve("run-pg"), "before-save",
                new Resource("postgres-schema", "rl_dead01", Map.of("url", url, "user", LocalPostgres.USER)));
        Leftovers.Run r = Leftovers.of(work, "run-pg");
        assertThat(r.left()).containsExactly("schema rl_dead01 in " + url + " as " + LocalPostgres.USER);

        List<Leftovers.Step> wrongPassword = Leftovers.remove(r, new Leftovers.Access(false, null, "not-the-password", io.replaylab.kafka.ClientProperties.none()));
        assertThat(wrongPassword).singleElement().satisfies(step -> assertThat(step.result()).isEqualTo(Leftovers.Step.Result.FAILED))
                .asString().startsWith("FAILED: drop the dead run's schema rl_dead01").contains("password");
        assertThat(Leftovers.find(work).runs()).singleElement().extracting(Leftovers.Run::status).asString().startsWith("its cleanup failed: drop the dead run's schema");

        assertThat(Leftovers.remove(Leftovers.of(work, "run-pg"), new Leftovers.Access(false, null, LocalPostgres.PASSWORD, io.replaylab.kafka.ClientProperties.none())).stream()
                .map(Leftovers.Step::toString)).containsExactly("schema rl_dead01 in " + url + ": dropped (if it was there)");
        try (Connection c = pg.connect(url); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'rl_dead%' ORDER BY 1")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("rl_dead010");
            assertThat(rs.next()).isFalse();
        }
        assertThat(Leftovers.find(work).runs()).isEmpty();
    }
}
