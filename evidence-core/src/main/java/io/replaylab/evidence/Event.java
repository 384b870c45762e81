package io.replaylab.evidence;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of an experiment's timeline.
 *
 * @param seq position in the experiment, from 1
 * @param time wall-clock time
 * @param monoNanos monotonic time ({@link System#nanoTime()}) of the recording process, for ordering and durations
 */
public record Event(long seq, Instant time, long monoNanos, Source source, Payload payload) {
    public Event {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(payload, "payload");
    }

    public String type() {
        return payload.type();
    }
}
