package io.replaylab.barrier.wire;

import java.time.Instant;

/**
 * A client moved to a partition's log end: it asked the broker for it (ListOffsets with the LATEST
 * timestamp), was told {@code offset}, and its next Fetch of the partition started there. What a
 * consumer does when it resets to the end ({@code auto.offset.reset=latest} with no committed offset,
 * or an offset out of range) or seeks to the end; a client that only asked (its lag, say) fetches
 * below it and is no reset. Records below it that nobody applied are skipped for good by that consumer.
 *
 * @param clientId the request header's client id ({@code ""} when the client sent none)
 */
public record WitnessedReset(String clientId, String topic, int partition, long offset, Instant at) {
    public WitnessedReset {
        clientId = clientId == null ? "" : clientId;
    }

    /** {@code client A reset t-0 to its log end 7}. */
    public String summary() {
        return "client " + (clientId.isEmpty() ? "(no id)" : clientId) + " reset " + topic + "-" + partition + " to its log end " + offset
                + " (ListOffsets LATEST)";
    }
}
