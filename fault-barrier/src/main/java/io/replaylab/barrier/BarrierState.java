package io.replaylab.barrier;

import java.util.EnumSet;
import java.util.Set;

/** ARMED → HELD → RELEASED, or ARMED → EXPIRED (never reached). Any other move is illegal. */
public enum BarrierState {
    ARMED, HELD, RELEASED, EXPIRED;

    /** The states this one may move to. */
    public Set<BarrierState> next() {
        return switch (this) {
            case ARMED -> EnumSet.of(HELD, EXPIRED);
            case HELD -> EnumSet.of(RELEASED);
            case RELEASED, EXPIRED -> EnumSet.noneOf(BarrierState.class);
        };
    }
}
