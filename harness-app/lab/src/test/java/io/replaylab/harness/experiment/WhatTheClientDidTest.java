package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import io.replaylab.barrier.wire.FaultFiring;
import io.replaylab.barrier.wire.FaultFiring.Step;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/** What a wire-faults cell says the client did after the firing, read from the typed steps the proxy saw next. */
class WhatTheClientDidTest {
    private static final String TWO = "connection 2 (node 1, client port 5)";

    private static String did(String api, Step... after) {
        return WireFaultsExperiment.clientDid(new FaultFiring(1, Instant.EPOCH, TWO, "A", key(api), api + " v9 correlation 7", "done", List.of(after)));
    }

    private static ApiKeys key(String name) {
        return Arrays.stream(ApiKeys.values()).filter(k -> k.name.equals(name)).findFirst().orElseThrow();
    }

    private static Step sent(String api, int version, String offsets, int times) {
        return new Step.RequestSent(key(api), (short) version, offsets, times);
    }

    private static Step sent(String api, int version) {
        return sent(api, version, "", 1);
    }

    @Test
    void aClosingFollowedByANewConnectionIsAReconnectWhoeverClosed() {
        assertThat(did("OffsetCommit", new Step.ConnectionClosed(TWO, true), new Step.ConnectionOpened("connection 4 (node 1, client port 9)"),
                sent("FindCoordinator", 6), sent("OffsetCommit", 9, "t-0=3", 1)))
                .isEqualTo("reconnected, looked up its coordinator again, sent OffsetCommit again");
        assertThat(did("Fetch", new Step.ConnectionClosed(TWO, false), new Step.ConnectionOpened("connection 3 (node 1, client port 8)"),
                sent("Fetch", 17))).isEqualTo("reconnected, sent Fetch again");
    }

    @Test
    void aClosingOrANewConnectionAloneIsSaidAsItIs() {
        assertThat(did("Heartbeat", new Step.ConnectionClosed(TWO, false))).isEqualTo("closed a connection");
        assertThat(did("Heartbeat", new Step.ConnectionClosed(TWO, true))).as("the proxy's own closing is no act of the client")
                .isEqualTo("sent nothing more the proxy saw");
        assertThat(did("OffsetFetch", new Step.ConnectionOpened("connection 5 (node 1, client port 7)"), sent("JoinGroup", 9)))
                .isEqualTo("opened a new connection, joined the group again");
    }

    @Test
    void aClientThatRetriesFetchesItsOffsetsOrGoesOnIsToldApart() {
        assertThat(did("OffsetCommit", sent("OffsetCommit", 9, "t-0=3", 2))).isEqualTo("sent OffsetCommit again");
        assertThat(did("Heartbeat", sent("OffsetFetch", 9))).isEqualTo("fetched its committed offsets again");
        assertThat(did("OffsetCommit", sent("Fetch", 17, "", 4))).isEqualTo("went on (Fetch v17 ×4 next)");
        assertThat(did("OffsetCommit")).isEqualTo("sent nothing more the proxy saw");
    }

    @Test
    void eachStepSaysItselfAsTheEvidenceRecordsIt() {
        assertThat(List.of(sent("OffsetCommit", 9, "t-0=3", 1), sent("OffsetCommit", 9, "t-0=4", 3), new Step.ConnectionClosed(TWO, true),
                new Step.ConnectionClosed(TWO, false), new Step.ConnectionOpened(TWO)).stream().map(Step::toString))
                .containsExactly("OffsetCommit v9 t-0=3", "OffsetCommit v9 ×3", "the proxy closed " + TWO, "closed " + TWO, "opened " + TWO);
    }
}
