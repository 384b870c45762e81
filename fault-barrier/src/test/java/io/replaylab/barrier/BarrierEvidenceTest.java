package io.replaylab.barrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.RunRecorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BarrierEvidenceTest {
    @TempDir
    Path dir;

    @Test
    void everyMoveAndTheOutcomeBecomeTimelineEvents() throws Exception {
        try (RunRecorder run = RunRecorder.start(dir, "r")) {
            ExperimentRecorder e = run.experiment("rebalance", "R8");
            BarrierEvidence evidence = BarrierEvidence.into(e, "consumer-A", 42, "thread");
            Barrier b = Barrier.arm("offset-commit", evidence, BarrierOptions.ofDefaults());
            Thread t = new Thread(() -> {
                try {
                    Injector.around(b, Map.of("method", "commitSync"), List.of(new CommitOffset("t", 1, 7), new CommitOffset("t", 0, 5)), () -> {
                        throw new java.lang.reflect.InvocationTargetException(new IllegalStateException("stale"));
                    });
                } catch (Throwable ignored) {
                    // expected
                }
            }, "consumer-main");
            t.start();
            b.awaitArrival(Duration.ofSeconds(5));
            b.release();
            t.join(5000);

            assertThat(e.events()).extracting(ev -> ev.type())
                    .containsExactly("barrier-armed", "barrier-reached", "barrier-released", "commit-rejected");
            assertThat(e.events().get(1).source().instance()).isEqualTo("consumer-A");
            assertThat(e.events().get(1).source().pid()).isEqualTo(42);
            BarrierEvent.BarrierReached reached = (BarrierEvent.BarrierReached) e.events().get(1).payload();
            assertThat(reached.context()).containsEntry("offsets", "t-0=5,t-1=7").containsEntry("method", "commitSync");
            BarrierEvent.CommitRejected rejected = (BarrierEvent.CommitRejected) e.events().get(3).payload();
            assertThat(rejected.offsets()).containsExactly(Map.entry("t-0", 5L), Map.entry("t-1", 7L));
            assertThat(rejected.message()).isEqualTo("stale");
            assertThat(evidence.reachedEvent().seq()).isEqualTo(2);
            assertThat(evidence.outcomeEvent().seq()).isEqualTo(4);
        }
    }

    @Test
    void anExpiryRecordsHowLongTheBarrierWaited() throws Exception {
        try (RunRecorder run = RunRecorder.start(dir, "r")) {
            ExperimentRecorder e = run.experiment("rebalance", "R8");
            Barrier b = Barrier.arm("offset-commit", BarrierEvidence.into(e, "consumer-A", 42, "thread"), BarrierOptions.ofDefaults());

            assertThatThrownBy(() -> b.awaitArrival(Duration.ofMillis(300))).isInstanceOf(BarrierTimeoutException.class);

            BarrierEvent.BarrierExpired expired = (BarrierEvent.BarrierExpired) e.events().get(1).payload();
            assertThat(expired.waitedMillis()).isBetween(300L, 10_000L);
        }
    }

    @Test
    void aReleaseAfterTheExperimentHasItsOutcomeIsNotRecordedAndDoesNotFail() throws Exception {
        try (RunRecorder run = RunRecorder.start(dir, "r")) {
            ExperimentRecorder e = run.experiment("schedules.before-offset-commit.crash", "R8");
            Barrier b = Barrier.arm("offset-commit", BarrierEvidence.into(e, "consumer-A", 42, "thread"), BarrierOptions.ofDefaults());
            e.finish(io.replaylab.evidence.Outcome.notRun("done before the barrier was let go"));
            int recorded = e.events().size();

            b.expire(); // as Held.close() lets go of a barrier a crashed A never reached again

            assertThat(b.state()).isEqualTo(BarrierState.EXPIRED);
            assertThat(e.events()).hasSize(recorded);
        }
    }
}
