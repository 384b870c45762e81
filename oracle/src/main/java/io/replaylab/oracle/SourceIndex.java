package io.replaylab.oracle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The identity at each offset of a topic ({@code read_committed}), kept in memory, so that a check
 * made at every offset commit is a lookup and not a read of the topic. A question beyond what was
 * read reads the topic again (a trickle moves its end). Records the parser cannot read are left
 * out: the oracle expects no effect of them.
 *
 * <pre>{@code
 * SourceIndex index = TopicOracle.of(source).index();
 * List<SourceIndex.Entry> covered = index.between(0, 40, 57);   // partition 0, offsets 40..56
 * }</pre>
 */
public final class SourceIndex {
    /** One readable record: where it is and its identity. */
    public record Entry(int partition, long offset, String id) {
        public Entry {
            Objects.requireNonNull(id, "id");
        }

        @Override
        public String toString() {
            return id + " (" + partition + "@" + offset + ")";
        }
    }

    private final SourceReader reader;
    private final Map<Integer, NavigableMap<Long, String>> ids = new HashMap<>();
    /** Per partition, the end (next offset) up to which the topic was read. */
    private final Map<Integer, Long> readTo = new HashMap<>();

    SourceIndex(SourceSpec spec) {
        this.reader = new SourceReader(spec);
    }

    /**
     * The readable records of {@code partition} in {@code [from, to)}, in offset order; reads the
     * topic again first when {@code to} lies beyond what was read.
     */
    public synchronized List<Entry> between(int partition, long from, long to) {
        if (to > readTo.getOrDefault(partition, 0L)) {
            read();
        }
        List<Entry> out = new ArrayList<>();
        NavigableMap<Long, String> p = ids.get(partition);
        if (p != null && from < to) {
            p.subMap(from, true, to, false).forEach((offset, id) -> out.add(new Entry(partition, offset, id)));
        }
        return out;
    }

    private void read() {
        ids.clear();
        readTo.clear();
        // what was read reaches at least the ends taken now: a transaction's marker after the last record is read too (a consumer
        // commits past it), so a commit there does not read the topic again
        reader.cut().endOffsets().forEach((partition, end) -> readTo.put(partition, end));
        reader.readAll(TopicOracle.Isolation.READ_COMMITTED, (r, parsed) -> {
            readTo.merge(r.partition(), r.offset() + 1, Math::max);
            if (parsed.ok()) {
                ids.computeIfAbsent(r.partition(), k -> new TreeMap<>()).put(r.offset(), parsed.id());
            }
        });
    }
}
