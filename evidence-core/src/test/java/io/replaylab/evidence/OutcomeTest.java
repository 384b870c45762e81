package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutcomeTest {
    @TempDir
    Path dir;

    @Test
    void combiningKeepsTheWorstFailOverNotRunOverPass() {
        FaultConfirmation f = confirmation();
        Outcome pass = Outcome.judge(f, List.of(Check.pass("c", "R6", "x", "x")));
        Outcome notRun = Outcome.notRun("no broker");
        Outcome fail = Outcome.checkFailed("second effect");

        assertThat(pass.status()).isEqualTo(Status.PASS);
        assertThat(pass.and(notRun)).isEqualTo(notRun);
        assertThat(notRun.and(pass)).isEqualTo(notRun);
        assertThat(notRun.and(fail)).isEqualTo(fail);
        assertThat(fail.and(pass)).isEqualTo(fail);
        Outcome otherFail = Outcome.checkFailed("a hole below the frontier");
        assertThat(fail.and(otherFail)).as("a tie keeps the first reason").isSameAs(fail);
        assertThat(otherFail.and(fail)).isSameAs(otherFail);
        assertThat(Outcome.combine(List.of(pass, notRun, fail, pass))).isEqualTo(fail);
        assertThat(Outcome.combine(List.of())).extracting(Outcome::status).isEqualTo(Status.NOT_RUN);
    }

    @Test
    void aVerdictNamesItsChecksOfOneStatusByNameAndRequirement() {
        List<Check> checks = List.of(Check.pass("a", "R6", "x", "x"), Check.fail("b", "R11", "x", "y"), Check.fail("c", "R12", "x", "y"));

        assertThat(Outcome.names(checks, Status.FAIL)).isEqualTo("b (R11), c (R12)");
        assertThat(Outcome.names(checks, Status.NOT_RUN)).isEmpty();
        assertThat(Outcome.judge(confirmation(), checks).reason()).isEqualTo("check failed: " + Outcome.names(checks, Status.FAIL));
    }

    @Test
    void passCannotBeBuiltWithoutAConfirmedFault() {
        assertThatThrownBy(() -> new Outcome(Status.PASS, "trust me", null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confirmed fault");
        assertThatThrownBy(() -> Outcome.judge(null, List.of(Check.pass("c", "R6", "x", "x"))))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void faultCanOnlyBeConfirmedByAnEventOfTheSameExperiment() {
        try (RunRecorder run = RunRecorder.start(dir, "r")) {
            ExperimentRecorder one = run.experiment("one");
            ExperimentRecorder two = run.experiment("two");
            Event e = one.record(Source.here("h"), new Payload.Note("fault"));
            assertThatThrownBy(() -> two.confirmFault("x", e)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> two.confirmFault("x", null)).isInstanceOf(IllegalArgumentException.class);
            assertThat(one.confirmFault("x", e).eventSeq()).isEqualTo(1);
        }
    }

    @Test
    void judgeFailsOnAnyFailedCheckAndIsNotRunOnUnevaluatedOnesOrNone() {
        FaultConfirmation f = confirmation();
        Outcome failed = Outcome.judge(f, List.of(Check.pass("a", "R6", "x", "x"), Check.fail("b", "R11", "no hole", "hole at 3")));
        assertThat(failed.status()).isEqualTo(Status.FAIL);
        assertThat(failed.failKind()).isEqualTo(FailKind.CHECK_FAILED);
        assertThat(failed.reason()).contains("b (R11)");

        Outcome notRun = Outcome.judge(f, List.of(Check.pass("a", "R6", "x", "x"), Check.notRun("c", "R12", "x", "no DB")));
        assertThat(notRun.status()).isEqualTo(Status.NOT_RUN);
        assertThat(Outcome.judge(f, List.of()).status()).isEqualTo(Status.NOT_RUN);
    }

    @Test
    void failKindsTellAMissingFaultFromABrokenCheck() {
        assertThat(Outcome.faultNotObserved("no redelivery").failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        assertThat(Outcome.checkFailed("hole").failKind()).isEqualTo(FailKind.CHECK_FAILED);
        assertThatThrownBy(() -> new Outcome(Status.FAIL, "x", null, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Outcome(Status.NOT_RUN, "x", FailKind.CHECK_FAILED, null)).isInstanceOf(IllegalArgumentException.class);
    }

    private FaultConfirmation confirmation() {
        try (RunRecorder run = RunRecorder.start(dir.resolve("c" + System.nanoTime()), "c")) {
            ExperimentRecorder e = run.experiment("x");
            return e.confirmFault("fault", e.record(Source.here("h"), new Payload.Note("fault seen")));
        }
    }
}
