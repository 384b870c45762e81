package io.replaylab.kafka;

/**
 * One partition of a group's snapshot.
 *
 * @param committed the group's committed offset, or {@link #NONE}; for a share group its start offset (the first record
 *        not yet acknowledged, archived or skipped: where the share-partition window begins), or {@link #NONE} while no
 *        member has fetched from the partition
 * @param leaderEpoch of the committed offset, or null
 * @param owner member id that owns the partition now, or null (a share group's partitions are shared: see the members' assignments)
 * @param reportedLag the lag as the broker reports it (share groups, KIP-1226: records not yet delivered and acknowledged),
 *        or null: then {@link #lag()} computes it from the offsets
 */
public record PartitionOffsets(String topic, int partition, long committed, Integer leaderEpoch, long logStart, long logEnd,
        String owner, Long reportedLag) {
    public static final long NONE = -1;

    /** A consumer group's partition: its lag is computed from the offsets. */
    public PartitionOffsets(String topic, int partition, long committed, Integer leaderEpoch, long logStart, long logEnd, String owner) {
        this(topic, partition, committed, leaderEpoch, logStart, logEnd, owner, null);
    }

    public PartitionRef ref() {
        return new PartitionRef(topic, partition);
    }

    public boolean hasCommitted() {
        return committed >= 0;
    }

    /**
     * Records not yet consumed by the group: as the broker reports it, else from its committed offset, or the whole log
     * when it has none.
     */
    public long lag() {
        if (reportedLag != null) {
            return reportedLag;
        }
        return hasCommitted() ? Math.max(0, logEnd - committed) : logEnd - logStart;
    }
}
