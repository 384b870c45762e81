package io.replaylab.oracle;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** The end offsets of a topic taken at one moment: the oracle reads the source up to here and no further. */
public record Cut(String topic, Instant takenAt, Map<Integer, Long> endOffsets) {
    public Cut {
        endOffsets = Collections.unmodifiableMap(new TreeMap<>(endOffsets));
    }

    public long total() {
        return endOffsets.values().stream().mapToLong(Long::longValue).sum();
    }
}
