package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Offsets;
import io.replaylab.kafka.testing.PollingConsumerMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** Executing a reset: only through every guard, with the plan saved first, verified after. */
@LocalKafkaTest
class GuardedResetTest {
    @TempDir
    Path dir;

    private static KafkaOps setUp(LocalKafka kafka, LabNamespace ns) {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 3, 10);
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 5, 1, 7);
        return KafkaOps.connect(kafka.bootstrapServers());
    }

    private ExecuteResetOptions options(LabNamespace ns) {
        return ExecuteResetOptions.custom().allowPrefix(ns.prefix()).planDir(dir.resolve("plans")).build();
    }

    /** Committed offsets of the group on the namespace's source topic. */
    private static List<Long> committed(KafkaOps ops, LabNamespace ns) {
        return ops.describe(ns.group()).partitions().stream().filter(p -> p.topic().equals(ns.topic()))
                .map(PartitionOffsets::committed).toList();
    }

    @Test
    void executedResetLandsEveryPartitionAndSavedThePlanWithPreviousOffsets(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());

            ResetResult result = ops.executeReset(plan, options(ns));

            assertThat(result.allLanded()).isTrue();
            assertThat(result.partitions()).extracting(ResetResult.PartitionResult::actual).containsExactly(0L, 0L);
            assertThat(committed(ops, ns)).containsExactly(0L, 0L);
            SavedPlan saved = ResetPlans.load(result.saved().file());
            assertThat(saved.status()).isEqualTo(SavedPlan.Status.APPLIED);
            assertThat(saved.plan().previousOffsets().values()).containsExactly(5L, 7L);
            assertThat(saved.plan()).isEqualTo(plan);
        }
    }

    @ParameterizedTest(name = "{0} protocol")
    @ValueSource(strings = {"classic", "consumer"})
    void activeGroupIsRefusedWithItsStateAndMembersAndNothingChanges(String protocol, LocalKafka kafka, LabNamespace ns) throws Exception {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
            Clients.createTopic(kafka.bootstrapServers(), ns.topic("other"), 1);
            Process consumer = PollingConsumerMain.start(kafka.bootstrapServers(), ns.topic("other"), ns.group(), protocol);
            try {
                assertThatThrownBy(() -> ops.executeReset(plan, options(ns)))
                        .isInstanceOf(ResetRefusedException.class)
                        .hasMessageContaining("is Stable with 1 member(s)")
                        .hasMessageMatching("(?s).* member\\(s\\) \\[[^\\]]+@[^\\]]+\\]; stop its consumers.*"); // who: client@host
            } finally {
                consumer.destroyForcibly().waitFor();
            }
            assertThat(committed(ops, ns)).containsExactly(5L, 7L);
            assertThat(dir.resolve("plans")).doesNotExist();
        }
    }

    @Test
    void aConsumerJoiningBetweenTheGuardsAndTheAlterIsRefusedByTheBrokerAndThePlanSaysNotApplied(LocalKafka kafka, LabNamespace ns)
            throws Exception {
        Process[] joined = new Process[1];
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
            Clients.createTopic(kafka.bootstrapServers(), ns.topic("other"), 1);
            ((AdminKafkaOps) ops).reset.beforeAlter = () -> { // the guards saw an inactive group; now it has a member
                try {
                    joined[0] = PollingConsumerMain.start(kafka.bootstrapServers(), ns.topic("other"), ns.group());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            try {
                assertThatThrownBy(() -> ops.executeReset(plan, options(ns)))
                        .isInstanceOf(KafkaOpsException.class)
                        .hasMessageContaining("the broker refused the reset of group '" + ns.group() + "'")
                        .hasMessageContaining("records that it did not apply");
                assertThat(committed(ops, ns)).containsExactly(5L, 7L);
            } finally {
                if (joined[0] != null) {
                    joined[0].destroyForcibly().waitFor();
                }
            }
            try (var files = Files.list(dir.resolve("plans"))) {
                SavedPlan saved = ResetPlans.load(files.filter(f -> f.toString().endsWith(".plan.json")).findFirst().orElseThrow());
                assertThat(saved.status()).isEqualTo(SavedPlan.Status.NOT_APPLIED);
                assertThat(saved.statusDetail()).contains("the broker refused the reset");
                assertThat(saved.plan()).isEqualTo(plan);
            }
        }
    }

    @Test
    void stalePlanIsRefused(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
            Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 1, 9);

            assertThatThrownBy(() -> ops.executeReset(plan, options(ns)))
                    .isInstanceOf(ResetRefusedException.class)
                    .hasMessageContaining("the plan is stale: " + ns.topic() + "-1 was committed at 7 when planned and is 9 now");
            assertThat(committed(ops, ns)).containsExactly(5L, 9L);
        }
    }

    @Test
    void groupOrTopicOutsideTheAllowedPrefixesIsRefusedAndNoPrefixAllowsNothing(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());

            ResetRefusedException e = org.junit.jupiter.api.Assertions.assertThrows(ResetRefusedException.class, () ->
                    ops.executeReset(plan, ExecuteResetOptions.custom().allowPrefix("shared-").planDir(dir).build()));
            assertThat(e.failedGuards()).containsExactly(
                    "group '" + ns.group() + "' is outside the allowed prefixes [shared-]",
                    "topic '" + ns.topic() + "' is outside the allowed prefixes [shared-]");

            assertThatThrownBy(() -> ops.executeReset(plan, ExecuteResetOptions.custom().planDir(dir).build()))
                    .hasMessageContaining("no allowed namespace prefix");
            assertThatThrownBy(() -> ExecuteResetOptions.custom().allowPrefix(" ")).hasMessageContaining("must not be blank");
            assertThat(committed(ops, ns)).containsExactly(5L, 7L);
        }
    }

    @Test
    void nonLoopbackBootstrapIsRefusedWithoutAllowRemote(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan remote = aimedAtAnotherCluster(ops, ns);

            assertThatThrownBy(() -> ops.executeReset(remote, options(ns)))
                    .isInstanceOf(ResetRefusedException.class)
                    .hasMessageContaining("bootstrap host '192.0.2.10' is not loopback");
            assertThat(Bootstraps.nonLoopbackHosts("localhost:9092,127.0.0.1:1,[::1]:9092")).isEmpty();
            assertThat(Bootstraps.nonLoopbackHosts("127.0.0.1:9092,198.51.100.7:9092")).containsExactly("198.51.100.7");
            assertThat(committed(ops, ns)).containsExactly(5L, 7L);
        }
    }

    @Test
    void planIsSavedBeforeTheAlterSoAnUnwritablePlanDirAltersNothing(LocalKafka kafka, LabNamespace ns) throws Exception {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
            Path notADir = Files.writeString(dir.resolve("plans-is-a-file"), "x");

            refusedAndUnchanged(ops, ns, plan, ExecuteResetOptions.custom().allowPrefix(ns.prefix()).planDir(notADir).build(), "cannot save the plan into " + notADir);
        }
    }

    @Test
    void allowRemoteLiftsOnlyTheLoopbackGuardAPlanMadeAgainstAnotherClusterIsStillRefused(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan remote = aimedAtAnotherCluster(ops, ns);

            ResetRefusedException e = org.junit.jupiter.api.Assertions.assertThrows(ResetRefusedException.class, () -> ops.executeReset(remote,
                    ExecuteResetOptions.custom().allowPrefix(ns.prefix()).allowRemote(true).planDir(dir.resolve("plans")).build()));

            assertThat(e.failedGuards()).containsExactly("the plan was made against 192.0.2.10:9092, not " + kafka.bootstrapServers());
            assertThat(committed(ops, ns)).containsExactly(5L, 7L);
            assertThat(dir.resolve("plans")).doesNotExist();
        }
    }

    @Test
    void aPlanDirThatCannotBeCreatedIsRefusedAndNothingIsCreated(LocalKafka kafka, LabNamespace ns) throws Exception {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
            Path file = Files.writeString(dir.resolve("a-file"), "x");
            Path below = file.resolve("plans").resolve("today"); // does not exist yet, and never can: its ancestor is a file

            refusedAndUnchanged(ops, ns, plan, ExecuteResetOptions.custom().allowPrefix(ns.prefix()).planDir(below).build(),
                    "cannot save the plan into " + below + ": " + file.toAbsolutePath() + " is not a directory");
            assertThat(Files.readString(file)).isEqualTo("x");
        }
    }

    @Test
    void aSaveThatFailsAfterTheProbeIsARefusalAndAltersNothing(LocalKafka kafka, LabNamespace ns) throws Exception {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
            Path plans = Files.createDirectories(dir.resolve("plans"));
            // the directory is writable (the probe passes), but the plan's own file name is taken by a non-empty directory
            Files.writeString(Files.createDirectories(ResetPlans.fileIn(plans, plan)).resolve("occupied"), "x");

            refusedAndUnchanged(ops, ns, plan, options(ns), "cannot save the plan into " + plans);
        }
    }

    @Test
    void anOffsetMovedByAnotherClientRightAfterTheAlterLeavesThePlanPartialAndSaysWhere(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
            ((AdminKafkaOps) ops).reset.afterAlter = () -> Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 1, 4);

            ResetResult result = ops.executeReset(plan, options(ns));

            assertThat(result.allLanded()).isFalse();
            SavedPlan saved = ResetPlans.load(result.saved().file());
            assertThat(saved.status()).isEqualTo(SavedPlan.Status.PARTIAL);
            assertThat(saved.statusDetail()).isEqualTo("applied, but not every partition landed: " + ns.topic() + "-1 is 4 not 0");
        }
    }

    @Test
    void everyFailedGuardIsReportedAtOnce(LocalKafka kafka, LabNamespace ns) throws Exception {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
            Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 6);
            ResetRefusedException e = org.junit.jupiter.api.Assertions.assertThrows(ResetRefusedException.class, () ->
                    ops.executeReset(plan, ExecuteResetOptions.custom().allowPrefix("shared-").build()));
            assertThat(e.failedGuards()).hasSize(4)
                    .anyMatch(g -> g.startsWith("group '"))
                    .anyMatch(g -> g.startsWith("topic '"))
                    .anyMatch(g -> g.startsWith("the plan is stale"))
                    .anyMatch(g -> g.startsWith("no plan directory"));
        }
    }

    @Test
    void restoreBringsBackTheExactPreviousOffsetsIncludingNone(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.topics(ns.topic()), ResetTargets.toOffset(2));
            assertThat(plan.rows()).extracting(PlanRow::previous).containsExactly(5L, 7L, PartitionOffsets.NONE);
            ResetResult done = ops.executeReset(plan, options(ns));
            assertThat(committed(ops, ns)).containsExactly(2L, 2L, 2L);

            ResetPlan back = ops.planRestore(ResetPlans.load(done.saved().file()));
            assertThat(back.rows()).extracting(PlanRow::next).containsExactly(5L, 7L, PartitionOffsets.NONE);
            ResetResult restored = ops.executeReset(back, options(ns));

            assertThat(restored.allLanded()).isTrue();
            assertThat(committed(ops, ns)).containsExactly(5L, 7L);
            assertThat(ops.describe(ns.group()).partition(PartitionRef.of(ns.topic(), 2))).isEmpty();
        }
    }

    @Test
    void savedPlanRoundTripsAndABadPlanFileNamesItself() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.plan.json"), "{\"nope\": 1}");
        assertThatThrownBy(() -> ResetPlans.load(bad)).hasMessageContaining(bad.toString()).hasMessageContaining("'plan'");
        assertThatThrownBy(() -> ResetPlans.load(dir.resolve("absent.json"))).hasMessageContaining("does not exist");
        OffsetSnapshot snap = new OffsetSnapshot(Instant.parse("2026-01-01T00:00:00Z"), "127.0.0.1:1", "g", GroupState.EMPTY,
                "classic", null, List.of(), List.of(new PartitionOffsets("t", 0, 3, null, 0, 9, null)));
        ResetPlan plan = new ResetPlan("p1", Instant.parse("2026-01-01T00:00:00Z"), "127.0.0.1:1", "g", "all-topics", "to-earliest",
                List.of(new PlanRow("t", 0, 3, 0, null)), snap);
        SavedPlan saved = ResetPlans.save(new SavedPlan(1, SavedPlan.Status.SAVED, "x", Instant.parse("2026-01-01T00:00:00Z"), plan,
                ResetPlans.fileIn(dir, plan)));
        assertThat(ResetPlans.load(saved.file())).isEqualTo(saved);
    }

    /** A real plan of the group's, as if made against another cluster (a TEST-NET-1 address: never contacted). */
    private static ResetPlan aimedAtAnotherCluster(KafkaOps ops, LabNamespace ns) {
        ResetPlan real = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
        return new ResetPlan(real.planId(), real.createdAt(), "192.0.2.10:9092", real.group(), real.scope(), real.target(), real.rows(), real.before());
    }

    /** The reset is refused saying {@code why}, and the group's offsets stay where {@link #setUp} put them. */
    private static void refusedAndUnchanged(KafkaOps ops, LabNamespace ns, ResetPlan plan, ExecuteResetOptions options, String why) {
        assertThatThrownBy(() -> ops.executeReset(plan, options)).isInstanceOf(ResetRefusedException.class).hasMessageContaining(why);
        assertThat(committed(ops, ns)).containsExactly(5L, 7L);
    }
}
