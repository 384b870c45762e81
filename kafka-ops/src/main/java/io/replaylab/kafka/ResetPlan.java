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
 *
 * <p>For a share group ({@link #groupType()}) the offsets are share-partition start offsets, and the
 * plan moves only those: see {@link #caveat()}.
 */
public record ResetPlan(String planId, Instant createdAt, String bootstrap, String group, String scope, String target,
        List<PlanRow> rows, OffsetSnapshot before) {

    public ResetPlan {
        Objects.requireNonNull(planId, "planId");
        Objects.requireNonNull(group, "group");
        rows = rows.stream().sorted((a, b) -> a.ref().compareTo(b.ref())).toList();
    }

    /** The caveat of every share-group reset and restore, as {@link #caveat()} says it. */
    public static final String SHARE_GROUP_CAVEAT = "a share group's reset moves only its start offsets: which records of the "
            + "share-partition window were acquired, acknowledged, released or archived, and their delivery counts, are not "
            + "saved and no restore brings them back; after a restore every record from the restored start offset is "
            + "delivered again, acknowledged ones included";

    /** A share group's start offsets (its snapshot says so), else a consumer group's committed offsets. */
    public GroupType groupType() {
        return before != null ? before.groupType() : GroupType.CONSUMER;
    }

    /** What the plan cannot do, said before it runs: for a share group {@link #SHARE_GROUP_CAVEAT}; empty for a consumer group. */
    public java.util.Optional<String> caveat() {
        return groupType() == GroupType.SHARE ? java.util.Optional.of(SHARE_GROUP_CAVEAT) : java.util.Optional.empty();
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
