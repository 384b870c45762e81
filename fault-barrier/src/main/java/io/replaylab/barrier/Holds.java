package io.replaylab.barrier;

import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.Map;

/** The hold-then-call-then-record sequence shared by the in-process decorators. */
public final class Holds {
    private Holds() {
    }

    /** A call that may throw what the decorated method throws. */
    public interface Call {
        Object run() throws Throwable;
    }

    /**
     * Holds at {@code barrier} (if armed and matching), makes the call, and records its outcome
     * when it was held. Rethrows whatever the call threw, unwrapped.
     */
    public static Object around(Barrier barrier, Map<String, String> context, Call call) throws Throwable {
        return around(barrier, context, List.of(), call);
    }

    /** As above, for a commit of these offsets. */
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
