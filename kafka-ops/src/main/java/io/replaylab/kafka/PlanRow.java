package io.replaylab.kafka;

/**
 * One partition of a reset plan.
 *
 * @param previous the committed offset when the plan was made, or {@link PartitionOffsets#NONE}
 * @param next the offset the reset sets, or {@link PartitionOffsets#NONE} to remove the committed offset
 * @param note why {@code next} differs from what the target asked for (a clamp), or null
 */
public record PlanRow(String topic, int partition, long previous, long next, String note) {
    public PartitionRef ref() {
        return new PartitionRef(topic, partition);
    }
}
