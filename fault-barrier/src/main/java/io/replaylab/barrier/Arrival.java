package io.replaylab.barrier;

import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A call that reached an armed barrier: which thread (or client), its top stack frames, the
 * call's context for a person (e.g. {@code method}, and {@code offsets} as text), and, for a
 * commit, the offsets it is about to store, typed.
 */
public record Arrival(String point, String thread, Map<String, String> context, List<CommitOffset> offsets, List<String> stack, Instant time,
        long monoNanos) {
    public Arrival {
        context = Collections.unmodifiableMap(new TreeMap<>(context));
        offsets = offsets.stream().sorted(CommitOffset.ORDER).toList();
        stack = List.copyOf(stack);
    }

    /** An arrival on the calling thread, now, of a call that commits no offsets. */
    public static Arrival here(String point, Map<String, String> context) {
        return here(point, context, List.of());
    }

    /** An arrival on the calling thread, now; the context also shows the offsets as text. */
    public static Arrival here(String point, Map<String, String> context, List<CommitOffset> offsets) {
        StackTraceElement[] st = Thread.currentThread().getStackTrace();
        List<String> frames = Arrays.stream(st).dropWhile(f -> f.getClassName().equals(Thread.class.getName())
                || f.getClassName().equals(Arrival.class.getName())).limit(12).map(StackTraceElement::toString).toList();
        return new Arrival(point, Thread.currentThread().getName(), withOffsets(context, offsets), offsets, frames, Instant.now(), System.nanoTime());
    }

    /** The context plus {@code offsets} as text, when there are offsets. */
    public static Map<String, String> withOffsets(Map<String, String> context, List<CommitOffset> offsets) {
        if (offsets.isEmpty()) {
            return context;
        }
        Map<String, String> out = new TreeMap<>(context);
        out.put("offsets", CommitOffset.text(offsets));
        return out;
    }
}
