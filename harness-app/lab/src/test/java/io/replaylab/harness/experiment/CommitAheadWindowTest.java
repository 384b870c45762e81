package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** How long commit-ahead holds A at its DB commit: from A's own first offset commit, within its commit interval's floor and the lab's ceiling. */
class CommitAheadWindowTest {
    private static final Instant START = Instant.parse("2026-12-06T10:00:00Z");
    private static final Duration FIVE_S = Duration.ofSeconds(5);

    private static Duration window(Duration toFirstCommit) {
        return CommitAheadExperiment.window(START, Optional.of(START.plus(toFirstCommit)), FIVE_S);
    }

    @Test
    void aConsumerThatCommitsSoonAfterItStartsIsHeldForTheFloorThatOutlastsTheUsualFiveSecondTimer() {
        assertThat(window(Duration.ofMillis(900))).isEqualTo(CommitAheadExperiment.floor(FIVE_S)).isEqualTo(Duration.ofSeconds(8));
        assertThat(window(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void aTimerWhoseFirstCommitCameLateIsWaitedForLongerThanItsInterval() {
        assertThat(window(Duration.ofMillis(10_032))).isEqualTo(Duration.ofSeconds(13));
        assertThat(window(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(76));
    }

    @Test
    void theWaitIsCappedAtTheLongestTheLabWaitsForAConsumersTimeouts() {
        assertThat(window(Duration.ofHours(1))).isEqualTo(Handoff.LONGEST);
    }

    @Test
    void withNoCommitSeenOrOneBeforeTheStartTheFloorHolds() {
        assertThat(CommitAheadExperiment.window(START, Optional.empty(), FIVE_S)).isEqualTo(Duration.ofSeconds(8));
        assertThat(window(Duration.ofSeconds(-3))).isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void theFloorFollowsTheCommitIntervalTheRunWasGiven() {
        assertThat(CommitAheadExperiment.window(START, Optional.of(START.plusMillis(900)), Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(16));
        assertThat(CommitAheadExperiment.window(START, Optional.of(START.plusMillis(900)), Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(2));
    }
}
