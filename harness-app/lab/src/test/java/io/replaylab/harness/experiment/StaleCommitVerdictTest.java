package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Optional;

import io.replaylab.barrier.CallOutcome;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.FailKind;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * R9's four answers on A's released commit. The scenarios against the real broker reach REJECTED
 * (LabTest) and NOT_DELIVERED (the wire tests); an ACCEPTED stale commit needs a broker that is
 * wrong, so its verdict is proven here, on the real evidence recorder.
 */
class StaleCommitVerdictTest {
    @TempDir
    Path dir;

    private int runs;

    private Optional<Outcome> judge(Optional<CallOutcome> observed) {
        try (RunRecorder run = RunRecorder.start(dir.resolve("run-" + (++runs)), "run-test")) {
            ExperimentRecorder e = run.experiment("rebalance", "R9");
            Optional<Outcome> o = RebalanceExperiment.judgeStaleCommit(e, observed);
            assertThat(e.checks()).singleElement().satisfies(c -> assertThat(c.name()).isEqualTo("stale commit rejected"));
            assertThat(e.finished()).isEqualTo(o.isPresent());
            return o;
        }
    }

    @Test
    void anAcceptedStaleCommitFailsAsAFaultNotObserved() {
        Outcome o = judge(Optional.of(CallOutcome.accepted("offset-commit"))).orElseThrow();
        assertThat(o.status()).isEqualTo(Status.FAIL);
        assertThat(o.failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        assertThat(o.reason()).isEqualTo("the stale commit was ACCEPTED after the partition moved to B");
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
        assertThat(lost.reason()).isEqualTo("A's commit never reached the broker, so its rejection could not be observed: client closed the connection");
    }
}
