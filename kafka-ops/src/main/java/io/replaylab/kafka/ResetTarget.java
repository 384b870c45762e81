package io.replaylab.kafka;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where a reset moves each partition; the variants are in {@link ResetTargets}. The planner clamps
 * the result to [log start, log end] and notes every clamp.
 */
public interface ResetTarget {
    /** In {@link #desired}: remove the partition's committed offset (restore of a partition that had none). */
    long REMOVE = Long.MIN_VALUE;

    /** As in the plan and the CLI, e.g. {@code to-earliest}, {@code shift-by -10}. */
    String describe();

    /**
     * The new offset of each partition before clamping (any long, negative ones included: the
     * planner clamps), or {@link #REMOVE}.
     */
    Map<PartitionRef, Long> desired(List<PartitionOffsets> current, OffsetLookup lookup);

    /** Targets that name their own partitions (a CSV file, a saved plan) decide the scope themselves. */
    default Optional<Set<PartitionRef>> ownPartitions() {
        return Optional.empty();
    }
}
