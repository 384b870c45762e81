package io.replaylab.barrier;

import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One partition's offset that a held commit is about to store, as the barrier read it from the
 * call (debugger, decorator) or from the request (wire). Typed, so the experiment never parses text.
 */
public record CommitOffset(String topic, int partition, long offset) {
    static final Comparator<CommitOffset> ORDER = Comparator.comparing(CommitOffset::topic).thenComparingInt(CommitOffset::partition);

    /** {@code topic-partition}, Kafka's own spelling of a partition. */
    public String partitionName() {
        return topic + "-" + partition;
    }

    /** {@code t-0=5,t-1=7}: how an arrival's context shows them to a person. */
    public static String text(List<CommitOffset> offsets) {
        return offsets.stream().sorted(ORDER).map(o -> o.partitionName() + "=" + o.offset()).collect(Collectors.joining(","));
    }
}
