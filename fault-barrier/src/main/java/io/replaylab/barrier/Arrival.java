package io.replaylab.barrier;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A thread that reached an armed barrier: which thread, its top stack frames, and the call's
 * context (e.g. {@code offsets} about to be committed).
 */
public record Arrival(String point, String thread, Map<String, String> context, List<String> stack, Instant time, long monoNanos) {
    public Arrival {
        context = java.util.Collections.unmodifiableMap(new TreeMap<>(context));
        stack = List.copyOf(stack);
    }

    /** An arrival on the calling thread, now. */
    public static Arrival here(String point, Map<String, String> context) {
        StackTraceElement[] st = Thread.currentThread().getStackTrace();
        List<String> frames = java.util.Arrays.stream(st).skip(2).limit(12).map(StackTraceElement::toString).toList();
        return new Arrival(point, Thread.currentThread().getName(), context, frames, Instant.now(), System.nanoTime());
    }
}
