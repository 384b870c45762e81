package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.replaylab.kafka.GroupType;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Offsets;
import io.replaylab.kafka.testing.ShareConsumers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@LocalKafkaTest
class OffsetsCommandTest {
    @TempDir
    Path dir;

    private static void setUp(LocalKafka kafka, LabNamespace ns) {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 2, 6);
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 4, 1, 6);
    }

    private static List<Long> committed(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            return ops.describe(ns.group()).partitions().stream().map(PartitionOffsets::committed).toList();
        }
    }

    @Test
    void describePrintsKafkasColumnsAndAStateLine(LocalKafka kafka, LabNamespace ns) {
        setUp(kafka, ns);
        Console r = Console.run("offsets", "describe", "--bootstrap-server", kafka.bootstrapServers(), "--group", ns.group());

        assertThat(r.rc()).isZero();
        assertThat(r.out()).contains("Consumer group '" + ns.group() + "' is Empty (classic) with 0 member(s)");
        assertThat(r.out()).containsPattern("GROUP +TOPIC +PARTITION +CURRENT-OFFSET +LOG-END-OFFSET +LAG +CONSUMER-ID +HOST +CLIENT-ID");
        assertThat(r.out()).containsPattern(ns.group() + " +" + ns.topic() + " +0 +4 +6 +2 +- +- +-");
    }

    @Test
    void aShareGroupIsDescribedByItsStartOffsetsAndResetThroughTheSameGuardsWithItsCaveat(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 2, 6);
        String group = ns.prefix() + ".share";
        ShareConsumers.startAtEarliest(kafka.bootstrapServers(), group);
        try (var c = ShareConsumers.open(kafka.bootstrapServers(), group, "share-cli", List.of(ns.topic()))) {
            ShareConsumers.acknowledge(c, 12, java.time.Duration.ofSeconds(30));
            Console live = Console.run("offsets", "reset", "--bootstrap-server", kafka.bootstrapServers(), "--share-group", group, "--all-topics", "--to-earliest",
                    "--execute", "--plan-dir", dir.toString(), "--allow-prefix", ns.prefix());
            assertThat(live.rc()).as("refused while a member is in: " + live.out()).isNotZero();
            assertThat(live.err()).contains("share group '" + group + "'").contains("share-cli");
        }
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            ShareConsumers.await(ops, group, s -> s.members().isEmpty(), "no member", java.time.Duration.ofSeconds(30));
        }

        Console d = Console.run("offsets", "describe", "--bootstrap-server", kafka.bootstrapServers(), "--share-group", group);
        assertThat(d.rc()).as(d.err()).isZero();
        assertThat(d.out()).contains("Share group '" + group + "' is Empty with 0 member(s)")
                .containsPattern("GROUP +TOPIC +PARTITION +START-OFFSET +LOG-END-OFFSET +LAG").containsPattern(ns.topic() + " +0 +\\d+ +6 +0 ");

        Console reset = Console.run("offsets", "reset", "--bootstrap-server", kafka.bootstrapServers(), "--share-group", group, "--all-topics", "--to-earliest",
                "--execute", "--plan-dir", dir.toString(), "--allow-prefix", ns.prefix());
        assertThat(reset.rc()).as(reset.err()).isZero();
        assertThat(reset.out()).contains("of share group '" + group + "'").contains("Note: a share group's reset moves only its start offsets");
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            assertThat(ops.describe(group, GroupType.SHARE).partitions()).extracting(PartitionOffsets::committed).containsExactly(0L, 0L);
            assertThat(ops.describe(group, GroupType.SHARE).partitions()).extracting(PartitionOffsets::lag).containsExactly(6L, 6L);
        }

        Console both = Console.run("offsets", "describe", "--bootstrap-server", kafka.bootstrapServers(), "--group", "g", "--share-group", group);
        assertThat(both.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(both.err()).contains("--group").contains("--share-group");
    }

    @Test
    void resetIsADryRunByDefaultAndExecuteSavesThePlan(LocalKafka kafka, LabNamespace ns) throws Exception {
        setUp(kafka, ns);
        String[] base = {"offsets", "reset", "--bootstrap-server", kafka.bootstrapServers(), "--group", ns.group(), "--all-topics",
                "--shift-by", "-3", "--plan-dir", dir.toString(), "--allow-prefix", ns.prefix()};

        Console dry = Console.run(base);
        assertThat(dry.rc()).isZero();
        assertThat(dry.out()).containsPattern("GROUP +TOPIC +PARTITION +NEW-OFFSET +PREVIOUS-OFFSET").contains("DRY RUN");
        assertThat(dry.out()).containsPattern(ns.topic() + " +0 +1 +4").containsPattern(ns.topic() + " +1 +3 +6");
        assertThat(committed(kafka, ns)).containsExactly(4L, 6L);

        List<String> exec = new ArrayList<>(List.of(base));
        exec.add("--execute");
        Console done = Console.run(exec.toArray(String[]::new));
        assertThat(done.rc()).as(done.err()).isZero();
        assertThat(done.out()).contains("Plan and previous offsets saved to " + dir);
        assertThat(committed(kafka, ns)).containsExactly(1L, 3L);
        try (var plans = Files.list(dir)) {
            Path plan = plans.filter(p -> p.toString().endsWith(".plan.json")).findFirst().orElseThrow();

            Console restore = Console.run("offsets", "restore", "--bootstrap-server", kafka.bootstrapServers(), "--plan", plan.toString(),
                    "--execute", "--plan-dir", dir.toString(), "--allow-prefix", ns.prefix());
            assertThat(restore.rc()).as(restore.err()).isZero();
        }
        assertThat(committed(kafka, ns)).containsExactly(4L, 6L);
    }

    @Test
    void refusedResetExitsWith4AndListsEveryFailedGuard(LocalKafka kafka, LabNamespace ns) {
        setUp(kafka, ns);
        Console r = Console.run("offsets", "reset", "--bootstrap-server", kafka.bootstrapServers(), "--group", ns.group(), "--all-topics",
                "--to-earliest", "--execute", "--plan-dir", dir.toString(), "--allow-prefix", "shared-");

        assertThat(r.rc()).isEqualTo(ReplayLab.REFUSED);
        assertThat(r.err()).contains("refused").contains("group '" + ns.group() + "' is outside").contains("topic '" + ns.topic() + "' is outside");
        assertThat(committed(kafka, ns)).containsExactly(4L, 6L);
    }

    @Test
    void theLibrarysWordsBecomeTheFlagsThatSetThem(LocalKafka kafka, LabNamespace ns) {
        setUp(kafka, ns);
        Console noPrefix = Console.run("offsets", "reset", "--bootstrap-server", kafka.bootstrapServers(), "--group", ns.group(), "--all-topics",
                "--to-earliest", "--execute", "--plan-dir", dir.toString());
        Console badOffset = Console.run("offsets", "reset", "--bootstrap-server", kafka.bootstrapServers(), "--group", ns.group(), "--all-topics",
                "--to-offset", "-3");

        assertThat(noPrefix.rc()).isEqualTo(ReplayLab.REFUSED);
        assertThat(noPrefix.err()).contains("pass the lab's synthetic prefix (--allow-prefix P)").doesNotContain("ExecuteResetOptions");
        assertThat(badOffset.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(badOffset.err()).contains("--to-offset must be >= 0, was -3").doesNotContain("ResetTargets");
        assertThat(committed(kafka, ns)).containsExactly(4L, 6L);
    }

    @Test
    void exportAndFromFileUseKafkasCsvAndAMalformedFileExits2NamingItsLine(LocalKafka kafka, LabNamespace ns) throws Exception {
        setUp(kafka, ns);
        Path csv = dir.resolve("plan.csv");
        Console export = Console.run("offsets", "reset", "--bootstrap-server", kafka.bootstrapServers(), "--group", ns.group(), "--topic",
                ns.topic() + ":1", "--to-offset", "2", "--export", csv.toString());
        assertThat(export.rc()).isZero();
        assertThat(Files.readString(csv)).isEqualTo(ns.topic() + ",1,2\n");

        Console fromFile = Console.run("offsets", "reset", "--bootstrap-server", kafka.bootstrapServers(), "--group", ns.group(),
                "--from-file", csv.toString());
        assertThat(fromFile.rc()).isZero();
        assertThat(fromFile.out()).containsPattern(ns.topic() + " +1 +2 +6");

        Files.writeString(csv, ns.topic() + ",1,2\nnonsense\n");
        Console bad = Console.run("offsets", "reset", "--bootstrap-server", kafka.bootstrapServers(), "--group", ns.group(), "--from-file", csv.toString());
        assertThat(bad.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(bad.err()).contains("line 2");
    }

    @Test
    void badArgumentsExit2() {
        Console none = Console.run("offsets", "reset", "--bootstrap-server", "127.0.0.1:1", "--group", "g", "--all-topics");
        assertThat(none.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(none.err()).contains("Missing required argument").contains("--to-earliest").contains("--by-duration");
        Console two = Console.run("offsets", "reset", "--bootstrap-server", "127.0.0.1:1", "--group", "g", "--all-topics", "--to-earliest", "--to-latest");
        assertThat(two.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(two.err()).contains("--to-earliest").contains("--to-latest").contains("mutually exclusive");
        Console scopes = Console.run("offsets", "reset", "--bootstrap-server", "127.0.0.1:1", "--group", "g", "--all-topics", "--topic", "t", "--to-earliest");
        assertThat(scopes.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(scopes.err()).contains("mutually exclusive");
        Console noScope = Console.run("offsets", "reset", "--bootstrap-server", "127.0.0.1:1", "--group", "g", "--to-earliest");
        assertThat(noScope.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(noScope.err()).contains("give --topic T[:p,p] (repeatable) or --all-topics");
        Console duration = Console.run("offsets", "reset", "--bootstrap-server", "127.0.0.1:1", "--group", "g", "--all-topics", "--by-duration", "90");
        assertThat(duration.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(duration.err()).contains("--by-duration").contains("'90' has no unit");
        assertThat(Console.run("offsets", "describe", "--group", "g").rc()).isEqualTo(ReplayLab.BAD_INPUT);
        Console both = Console.run("offsets", "reset", "--bootstrap-server", "127.0.0.1:1", "--group", "g", "--all-topics", "--to-earliest",
                "--dry-run", "--execute");
        assertThat(both.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(both.err()).contains("--dry-run").contains("--execute").contains("mutually exclusive");
    }

    @Test
    void unreachableBrokerExits5(@TempDir Path unused) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Console r = Console.run("offsets", "describe", "--bootstrap-server", "127.0.0.1:" + port, "--group", "g", "--timeout", "PT2S");
        assertThat(r.rc()).isEqualTo(ReplayLab.UNREACHABLE);
        assertThat(r.err()).contains("did not answer");
    }
}
