package io.replaylab.kafka;

/**
 * One partition of a group's snapshot.
 *
 * @param committed the group's committed offset, or {@link #NONE}
 * @param leaderEpoch of the committed offset, or null
 * @param owner member id that owns the partition now, or null
 */
public record PartitionOffsets(String topic, int partition, long committed, Integer leaderEpoch, long logStart, long logEnd,
        String owner) {
    public static final long NONE = -1;

    public PartitionRef ref() {
        return new PartitionRef(topic, partition);
    }

    public boolean hasCommitted() {
        return committed >= 0;
    }

    /** Records not yet consumed by the group: from its committed offset, or the whole log when it has none. */
    public long lag() {
        return hasCommitted() ? Math.max(0, logEnd - committed) : logEnd - logStart;
    }
}
