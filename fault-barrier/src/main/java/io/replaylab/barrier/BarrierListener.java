package io.replaylab.barrier;

/** Receives every transition and the observed call outcome. Called on the thread that caused it; keep it quick. */
public interface BarrierListener {
    void onTransition(BarrierTransition transition);

    default void onOutcome(CallOutcome outcome) {
    }

    BarrierListener NONE = t -> { };
}
