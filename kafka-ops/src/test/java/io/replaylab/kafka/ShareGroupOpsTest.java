package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.testing.ShareConsumers;
import io.replaylab.kafka.testing.ShareGroupTool;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share groups (KIP-932) on the real broker: a real share consumer acknowledges, KafkaOps describes it as
 * {@code kafka-share-groups --describe} does, and resets the start offsets of an empty group through the
 * guards of a consumer group's reset, planning what Kafka's own tool plans.
 */
@LocalKafkaTest
class ShareGroupOpsTest {
    private static final int PER_PARTITION = 10;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    /** Record i of each partition is stamped {@code base + i s}, so a datetime names an offset. */
    private static Instant produce(LocalKafka kafka, LabNamespace ns) throws ExecutionException, InterruptedException {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 2);
        Instant base = Instant.now().minus(Duration.ofMinutes(5)).truncatedTo(ChronoUnit.SECONDS);
        try (KafkaProducer<String, String> producer = Clients.producer(kafka.bootstrapServers())) {
            for (int p = 0; p < 2; p++) {
                for (int i = 0; i < PER_PARTITION; i++) {
                    producer.send(new ProducerRecord<>(ns.topic(), p, base.plusSeconds(i).toEpochMilli(), "k" + i, "v-" + p + "-" + i)).get();
                }
            }
        }
        return base;
    }

    /** A share consumer that has received and acknowledged every record: still a member when returned. */
    private static KafkaShareConsumer<String, String> consumeAll(LocalKafka kafka, LabNamespace ns) {
        ShareConsumers.startAtEarliest(kafka.bootstrapServers(), ns.group());
        KafkaShareConsumer<String, String> c = ShareConsumers.open(kafka.bootstrapServers(), ns.group(), "share-a", List.of(ns.topic()));
        ShareConsumers.acknowledge(c, 2 * PER_PARTITION, WAIT);
        return c;
    }

    private static boolean startOffsetsAre(OffsetSnapshot s, long p0, long p1) {
        Map<PartitionRef, PartitionOffsets> by = s.byPartition();
        PartitionOffsets a = by.get(new PartitionRef(s.partitions().isEmpty() ? "" : s.partitions().get(0).topic(), 0));
        PartitionOffsets b = by.get(new PartitionRef(s.partitions().isEmpty() ? "" : s.partitions().get(0).topic(), 1));
        return a != null && b != null && a.committed() == p0 && b.committed() == p1;
    }

    private ExecuteResetOptions options(LabNamespace ns) {
        return ExecuteResetOptions.custom().allowPrefix(ns.prefix()).planDir(dir.resolve("plans")).build();
    }

    @Test
    void aShareConsumerThatAcknowledgedEverythingIsDescribedAsKafkasToolDescribesItAndAResetIsRefusedWhileItIsIn(LocalKafka kafka,
            LabNamespace ns, KafkaOps ops) throws Exception {
        produce(kafka, ns);
        try (KafkaShareConsumer<String, String> c = consumeAll(kafka, ns)) {
            // every record acknowledged: lag 0. The start offset need not have moved yet: the broker advances the persisted
            // start offset lazily (it stays 0 here until the window moves on), and counts the acknowledged records in the lag
            OffsetSnapshot s = ShareConsumers.await(ops, ns.group(), x -> x.members().size() == 1 && x.partitions().size() == 2
                    && x.partitions().stream().allMatch(p -> p.hasCommitted() && p.lag() == 0), "one member, start offsets, lag 0", WAIT);

            assertThat(s.groupType()).isEqualTo(GroupType.SHARE);
            assertThat(s.protocol()).isEqualTo("share");
            assertThat(s.state()).isEqualTo(GroupState.STABLE);
            GroupMember member = s.members().get(0);
            assertThat(member.clientId()).isEqualTo("share-a");
            assertThat(member.host()).isNotBlank();
            assertThat(member.assignment()).containsExactly(new PartitionRef(ns.topic(), 0), new PartitionRef(ns.topic(), 1));
            assertThat(s.partitions()).allSatisfy(p -> {
                assertThat(p.logEnd()).isEqualTo(PER_PARTITION);
                assertThat(p.reportedLag()).isEqualTo(0L);
            });

            // Kafka's own kafka-share-groups.sh on the same broker: the same start offsets, lag, members and state
            String b = kafka.bootstrapServers();
            List<List<String>> offsets = ShareGroupTool.run("--bootstrap-server", b, "--describe", "--group", ns.group(), "--offsets")
                    .rows("GROUP");
            assertThat(offsets).containsExactlyElementsOf(s.partitions().stream()
                    .map(p -> List.of(ns.group(), p.topic(), Integer.toString(p.partition()), Long.toString(p.committed()), Long.toString(p.lag())))
                    .toList());
            List<List<String>> members = ShareGroupTool.run("--bootstrap-server", b, "--describe", "--group", ns.group(), "--members").rows("GROUP");
            assertThat(members).hasSize(1);
            assertThat(members.get(0)).startsWith(ns.group(), member.memberId(), member.host(), member.clientId(), "2");
            List<List<String>> state = ShareGroupTool.run("--bootstrap-server", b, "--describe", "--group", ns.group(), "--state").rows("GROUP");
            assertThat(state).hasSize(1);
            assertThat(state.get(0).get(0)).isEqualTo(ns.group());
            assertThat(state.get(0)).endsWith("Stable", "1");

            ResetPlan plan = ops.planReset(ns.group(), GroupType.SHARE, ResetScope.allTopics(), ResetTargets.toEarliest());
            assertThatThrownBy(() -> ops.executeReset(plan, options(ns)))
                    .isInstanceOf(ResetRefusedException.class)
                    .hasMessageContaining("share group '" + ns.group() + "' is Stable with 1 member(s) [share-a@")
                    .hasMessageContaining("(member " + member.memberId() + ")")
                    .hasMessageContaining("stop its share consumers before executing a reset");
            assertThat(startOffsetsAre(ops.describe(ns.group(), GroupType.SHARE), s.partitions().get(0).committed(), s.partitions().get(1).committed()))
                    .isTrue();
            assertThat(dir.resolve("plans")).doesNotExist();
        }
    }

    @Test
    void anEmptyShareGroupIsResetToEarliestOffsetDatetimeAndLatestAsPlannedAndAsKafkasToolPlansItAndRestoredFromTheSavedPlan(LocalKafka kafka,
            LabNamespace ns, KafkaOps ops) throws Exception {
        Instant base = produce(kafka, ns);
        consumeAll(kafka, ns).close();
        ShareConsumers.await(ops, ns.group(), x -> x.state() == GroupState.EMPTY && x.partitions().size() == 2
                && x.partitions().stream().allMatch(p -> p.hasCommitted() && p.lag() == 0), "Empty, every record acknowledged", WAIT);

        resetAndCompareWithTheTool(kafka, ns, ops, ResetTargets.toLatest(), PER_PARTITION, "--to-latest");
        ResetResult earliest = resetAndCompareWithTheTool(kafka, ns, ops, ResetTargets.toEarliest(), 0, "--to-earliest");
        // the acknowledgements went with the reset: every record is to be delivered again
        assertThat(ops.describe(ns.group(), GroupType.SHARE).partitions()).extracting(PartitionOffsets::lag).containsExactly(10L, 10L);
        SavedPlan saved = ResetPlans.load(earliest.saved().file());
        assertThat(saved.status()).isEqualTo(SavedPlan.Status.APPLIED);
        assertThat(saved.plan()).isEqualTo(earliest.plan());
        assertThat(saved.plan().groupType()).isEqualTo(GroupType.SHARE);
        assertThat(saved.plan().previousOffsets().values()).containsExactly((long) PER_PARTITION, (long) PER_PARTITION);
        assertThat(earliest.caveat()).contains(ResetPlan.SHARE_GROUP_CAVEAT);
        assertThat(saved.statusDetail()).contains("no restore brings them back");

        ResetPlan back = ops.planRestore(saved);
        assertThat(back.groupType()).isEqualTo(GroupType.SHARE);
        assertThat(back.caveat()).isPresent();
        assertThat(back.rows()).extracting(PlanRow::previous, PlanRow::next)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 10L), org.assertj.core.groups.Tuple.tuple(0L, 10L));
        assertThat(ops.executeReset(back, options(ns)).allLanded()).isTrue();
        assertThat(startOffsetsAre(ops.describe(ns.group(), GroupType.SHARE), PER_PARTITION, PER_PARTITION)).isTrue();

        resetAndCompareWithTheTool(kafka, ns, ops, ResetTargets.toOffset(4), 4, "--to-offset", "4");
        String at6 = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS").withZone(ZoneOffset.UTC).format(base.plusSeconds(6));
        resetAndCompareWithTheTool(kafka, ns, ops, ResetTargets.toDatetime(base.plusSeconds(6)), 6, "--to-datetime", at6);
    }

    /**
     * Plans {@code target} (the dry run), compares it with {@code kafka-share-groups --reset-offsets --dry-run} on the
     * same group, executes the plan and checks that both partitions' start offsets are now {@code expected}.
     */
    private ResetResult resetAndCompareWithTheTool(LocalKafka kafka, LabNamespace ns, KafkaOps ops, ResetTarget target, long expected,
            String... toolTarget) {
        ResetPlan plan = ops.planReset(ns.group(), GroupType.SHARE, ResetScope.topics(ns.topic()), target);
        assertThat(plan.rows()).extracting(PlanRow::next).containsExactly(expected, expected);

        List<String> args = new java.util.ArrayList<>(List.of("--bootstrap-server", kafka.bootstrapServers(), "--reset-offsets",
                "--group", ns.group(), "--topic", ns.topic(), "--dry-run"));
        args.addAll(List.of(toolTarget));
        ShareGroupTool.Run tool = ShareGroupTool.run(args.toArray(String[]::new));
        assertThat(tool.exitCode()).as(tool.out() + tool.err()).isZero();
        // the tool prints its plan in hash order
        assertThat(tool.rows("GROUP")).containsExactlyInAnyOrderElementsOf(plan.rows().stream()
                .map(r -> List.of(ns.group(), r.topic(), Integer.toString(r.partition()), Long.toString(r.next()))).toList());

        ResetResult done = ops.executeReset(plan, options(ns));
        assertThat(done.allLanded()).as(done.saved().statusDetail()).isTrue();
        assertThat(done.partitions()).extracting(ResetResult.PartitionResult::actual).containsExactly(expected, expected);
        assertThat(startOffsetsAre(ops.describe(ns.group(), GroupType.SHARE), expected, expected)).isTrue();
        return done;
    }

    @Test
    void aConsumerGroupIsNotDescribedAsAShareGroupAndAShareGroupWithoutStartOffsetsNeedsNamedTopics(LocalKafka kafka, LabNamespace ns,
            KafkaOps ops) {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        io.replaylab.kafka.testing.Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 0);

        assertThatThrownBy(() -> ops.describe(ns.group(), GroupType.SHARE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("group '" + ns.group() + "' is a classic group, not a share group");
        assertThat(ops.describe(ns.group("missing"), GroupType.SHARE).state()).isEqualTo(GroupState.NOT_FOUND);
        assertThatThrownBy(() -> ops.planReset(ns.group("missing"), GroupType.SHARE, ResetScope.allTopics(), ResetTargets.toEarliest()))
                .hasMessageContaining("has no start offsets");
    }

    @Test
    void aGroupsConfigsSetWithinTheBrokersBoundsAreReadBackAndOneBelowItsFloorIsRefusedNamingIt(LabNamespace ns, KafkaOps ops) {
        ops.setGroupConfigs(ns.group(), Map.of("share.record.lock.duration.ms", "4000", "share.auto.offset.reset", "earliest"));

        Map<String, String> configs = ops.groupConfigs(ns.group());
        assertThat(configs).containsEntry("share.record.lock.duration.ms", "4000").containsEntry("share.auto.offset.reset", "earliest");
        assertThatThrownBy(() -> ops.setGroupConfigs(ns.group(), Map.of("share.record.lock.duration.ms", "10")))
                .isInstanceOf(KafkaOpsException.class).hasMessageContaining("share.record.lock.duration.ms");
        assertThat(ops.groupConfigs(ns.group())).containsEntry("share.record.lock.duration.ms", "4000");
    }
}
