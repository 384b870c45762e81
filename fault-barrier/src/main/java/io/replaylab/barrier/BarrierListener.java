package io.replaylab.barrier;

/** Receives every transition and the observed call outcome. Called on the thread that caused it; keep it quick. */
public interface BarrierListener {
    void onTransition(BarrierTransition transition);

    default void onOutcome(CallOutcome outcome) {
    }

    /** Something the injector saw at the point that is neither a move nor the outcome (e.g. a held call's connection closed). */
    default void onObservation(String point, String what) {
    }

    BarrierListener NONE = t -> { };
}
