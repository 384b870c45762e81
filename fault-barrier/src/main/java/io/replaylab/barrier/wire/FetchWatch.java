package io.replaylab.barrier.wire;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lowest offset the subjects asked to fetch from each partition of one topic, from the moment
 * the watch opened: the wire's proof that a consumer read a range again (a consumer that skips to the
 * log end after a reset never fetches below its end). Opened with {@link WireWitness#watchFetches};
 * closing it stops the watch. Fetch requests are read only while some watch is open.
 */
public final class FetchWatch implements AutoCloseable {
    private final WireWitness witness;
    private final String topic;
    private final Map<Integer, Long> lowest = new ConcurrentHashMap<>();

    FetchWatch(WireWitness witness, String topic) {
        this.witness = witness;
        this.topic = topic;
    }

    public String topic() {
        return topic;
    }

    /** Partition → the lowest fetch offset seen so far; a partition nobody fetched is absent. */
    public Map<Integer, Long> lowestOffsets() {
        return new TreeMap<>(lowest);
    }

    void fetched(int partition, long offset) {
        lowest.merge(partition, offset, Math::min);
    }

    @Override
    public void close() {
        witness.unwatch(this);
    }
}
