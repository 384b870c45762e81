package io.replaylab.barrier.wire;

import java.time.Instant;

/**
 * A client asked the broker for a partition's log end (ListOffsets with the LATEST timestamp) and
 * was told {@code offset}: what a consumer does when it resets to the end ({@code auto.offset.reset=latest}
 * with no committed offset, or an offset out of range) or seeks to the end. Records below it that
 * nobody applied are skipped for good by that consumer.
 *
 * @param clientId the request header's client id ({@code ""} when the client sent none)
 */
public record WitnessedReset(String clientId, String topic, int partition, long offset, Instant at) {
    /** {@code client A reset t-0 to its log end 7}. */
    public String summary() {
        return "client " + (clientId.isEmpty() ? "(no id)" : clientId) + " reset " + topic + "-" + partition + " to its log end " + offset
                + " (ListOffsets LATEST)";
    }
}
