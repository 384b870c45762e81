package io.replaylab.barrier;

import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A call that reached an armed barrier: which thread (or client), its top stack frames, the
 * call's context for a person (e.g. {@code method}, and {@code offsets} as text), and, for a
 * commit, the offsets it is about to store, typed; what a controller decides on is typed too
 * ({@link #facts}): the context is for reading only.
 */
public record Arrival(String point, String thread, Map<String, String> context, List<CommitOffset> offsets, List<String> stack, Instant time,
        long monoNanos, Facts facts) {
    public Arrival {
        context = Collections.unmodifiableMap(new TreeMap<>(context));
        offsets = offsets.stream().sorted(CommitOffset.ORDER).toList();
        stack = List.copyOf(stack);
        Objects.requireNonNull(facts, "facts");
    }

    /** An arrival with no facts beyond its offsets. */
    public Arrival(String point, String thread, Map<String, String> context, List<CommitOffset> offsets, List<String> stack, Instant time,
            long monoNanos) {
        this(point, thread, context, offsets, stack, time, monoNanos, Facts.NONE);
    }

    /**
     * What a technology learned of the held call beyond its offsets: the request's sender on the wire,
     * the offsets a debugger saw but could not read (then {@link #offsets} is empty), what the other
     * threads of a program held by one thread were doing.
     */
    public record Facts(Optional<Requester> requester, Optional<String> unreadableOffsets, Optional<String> otherThreads) {
        public static final Facts NONE = new Facts(Optional.empty(), Optional.empty(), Optional.empty());

        public Facts {
            Objects.requireNonNull(requester, "requester");
            Objects.requireNonNull(unreadableOffsets, "unreadableOffsets");
            Objects.requireNonNull(otherThreads, "otherThreads");
        }

        /** A request on the wire, from {@code requester}. */
        public static Facts sentBy(Requester requester) {
            return new Facts(Optional.of(requester), Optional.empty(), Optional.empty());
        }

        /** Offsets the call carries that could not be read, and why. */
        public static Facts offsetsUnreadable(String why) {
            return new Facts(Optional.empty(), Optional.of(why), Optional.empty());
        }

        /** One thread held, the others seen doing {@code what}. */
        public static Facts otherThreadsSeen(String what) {
            return new Facts(Optional.empty(), Optional.empty(), Optional.of(what));
        }
    }

    /** Who sent a request held on the wire: its group, member id and generation (a share group's session epoch). */
    public record Requester(String group, String memberId, int generation) {
        public Requester {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(memberId, "memberId");
        }
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
