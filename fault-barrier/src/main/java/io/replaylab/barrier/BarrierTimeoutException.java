package io.replaylab.barrier;

import java.time.Duration;

/** Nothing reached the barrier in time; the barrier is now EXPIRED. */
public final class BarrierTimeoutException extends RuntimeException {
    private final String point;
    private final Duration timeout;

    public BarrierTimeoutException(String point, Duration timeout) {
        super("barrier '" + point + "' was not reached within " + timeout.toMillis() + " ms; it is EXPIRED "
                + "(did the program reach the armed method? is the point armed on the right class?)");
        this.point = point;
        this.timeout = timeout;
    }

    public String point() {
        return point;
    }

    public Duration timeout() {
        return timeout;
    }
}
