package io.replaylab.kafka;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;


/**
 * A computed reset: what each partition of the group was and what it will be, with the snapshot it
 * was computed from. A value: print it, save it ({@link ResetPlans}), export it as the CSV that
 * {@code kafka-consumer-groups --from-file} reads, execute it through the guards.
 */
public record ResetPlan(String planId, Instant createdAt, String bootstrap, String group, String scope, String target,
        List<PlanRow> rows, OffsetSnapshot before) {

    public ResetPlan {
        Objects.requireNonNull(planId, "planId");
        Objects.requireNonNull(group, "group");
        rows = rows.stream().sorted((a, b) -> a.ref().compareTo(b.ref())).toList();
    }

    /** The offsets before the reset, for restore ({@link PartitionOffsets#NONE} where there was none). */
    public Map<PartitionRef, Long> previousOffsets() {
        Map<PartitionRef, Long> m = new TreeMap<>();
        rows.forEach(r -> m.put(r.ref(), r.previous()));
        return m;
    }

    public Map<PartitionRef, Long> nextOffsets() {
        Map<PartitionRef, Long> m = new TreeMap<>();
        rows.forEach(r -> m.put(r.ref(), r.next()));
        return m;
    }

    /** As an evidence event payload. */
    public OffsetsEvent.ResetPlanned toPayload(boolean dryRun, String savedAt) {
        return new OffsetsEvent.ResetPlanned(planId, group, target, dryRun, savedAt,
                rows.stream().map(r -> new OffsetsEvent.PlannedOffset(r.topic(), r.partition(), r.previous(), r.next(), r.note())).toList());
    }
}
