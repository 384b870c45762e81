package io.replaylab.barrier;

import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The injector's side of a {@link Barrier}: what holds a call at the point and reports what the call
 * did. For the code that injects (the in-process decorators, the debugger, the wire proxy, or a
 * lab's own); a controller only ever needs {@link Barrier}.
 *
 * <pre>{@code
 * Object result = Injector.around(barrier, Map.of("method", "commit"), List.of(), () -> method.invoke(connection, args));
 * }</pre>
 */
public final class Injector {
    private final Barrier barrier;

    private Injector(Barrier barrier) {
        this.barrier = barrier;
    }

    public static Injector of(Barrier barrier) {
        return new Injector(Objects.requireNonNull(barrier, "barrier"));
    }

    public String point() {
        return barrier.point();
    }

    /**
     * A call reached the point. If it matches, the barrier moves to HELD and true is returned (the
     * injector must then hold the call); otherwise the call passes.
     */
    public boolean reach(Arrival a) {
        return barrier.reach(a);
    }

    /**
     * Whether {@code a} would be held if it reached the point now (armed, and its condition matches), without moving the
     * barrier: for an injector that learns only later whether the call reaches the point (the wire's answer edge: the
     * broker's answer decides) and must keep the caller from running ahead meanwhile.
     */
    public boolean wouldReach(Arrival a) {
        return barrier.wouldReach(a);
    }

    /**
     * Blocks the calling (held) thread until released. After the safety hold timeout it releases
     * itself, recorded as {@code hold-timeout}; an interrupt releases too (recorded as
     * {@code interrupt}) and re-asserts the interrupt flag, so the call is never left stuck.
     */
    public void holdUntilReleased() {
        barrier.holdUntilReleased();
    }

    /** Runs {@code action} when the barrier is released (at once if it already is): for holds outside this JVM's threads (the debugger, the proxy). */
    public void onRelease(Runnable action) {
        barrier.onRelease(action);
    }

    /** Records what the released call did; the listener hears it before any waiter sees it. Only the first outcome counts. */
    public void recordOutcome(CallOutcome o) {
        barrier.recordOutcome(o);
    }

    /** Releases a HELD barrier, naming who did it ({@code hold-timeout}, {@code program-exit}, {@code close}, ...). */
    public void release(String by) {
        barrier.release(by);
    }

    /** A call that may throw what the decorated method throws. */
    public interface Call {
        Object run() throws Throwable;
    }

    /**
     * The in-process sequence: holds at {@code barrier} (if there is one, armed and matching), makes
     * the call, and records its outcome when it was held. Rethrows whatever the call threw, unwrapped
     * from its {@link InvocationTargetException} (decorators call through reflection).
     */
    public static Object around(Barrier barrier, Map<String, String> context, List<CommitOffset> offsets, Call call) throws Throwable {
        boolean held = barrier != null && barrier.reach(Arrival.here(barrier.point(), context, offsets));
        if (held) {
            barrier.holdUntilReleased();
        }
        try {
            Object result = call.run();
            if (held) {
                barrier.recordOutcome(CallOutcome.accepted(barrier.point()));
            }
            return result;
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (held) {
                barrier.recordOutcome(CallOutcome.rejected(barrier.point(), cause.getClass().getName(), cause.getMessage()));
            }
            throw cause;
        }
    }
}
