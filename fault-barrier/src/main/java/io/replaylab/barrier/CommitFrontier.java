package io.replaylab.barrier;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How far one point's commits have carried each partition so far (past 0 before the first): the rule,
 * for the wire's OffsetCommit and the debugger's {@code commitSync} alike, that a commit carrying no
 * partition past it has no record in flight (a timer's commit on an idle consumer, a parallel
 * consumer's while its lowest record is in flight, a first commit of offset 0 by a consumer that
 * commits the record it handled, not the next), so holding it would show nothing.
 */
public final class CommitFrontier {
    private final Map<String, Long> carried = new HashMap<>();

    /** Whether {@code offsets} carry some partition past the frontier; the frontier then includes them. */
    public synchronized boolean advances(List<CommitOffset> offsets) {
        boolean advances = false;
        for (CommitOffset o : offsets) {
            advances |= o.offset() > carried.getOrDefault(o.partitionName(), 0L);
            carried.merge(o.partitionName(), o.offset(), Math::max);
        }
        return advances;
    }
}
