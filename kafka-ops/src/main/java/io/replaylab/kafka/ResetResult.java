package io.replaylab.kafka;

import java.util.List;

/** What an executed reset did, per partition, verified by describing the group again. */
public record ResetResult(ResetPlan plan, SavedPlan saved, List<PartitionResult> partitions, OffsetSnapshot after) {
    public ResetResult {
        partitions = List.copyOf(partitions);
    }

    /** One partition: planned vs. what the group's committed offset is now. */
    public record PartitionResult(String topic, int partition, long planned, long actual) {
        public boolean landed() {
            return planned == actual;
        }
    }

    /** What the reset could not do, from the plan ({@link ResetPlan#caveat()}): a share group's acknowledgement state. */
    public java.util.Optional<String> caveat() {
        return plan.caveat();
    }

    public boolean allLanded() {
        return partitions.stream().allMatch(PartitionResult::landed);
    }
}
