package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.CommitOffset;
import io.replaylab.barrier.wire.WitnessedCommit;
import io.replaylab.harness.experiment.RebalanceExperiment.StaleCommitOnWire;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.FailKind;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * R9's answers on A's released commit, with what the wire witness saw. The scenarios against the
 * real broker reach REJECTED by the broker and by the client (LabTest) and NOT_DELIVERED (the wire
 * tests); an ACCEPTED stale commit needs a broker or client that is wrong, so its verdicts are
 * proven here, on the real evidence recorder.
 */
class StaleCommitVerdictTest {
    @TempDir
    Path dir;

    private int runs;

    private String lastActual;

    private Optional<Outcome> judge(Optional<CallOutcome> observed) {
        return judge(observed, StaleCommitOnWire.noWitness());
    }

    private Optional<Outcome> judge(Optional<CallOutcome> observed, StaleCommitOnWire wire) {
        try (RunRecorder run = RunRecorder.start(dir.resolve("run-" + (++runs)), "run-test")) {
            ExperimentRecorder e = run.experiment("rebalance", "R9");
            Optional<Outcome> o = Verdicts.staleCommit(e, observed, java.time.Duration.ofSeconds(60), wire, "A was held whole already");
            assertThat(e.checks()).singleElement().satisfies(c -> assertThat(c.name()).isEqualTo("stale commit rejected"));
            lastActual = e.checks().get(0).actual();
            assertThat(e.finished()).isEqualTo(o.isPresent());
            return o;
        }
    }

    private static WitnessedCommit onWire(String answer) {
        return new WitnessedCommit(7, Instant.now(), "connection 3", "rebalance-A", "g", "m-a", 2, (short) 9,
                List.of(new CommitOffset("t", 0, 5)), false, WitnessedCommit.Fate.ANSWERED, Instant.now(), Map.of("t-0", answer));
    }

    private static StaleCommitOnWire witnessed(WitnessedCommit... commits) {
        return new StaleCommitOnWire(StaleCommitOnWire.Seen.WITNESSED, "member m-a generation 2", "t-0", List.of(commits));
    }

    private static final CallOutcome CLIENT_REFUSED = CallOutcome.rejected("offset-commit", "org.apache.kafka.clients.consumer.CommitFailedException",
            "the consumer is not part of an active group");

