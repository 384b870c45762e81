package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.GroupMember;
import io.replaylab.kafka.GroupState;
import io.replaylab.kafka.OffsetSnapshot;
import org.junit.jupiter.api.Test;

/**
 * share-ownership's frozen-A decisions, as functions of what was read (a broker's share session timeout, a share group's
 * members): the branches the local broker does not reach (its 6 s session timeout fits a lock; a frozen JVM is removed).
 */
class ShareOwnershipVerdictTest {
    private static OffsetSnapshot group(String... clientIds) {
        List<GroupMember> members = java.util.Arrays.stream(clientIds).map(c -> new GroupMember("m-" + c, null, c, "/127.0.0.1", 3, List.of()))
                .toList();
        return new OffsetSnapshot(Instant.EPOCH, "127.0.0.1:9092", "g", members.isEmpty() ? GroupState.EMPTY : GroupState.STABLE,
                OffsetSnapshot.SHARE, "0", members, List.of());
    }

    @Test
    void aSessionTimeoutNoLockOutlastsByTheMarginMakesTheFrozenCellNotRunNamingTheBrokerSetting() {
        assertThat(ShareOwnershipExperiment.removalUntellable(Duration.ofSeconds(6))).isEmpty();
        assertThat(ShareOwnershipExperiment.removalUntellable(Duration.ofSeconds(45))).as("45 s (a broker's default) + 15 s = the 60 s maximum lock").isEmpty();

        Outcome o = ShareOwnershipExperiment.removalUntellable(Duration.ofSeconds(46)).orElseThrow();
        assertThat(o.status()).isEqualTo(Status.NOT_RUN);
        assertThat(o.reason()).isEqualTo("A frozen would be removed "
                + "only after the share session timeout of 46000 ms, and no record lock (at most 60000 ms) outlasts it by 15 s: lock expiry and "
                + "removal cannot be told apart on this broker (lower its group.share.session.timeout.ms)");
    }

    @Test
    void aFrozenAStillAmongTheMembersAfterTheWaitIsNotRunAndOneGoneIsNot() {
        Duration waited = Duration.ofSeconds(11);
        Duration session = Duration.ofSeconds(6);

        Outcome o = ShareOwnershipExperiment.removalNotSeen(group("share-ownership-A", "other"), "share-ownership-A", waited, session).orElseThrow();
        assertThat(o.status()).isEqualTo(Status.NOT_RUN);
        assertThat(o.reason()).isEqualTo("A, frozen, was still a member of the share group 11000 ms after its hold (its share session timeout: "
                + "6000 ms): the removal was not seen");
        assertThat(ShareOwnershipExperiment.removalNotSeen(group("other"), "share-ownership-A", waited, session)).isEmpty();
        assertThat(ShareOwnershipExperiment.removalNotSeen(group(), "share-ownership-A", waited, session)).isEmpty();
    }

    @Test
    void aLockTheBrokerCutBelowTheSessionTimeoutAndItsMarginMakesTheFrozenCellNotRun() {
        assertThat(ShareOwnershipExperiment.lockTooShort(Duration.ofSeconds(6), Duration.ofSeconds(21))).isEmpty();

        Outcome o = ShareOwnershipExperiment.lockTooShort(Duration.ofSeconds(10), Duration.ofSeconds(15)).orElseThrow();
        assertThat(o.status()).isEqualTo(Status.NOT_RUN);
        assertThat(o.reason()).isEqualTo("A frozen would be removed after the share session timeout of 10000 ms, but the group's record lock is "
                + "15000 ms (the broker refused 25000 ms): the lock would run out first, and lock expiry and removal could not be told apart");
    }
}
