package io.replaylab.kafka;

import java.util.Comparator;
import java.util.Objects;

/** A topic partition as a plain value, ordered by topic then partition. */
public record PartitionRef(String topic, int partition) implements Comparable<PartitionRef> {
    private static final Comparator<PartitionRef> ORDER = Comparator.comparing(PartitionRef::topic).thenComparingInt(PartitionRef::partition);

    public PartitionRef {
        Objects.requireNonNull(topic, "topic");
        if (topic.isBlank()) {
            throw new IllegalArgumentException("topic must not be blank");
        }
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0, was " + partition + " for topic " + topic);
        }
    }

    public static PartitionRef of(String topic, int partition) {
        return new PartitionRef(topic, partition);
    }

    @Override
    public int compareTo(PartitionRef o) {
        return ORDER.compare(this, o);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
