package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import io.replaylab.barrier.wire.FaultFiring;
import org.junit.jupiter.api.Test;

/** What a wire-faults cell says the client did after the firing, read from the requests the proxy saw next. */
class WhatTheClientDidTest {
    private static String did(String request, String... after) {
        return WireFaultsExperiment.clientDid(new FaultFiring(1, Instant.EPOCH, "connection 2 (node 1, client port 5)", "A", request, "done",
                List.of(after)));
    }

    @Test
    void aClosingFollowedByANewConnectionIsAReconnectWhoeverClosed() {
        assertThat(did("OffsetCommit v9 correlation 7", "the proxy closed connection 2 (node 1, client port 5)",
                "opened connection 4 (node 1, client port 9)", "FindCoordinator v6", "OffsetCommit v9 t-0=3"))
                .isEqualTo("reconnected, looked up its coordinator again, sent OffsetCommit again");
        assertThat(did("Fetch v17 correlation 9", "closed connection 2 (node 1, client port 5)", "opened connection 3 (node 1, client port 8)",
                "Fetch v17")).isEqualTo("reconnected, sent Fetch again");
    }

    @Test
    void aClosingOrANewConnectionAloneIsSaidAsItIs() {
        assertThat(did("Heartbeat v4 correlation 3", "closed connection 2 (node 1, client port 5)")).isEqualTo("closed a connection");
        assertThat(did("Heartbeat v4 correlation 3", "the proxy closed connection 2 (node 1, client port 5)"))
                .as("the proxy's own closing is no act of the client").isEqualTo("sent nothing more the proxy saw");
        assertThat(did("OffsetFetch v9 correlation 3", "opened connection 5 (node 1, client port 7)", "JoinGroup v9"))
                .isEqualTo("opened a new connection, joined the group again");
    }

    @Test
    void aClientThatRetriesFetchesItsOffsetsOrGoesOnIsToldApart() {
        assertThat(did("OffsetCommit v9 correlation 7", "OffsetCommit v9 t-0=3 ×2")).isEqualTo("sent OffsetCommit again");
        assertThat(did("Heartbeat v4 correlation 3", "OffsetFetch v9")).isEqualTo("fetched its committed offsets again");
        assertThat(did("OffsetCommit v9 correlation 7", "Fetch v17 ×4")).isEqualTo("went on (Fetch v17 ×4 next)");
        assertThat(did("OffsetCommit v9 correlation 7")).isEqualTo("sent nothing more the proxy saw");
    }
}
