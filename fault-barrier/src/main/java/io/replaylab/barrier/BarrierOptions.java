package io.replaylab.barrier;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * How a barrier behaves: which arrivals it holds (a predicate on the call's context; others pass)
 * and the safety hold timeout after which a held call is released anyway (recorded as such).
 */
public record BarrierOptions(Predicate<Map<String, String>> when, Duration holdTimeout) {
    public static final Duration DEFAULT_HOLD_TIMEOUT = Duration.ofMinutes(5);

    public BarrierOptions {
        Objects.requireNonNull(when, "when");
        Objects.requireNonNull(holdTimeout, "holdTimeout");
        if (holdTimeout.isNegative() || holdTimeout.isZero()) {
            throw new IllegalArgumentException("holdTimeout must be positive, was " + holdTimeout);
        }
    }

    public static BarrierOptions ofDefaults() {
        return new BarrierOptions(ctx -> true, DEFAULT_HOLD_TIMEOUT);
    }

    public BarrierOptions when(Predicate<Map<String, String>> predicate) {
        return new BarrierOptions(predicate, holdTimeout);
    }

    public BarrierOptions holdTimeout(Duration timeout) {
        return new BarrierOptions(when, timeout);
    }
}