    @Test
    void aStaleCommitTheBrokerStoredOnTheWireFailsEvenWhenTheClientReportedAnError() {
        Outcome o = judge(Optional.of(CLIENT_REFUSED), witnessed(onWire("NONE"))).orElseThrow();
        assertThat(o.status()).isEqualTo(Status.FAIL);
        assertThat(o.failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        assertThat(o.reason()).isEqualTo("the stale commit was ACCEPTED by the broker after the partition moved to B (the OffsetCommit t-0=5 of "
                + "member m-a generation 2), although the client reported CommitFailedException");
        assertThat(lastActual).startsWith("ACCEPTED by the broker on the wire (#7 client rebalance-A member m-a generation 2");
        Outcome both = judge(Optional.of(CallOutcome.accepted("offset-commit")), witnessed(onWire("NONE"))).orElseThrow();
        assertThat(both.reason()).as("the client agreeing adds nothing to say").isEqualTo("the stale commit was ACCEPTED by the broker after "
                + "the partition moved to B (the OffsetCommit t-0=5 of member m-a generation 2)");
        assertThat(lastActual).endsWith("; the client reported ACCEPTED");
    }

    @Test
    void aStaleCommitTheBrokerRefusedOnTheWireNamesTheBrokerAndItsError() {
        StaleCommitOnWire wire = witnessed(onWire("ILLEGAL_GENERATION"));
        assertThat(judge(Optional.of(CallOutcome.rejected("offset-commit", "ILLEGAL_GENERATION", "the broker answered")), wire)).isEmpty();
        assertThat(lastActual).startsWith("rejected by the broker: ILLEGAL_GENERATION to the OffsetCommit t-0=5 of member m-a generation 2; the client said");
        assertThat(Verdicts.rejecter(CallOutcome.rejected("offset-commit", "ILLEGAL_GENERATION", "x"), wire))
                .isEqualTo("rejected by the broker: ILLEGAL_GENERATION");
    }

    @Test
    void aStaleCommitThatNeverLeftTheClientIsRefusedByTheClientBeforeSending() {
        assertThat(judge(Optional.of(CLIENT_REFUSED), witnessed())).isEmpty();
        assertThat(lastActual).startsWith("refused by the client before sending (CommitFailedException): no OffsetCommit from A (member m-a "
                + "generation 2) after its hold; the client said CommitFailedException: the consumer is not part").doesNotContain("org.apache");
    }

    @Test
    void aSubjectThatNeverTalkedThroughTheProxyIsNotWitnessedNeverRefusedByTheClient() {
        StaleCommitOnWire wire = new StaleCommitOnWire(StaleCommitOnWire.Seen.NOT_WITNESSED, "member m-a", "t-0", List.of());
        assertThat(judge(Optional.of(CLIENT_REFUSED), wire)).isEmpty();
        assertThat(lastActual).startsWith("rejected (CommitFailedException; not witnessed: A never talked through the wire proxy)")
                .doesNotContain("refused by the client");
        assertThat(judge(Optional.of(CLIENT_REFUSED))).isEmpty();
        assertThat(lastActual).contains("the run had no wire witness");
    }

    @Test
    void onlyTheMovedPartitionsAnswerCountsAndACommitStillOnItsWayIsNoRefusalByTheClient() {
        WitnessedCommit two = new WitnessedCommit(8, Instant.now(), "connection 3", "rebalance-A", "g", "m-a", 2, (short) 9,
                List.of(new CommitOffset("t", 0, 5), new CommitOffset("t", 1, 9)), false, WitnessedCommit.Fate.ANSWERED, Instant.now(),
                Map.of("t-0", "NONE", "t-1", "ILLEGAL_GENERATION"));
        Outcome o = judge(Optional.of(CLIENT_REFUSED), witnessed(two)).orElseThrow();
        assertThat(o.status()).as("t-0 moved, and the broker stored it").isEqualTo(Status.FAIL);

        WitnessedCommit onItsWay = new WitnessedCommit(9, Instant.now(), "connection 3", "rebalance-A", "g", "m-a", 2, (short) 9,
                List.of(new CommitOffset("t", 0, 5)), false, WitnessedCommit.Fate.IN_FLIGHT, null, Map.of());
        assertThat(judge(Optional.of(CLIENT_REFUSED), witnessed(onItsWay))).isEmpty();
        assertThat(lastActual).startsWith("rejected (CommitFailedException; its OffsetCommit was on the wire, the broker's answer was not)")
                .doesNotContain("refused by the client");
    }

    @Test
    void aCommitTheClientCalledAcceptedThoughNothingWentOutFails() {
        Outcome o = judge(Optional.of(CallOutcome.accepted("offset-commit")), witnessed()).orElseThrow();
        assertThat(o.status()).isEqualTo(Status.FAIL);
        assertThat(o.reason()).isEqualTo("the stale commit was ACCEPTED after the partition moved to B (the client returned normally though no "
                + "OffsetCommit from A (member m-a generation 2) went out after its hold)");
    }

    @Test
    void anAcceptedStaleCommitFailsAsAFaultNotObserved() {
        Outcome o = judge(Optional.of(CallOutcome.accepted("offset-commit"))).orElseThrow();
        assertThat(o.status()).isEqualTo(Status.FAIL);
        assertThat(o.failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        assertThat(o.reason()).isEqualTo("the stale commit was ACCEPTED after the partition moved to B");
        assertThat(lastActual).isEqualTo("ACCEPTED");
        StaleCommitOnWire ignored = new StaleCommitOnWire(StaleCommitOnWire.Seen.NOT_WITNESSED, "member m-a generation 2", "t-0", List.of());
        assertThat(judge(Optional.of(CallOutcome.accepted("offset-commit")), ignored).orElseThrow().reason())
                .as("not witnessed: nothing is said of the wire").isEqualTo("the stale commit was ACCEPTED after the partition moved to B");
        assertThat(lastActual).isEqualTo("ACCEPTED");
    }

    @Test
    void aRejectedCommitPassesTheCheckAndTheExperimentGoesOn() {
        assertThat(judge(Optional.of(CallOutcome.rejected("offset-commit", "UNKNOWN_MEMBER_ID", "member left")))).isEmpty();
    }

    @Test
    void anOutcomeNeverObservedOrNeverDeliveredIsNotRun() {
        Outcome none = judge(Optional.empty()).orElseThrow();
        assertThat(none.status()).isEqualTo(Status.NOT_RUN);
        assertThat(none.reason()).isEqualTo("A's commit outcome was not observed after release");
        Outcome lost = judge(Optional.of(CallOutcome.notDelivered("offset-commit", "client closed the connection"))).orElseThrow();
        assertThat(lost.status()).isEqualTo(Status.NOT_RUN);
        assertThat(lost.reason()).isEqualTo("A's commit never reached the broker, so its rejection could not be observed: client closed the connection; "
                + "A could not be held whole (frozen) instead: A was held whole already");
    }

    private static WitnessedCommit commit(long seq, Instant sent, String member, int generation, String partition, boolean held) {
        String[] tp = partition.split("-");
        return new WitnessedCommit(seq, sent, "connection 3", "rebalance-A", "g", member, generation, (short) 9,
                List.of(new CommitOffset(tp[0], Integer.parseInt(tp[1]), 5)), held, WitnessedCommit.Fate.ANSWERED, sent, Map.of(partition, "NONE"));
    }

    /** Which commits are A's held one: its member at its generation, of the moved partition, sent from the hold on (or the held frame). */
    @Test
    void theHeldCommitIsAsMemberAtItsGenerationOfTheMovedPartitionFromTheHoldOn() {
        Instant hold = Instant.parse("2026-12-01T10:00:00Z");
        WitnessedCommit before = commit(1, hold.minusSeconds(1), "m-a", 2, "t-0", false);
        WitnessedCommit heldFrame = commit(2, hold.minusMillis(5), "m-a", 2, "t-0", true);
        WitnessedCommit after = commit(3, hold.plusSeconds(1), "m-a", 2, "t-0", false);
        WitnessedCommit atTheHold = commit(4, hold, "m-a", 2, "t-0", false);
        WitnessedCommit otherMember = commit(5, hold.plusSeconds(1), "m-b", 2, "t-0", false);
        WitnessedCommit laterGeneration = commit(6, hold.plusSeconds(2), "m-a", 3, "t-0", false);
        WitnessedCommit otherPartition = commit(7, hold.plusSeconds(1), "m-a", 2, "t-1", false);
        List<WitnessedCommit> all = List.of(laterGeneration, otherPartition, after, before, otherMember, atTheHold, heldFrame);

        StaleCommitOnWire known = StaleCommitOnWire.of(true, all, Map.of("m-a", 2), hold, "t-0");
        assertThat(known.seen()).isEqualTo(StaleCommitOnWire.Seen.WITNESSED);
        assertThat(known.heldAs()).isEqualTo("member m-a generation 2");
        assertThat(known.commits()).extracting(WitnessedCommit::seq).containsExactly(2L, 3L, 4L);

        StaleCommitOnWire unknownGeneration = StaleCommitOnWire.of(true, all, Map.of("m-a", -1), hold, "t-0");
        assertThat(unknownGeneration.heldAs()).isEqualTo("member m-a");
        assertThat(unknownGeneration.commits()).as("the first commit's generation; a later one after A rejoined is not judged")
                .extracting(WitnessedCommit::seq).containsExactly(2L, 3L, 4L);
        assertThat(StaleCommitOnWire.of(true, List.of(laterGeneration, after), Map.of("m-a", -1), hold, "t-0").commits())
                .extracting(WitnessedCommit::seq).containsExactly(3L);
        assertThat(StaleCommitOnWire.of(true, List.of(before, otherMember), Map.of("m-a", 2), hold, "t-0").commits()).isEmpty();

        // generation 0 is a generation (a consumer-protocol epoch may be 0 after a fencing), not "unknown"
        WitnessedCommit atZero = commit(8, hold.plusSeconds(1), "m-a", 0, "t-0", false);
        StaleCommitOnWire zero = StaleCommitOnWire.of(true, List.of(atZero, laterGeneration, after), Map.of("m-a", 0), hold, "t-0");
        assertThat(zero.heldAs()).isEqualTo("member m-a generation 0");
        assertThat(zero.commits()).extracting(WitnessedCommit::seq).containsExactly(8L);

        StaleCommitOnWire ignored = StaleCommitOnWire.of(false, all, Map.of("m-a", 2), hold, "t-0");
        assertThat(ignored.seen()).isEqualTo(StaleCommitOnWire.Seen.NOT_WITNESSED);
        assertThat(ignored.commits()).isEmpty();
        assertThat(known.accepted()).contains(heldFrame);
        assertThat(known.rejected()).isEmpty();
    }
}
