package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The edges PIT found unguarded: offset 0 and partition 0 are real positions, generation 0 is not. No broker needed. */
class PlanBoundariesTest {
    private static ResetPlan plan(PlanRow... rows) {
        return new ResetPlan("p1", Instant.EPOCH, "127.0.0.1:9092", "g", "all", "to-earliest", List.of(rows), null);
    }

    @Test
    void offsetZeroIsExportedAndReadBackAndANoneOffsetIsLeftOut() {
        String csv = ResetPlans.toCsv(plan(new PlanRow("t", 0, 5, 0, null), new PlanRow("t", 1, 3, PartitionOffsets.NONE, "removes"),
                new PlanRow("t", 2, 0, 1, null)));
        assertThat(csv).isEqualTo("t,0,0\nt,2,1\n");
        assertThat(ResetPlans.parseCsv(csv, "plan.csv")).isEqualTo(Map.of(new PartitionRef("t", 0), 0L, new PartitionRef("t", 2), 1L));
    }

    @Test
    void aNegativeOffsetOrPartitionOrAnUnnamedTopicIsRefusedWithItsLine() {
        assertThatThrownBy(() -> ResetPlans.parseCsv("t,-1,0\n", "o.csv")).hasMessageContaining("o.csv line 1");
        assertThatThrownBy(() -> ResetPlans.parseCsv("t,0,0\n ,0,0\n", "o.csv")).hasMessageContaining("o.csv line 2");
    }

    @Test
    void inboxGenerationsStartAtOne() {
        LabNamespace ns = LabNamespace.of("rl-x");
        assertThat(ns.inbox(1)).isEqualTo("rl-x/g1");
        assertThat(ns.inbox(2)).isEqualTo("rl-x/g2");
        assertThatThrownBy(() -> ns.inbox(0)).isInstanceOf(IllegalArgumentException.class).hasMessage("generation starts at 1, was 0");
    }
}
