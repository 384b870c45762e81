package io.replaylab.barrier;

import java.time.Instant;

/**
 * One move of a barrier, for evidence.
 *
 * @param by who caused it: {@code controller}, {@code hold-timeout}, {@code await-timeout}, or the arriving thread
 * @param arrival set from HELD on
 * @param heldMillis how long the call was held, when this move leaves HELD
 * @param waitedMillis how long the barrier waited armed, when this move leaves ARMED (reached, or expired)
 */
public record BarrierTransition(String point, BarrierState from, BarrierState to, String by, Arrival arrival, Instant time,
        long monoNanos, long heldMillis, long waitedMillis) {
}
