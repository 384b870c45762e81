package io.replaylab.kafka;

import java.time.Instant;
import java.util.Collection;
import java.util.Map;

/** Broker lookups a {@link ResetTarget} may need; each call is one batched request. */
public interface OffsetLookup {
    /** Per partition, the first offset whose timestamp is at or after {@code time}, or -1 when there is none. */
    Map<PartitionRef, Long> offsetsForTime(Collection<PartitionRef> partitions, Instant time);

    /** Now, as the planner sees it (for durations). */
    Instant now();
}
