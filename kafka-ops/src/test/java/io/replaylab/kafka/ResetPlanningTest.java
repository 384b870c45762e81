package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Offsets;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** Planning is a dry run: every target and scope against hand-computed offsets; nothing changes. */
@LocalKafkaTest
class ResetPlanningTest {

    /** Topic with 3 partitions of 10 records; the group committed 5, 7 and 10. */
    private static KafkaOps setUp(LocalKafka kafka, LabNamespace ns) {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 3, 10);
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 5, 1, 7, 2, 10);
        return KafkaOps.connect(kafka.bootstrapServers());
    }

    private static List<Long> next(ResetPlan plan) {
        return plan.rows().stream().map(PlanRow::next).toList();
    }

    @Test
    void describeShowsCommittedOffsetsLogBoundsLagAndAnInactiveGroup(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            OffsetSnapshot s = ops.describe(ns.group());

            assertThat(s.state()).isEqualTo(GroupState.EMPTY);
            assertThat(s.state().isInactive()).isTrue();
            assertThat(s.members()).isEmpty();
            assertThat(s.partitions()).extracting(PartitionOffsets::committed).containsExactly(5L, 7L, 10L);
            assertThat(s.partitions()).extracting(PartitionOffsets::logEnd).containsExactly(10L, 10L, 10L);
            assertThat(s.partitions()).extracting(PartitionOffsets::lag).containsExactly(5L, 3L, 0L);
            assertThat(s.totalLag()).isEqualTo(8);
            assertThat(s.coordinator()).startsWith("127.0.0.1:");
        }
    }

    @Test
    void describeOfAGroupThatDoesNotExistIsNotFound(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            OffsetSnapshot s = ops.describe(ns.group("never"));
            assertThat(s.state()).isEqualTo(GroupState.NOT_FOUND);
            assertThat(s.partitions()).isEmpty();
        }
    }

    @Test
    void everySimpleTargetPlansHandComputedOffsetsWithPreviousOnes(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetScope all = ResetScope.allTopics();
            assertThat(next(ops.planReset(ns.group(), all, ResetTargets.toEarliest()))).containsExactly(0L, 0L, 0L);
            assertThat(next(ops.planReset(ns.group(), all, ResetTargets.toLatest()))).containsExactly(10L, 10L, 10L);
            assertThat(next(ops.planReset(ns.group(), all, ResetTargets.toCurrent()))).containsExactly(5L, 7L, 10L);
            assertThat(next(ops.planReset(ns.group(), all, ResetTargets.toOffset(3)))).containsExactly(3L, 3L, 3L);
            ResetPlan shifted = ops.planReset(ns.group(), all, ResetTargets.shiftBy(-2));
            assertThat(next(shifted)).containsExactly(3L, 5L, 8L);
            assertThat(shifted.rows()).extracting(PlanRow::previous).containsExactly(5L, 7L, 10L);
            assertThat(shifted.target()).isEqualTo("shift-by -2");
            // planning changed nothing
            assertThat(ops.describe(ns.group()).partitions()).extracting(PartitionOffsets::committed).containsExactly(5L, 7L, 10L);
        }
    }

    @Test
    void outOfRangeTargetsAreClampedBothWaysAndThePlanSaysSo(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan up = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.shiftBy(-8));
            assertThat(next(up)).containsExactly(0L, 0L, 2L);
            assertThat(up.rows().get(0).note()).isEqualTo("clamped up from -3 to log start 0");
            assertThat(up.rows().get(2).note()).isNull();

            ResetPlan down = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toOffset(50));
            assertThat(next(down)).containsExactly(10L, 10L, 10L);
            assertThat(down.rows()).allSatisfy(r -> assertThat(r.note()).isEqualTo("clamped down from 50 to log end 10"));
        }
    }

    @Test
    void datetimeAndDurationFindTheFirstRecordAtOrAfterTheTime(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        Instant base = Instant.now().minus(Duration.ofHours(10));
        try (KafkaProducer<String, String> p = Clients.producer(kafka.bootstrapServers())) {
            for (int i = 0; i < 8; i++) {
                p.send(new ProducerRecord<>(ns.topic(), 0, base.plus(Duration.ofHours(i)).toEpochMilli(), "k", "v" + i)).get();
            }
        }
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 8);
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            ResetScope all = ResetScope.allTopics();
            assertThat(next(ops.planReset(ns.group(), all, ResetTargets.toDatetime(base.plus(Duration.ofMinutes(210)))))).containsExactly(4L);
            assertThat(next(ops.planReset(ns.group(), all, ResetTargets.toDatetime(base)))).containsExactly(0L);
            assertThat(next(ops.planReset(ns.group(), all, ResetTargets.toDatetime(Instant.now().plusSeconds(60))))).containsExactly(8L);
            // now - 6.5 h = base + 3.5 h
            assertThat(next(ops.planReset(ns.group(), all, ResetTargets.byDuration(Duration.ofMinutes(390))))).containsExactly(4L);
        }
    }

    @Test
    void scopesSelectAllCommittedTopicsWholeTopicsOrNamedPartitions(LocalKafka kafka, LabNamespace ns) {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic("a"), 3);
        Clients.createTopic(kafka.bootstrapServers(), ns.topic("b"), 2);
        Clients.fill(kafka.bootstrapServers(), ns.topic("a"), 3, 4);
        Clients.fill(kafka.bootstrapServers(), ns.topic("b"), 2, 4);
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic("a"), 0, 1, 1, 2);
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic("b"), 1, 3);
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            assertThat(ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest()).rows())
                    .extracting(PlanRow::ref)
                    .containsExactly(PartitionRef.of(ns.topic("a"), 0), PartitionRef.of(ns.topic("a"), 1), PartitionRef.of(ns.topic("b"), 1));
            ResetPlan whole = ops.planReset(ns.group(), ResetScope.topics(ns.topic("a")), ResetTargets.toEarliest());
            assertThat(whole.rows()).extracting(PlanRow::partition).containsExactly(0, 1, 2);
            assertThat(whole.rows()).extracting(PlanRow::previous).containsExactly(1L, 2L, PartitionOffsets.NONE);
            assertThat(ops.planReset(ns.group(), ResetScope.topics(ns.topic("a") + ":0,2"), ResetTargets.toLatest()).rows())
                    .extracting(PlanRow::partition, PlanRow::next).containsExactly(
                            org.assertj.core.groups.Tuple.tuple(0, 4L), org.assertj.core.groups.Tuple.tuple(2, 4L));
            assertThatThrownBy(() -> ops.planReset(ns.group(), ResetScope.topics(ns.topic("a") + ":7"), ResetTargets.toLatest()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition 7").hasMessageContaining("does not exist");
            assertThatThrownBy(() -> ops.planReset(ns.group("none"), ResetScope.allTopics(), ResetTargets.toLatest()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no committed offsets");
        }
    }

    @Test
    void csvExportIsWhatKafkasToolReadsAndReadsBackToTheSameOffsets(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan plan = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.shiftBy(-1));
            String csv = ResetPlans.toCsv(plan);
            assertThat(csv).isEqualTo(ns.topic() + ",0,4\n" + ns.topic() + ",1,6\n" + ns.topic() + ",2,9\n");

            Map<PartitionRef, Long> back = ResetPlans.parseCsv(csv, "plan.csv");
            assertThat(back).isEqualTo(plan.nextOffsets());
            ResetPlan fromFile = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toOffsets("from-file plan.csv", back));
            assertThat(next(fromFile)).containsExactly(4L, 6L, 9L);
        }
    }

    @Test
    void malformedCsvNamesItsLine() {
        assertThatThrownBy(() -> ResetPlans.parseCsv("t,0,5\nt,1\n", "offsets.csv"))
                .hasMessageContaining("offsets.csv line 2").hasMessageContaining("expected topic,partition,offset");
        assertThatThrownBy(() -> ResetPlans.parseCsv("t,0,5\n\nt,x,5\n", "offsets.csv"))
                .hasMessageContaining("offsets.csv line 3").hasMessageContaining("'x' is not a number");
        assertThatThrownBy(() -> ResetPlans.parseCsv("t,0,-5\n", "o.csv")).hasMessageContaining("line 1");
        assertThatThrownBy(() -> ResetPlans.parseCsv("t,0,5\nt,0,6\n", "o.csv")).hasMessageContaining("appears twice");
        assertThatThrownBy(() -> ResetPlans.parseCsv("\n", "o.csv")).hasMessageContaining("holds no");
    }

    @Test
    void topicSpecsParseLikeKafkasTool() {
        assertThat(ResetScope.topics("t:0,2").describe()).isEqualTo("t:0,2");
        assertThatThrownBy(() -> ResetScope.topics("t:x")).hasMessageContaining("'x' is not a partition number");
        assertThatThrownBy(() -> ResetScope.topics(List.of())).hasMessageContaining("ResetScope.allTopics");
    }

    @Test
    void describeMakesAFixedNumberOfRequestsWhateverThePartitionCount(LocalKafka kafka, LabNamespace ns)
            throws ExecutionException, InterruptedException {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic("small"), 2);
        Clients.createTopic(kafka.bootstrapServers(), ns.topic("big"), 60);
        long[] all = new long[120];
        for (int i = 0; i < 60; i++) {
            all[2 * i] = i;
        }
        Offsets.commit(kafka.bootstrapServers(), ns.group("small"), ns.topic("small"), 0, 0, 1, 0);
        Offsets.commit(kafka.bootstrapServers(), ns.group("big"), ns.topic("big"), all);
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            ops.describe(ns.group("small")); // warm up metadata and coordinator lookup
            long a = ops.requestCount();
            ops.describe(ns.group("small"));
            long small = ops.requestCount() - a;
            ops.describe(ns.group("big"));
            long b = ops.requestCount();
            ops.describe(ns.group("big"));
            long big = ops.requestCount() - b;
            assertThat(small).isPositive();
            assertThat(big).isLessThanOrEqualTo(small + 2);
        }
    }

    @Test
    void anOffsetExactlyAtTheLogStartOrEndIsTakenAsItIsWithoutAClampNote(LocalKafka kafka, LabNamespace ns) {
        try (KafkaOps ops = setUp(kafka, ns)) {
            ResetPlan atStart = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toOffset(0));
            assertThat(atStart.rows()).isNotEmpty().allSatisfy(r -> {
                assertThat(r.next()).isZero();
                assertThat(r.note()).isNull();
            });
            Map<PartitionRef, Long> ends = new java.util.HashMap<>();
            atStart.before().partitions().forEach(p -> ends.put(p.ref(), p.logEnd()));
            ResetPlan atEnd = ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toOffsets("the log ends", ends));
            assertThat(atEnd.rows()).isNotEmpty().allSatisfy(r -> {
                assertThat(r.next()).isEqualTo(ends.get(r.ref()));
                assertThat(r.note()).isNull();
            });
        }
    }
}
