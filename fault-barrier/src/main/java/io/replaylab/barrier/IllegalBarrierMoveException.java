package io.replaylab.barrier;

/** A move the barrier's state machine does not allow (e.g. releasing a barrier nobody reached). */
public final class IllegalBarrierMoveException extends IllegalStateException {
    public IllegalBarrierMoveException(String point, BarrierState from, BarrierState to) {
        super("barrier '" + point + "' cannot move from " + from + " to " + to + "; allowed from " + from + ": " + from.next());
    }
}
