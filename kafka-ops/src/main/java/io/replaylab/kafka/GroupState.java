package io.replaylab.kafka;

import java.util.Locale;

/** A consumer group's state as the coordinator reports it, plus NOT_FOUND for a group that does not exist. */
public enum GroupState {
    EMPTY, STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, ASSIGNING, RECONCILING, NOT_READY, DEAD, NOT_FOUND, UNKNOWN;

    /** True when no member can be consuming: the only states in which a reset may execute. */
    public boolean isInactive() {
        return this == EMPTY || this == DEAD || this == NOT_FOUND;
    }

    /** As Kafka's tools print it: {@code Empty}, {@code Stable}, {@code PreparingRebalance} … */
    public String display() {
        StringBuilder b = new StringBuilder();
        for (String part : name().split("_")) {
            b.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
        }
        return b.toString();
    }
}
