package io.replaylab.barrier;

import java.time.Instant;

/**
 * One move of a barrier, for evidence.
 *
 * @param by who caused it: {@code controller}, {@code hold-timeout}, {@code await-timeout}, or the arriving thread
 * @param arrival set from HELD on
 */
public record BarrierTransition(String point, BarrierState from, BarrierState to, String by, Arrival arrival, Instant time,
        long monoNanos, long heldMillis) {
}
