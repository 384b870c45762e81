package io.replaylab.barrier.wire;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the subjects fetched of one topic from the moment the watch opened: the lowest offset they
 * asked for per partition, and the offset ranges the broker's answers delivered. The wire's proof
 * that a consumer read a range again: a consumer that skips to the log end after a reset never asks
 * below its end, and one that asks once at the reset offset and then jumps is delivered one batch,
 * not the range. Opened with {@link WireWitness#watchFetches}; closing it stops the watch. Fetch
 * requests and their answers are read only while some watch is open.
 */
public final class FetchWatch implements AutoCloseable {
    private final WireWitness witness;
    private final String topic;
    private final Map<Integer, Long> lowest = new ConcurrentHashMap<>();
    /** Per partition, delivered ranges: start → end (exclusive), merged. Guarded by itself. */
    private final Map<Integer, java.util.TreeMap<Long, Long>> delivered = new java.util.HashMap<>();
    private volatile String unreadable;

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

    /** Whether the broker's answers delivered every offset of {@code [from, to)} of the partition (nothing to deliver: true). */
    public boolean deliveredAll(int partition, long from, long to) {
        synchronized (delivered) {
            java.util.TreeMap<Long, Long> ranges = delivered.get(partition);
            long at = from;
            while (at < to) {
                Map.Entry<Long, Long> r = ranges == null ? null : ranges.floorEntry(at);
                if (r == null || r.getValue() <= at) {
                    return false;
                }
                at = r.getValue();
            }
            return true;
        }
    }

    /** Why an answer of the topic could not be read (then nothing can be said of what was delivered), or null. */
    public String unreadable() {
        return unreadable;
    }

    void fetched(int partition, long offset) {
        lowest.merge(partition, offset, Math::min);
    }

    /** The broker answered a Fetch with the record batches covering {@code [first, end)}. */
    void delivered(int partition, long first, long end) { // package-private: fed by the connections
        synchronized (delivered) {
            java.util.TreeMap<Long, Long> ranges = delivered.computeIfAbsent(partition, p -> new java.util.TreeMap<>());
            long start = first;
            long stop = end;
            Map.Entry<Long, Long> before = ranges.floorEntry(start);
            if (before != null && before.getValue() >= start) {
                start = before.getKey();
                stop = Math.max(stop, before.getValue());
            }
            for (Map.Entry<Long, Long> next = ranges.ceilingEntry(start); next != null && next.getKey() <= stop; next = ranges.ceilingEntry(start)) {
                stop = Math.max(stop, next.getValue());
                ranges.remove(next.getKey());
            }
            ranges.put(start, stop);
        }
    }

    void unreadable(String why) {
        if (unreadable == null) {
            unreadable = why;
        }
    }

    @Override
    public void close() {
        witness.unwatch(this);
    }
}
