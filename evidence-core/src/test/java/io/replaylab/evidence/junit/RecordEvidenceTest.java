package io.replaylab.evidence.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;
import static org.junit.platform.testkit.engine.EventConditions.abortedWithReason;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedSuccessfully;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import java.nio.file.Files;
import java.nio.file.Path;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.FailKind;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;
import org.opentest4j.TestAbortedException;

/** {@link RecordEvidence} run by JUnit's own engine: each outcome becomes the right test result, and the protocol is saved every time. */
class RecordEvidenceTest {
    @TempDir
    Path dir;

    /** JUnit's engine, saving protocols into this test's temporary directory. */
    private EngineTestKit.Builder engine() {
        return EngineTestKit.engine("junit-jupiter").configurationParameter(TestResults.DIR_PROPERTY, dir.toString());
    }

    private Events run(String method) {
        return engine().selectors(selectMethod(Examples.class, method, ExperimentRecorder.class.getName()))
                .execute().testEvents();
    }

    private ExperimentEvidence saved(String method) throws Exception {
        Path file = dir.resolve(Examples.class.getName()).resolve(method).resolve("evidence.json");
        assertThat(file).exists();
        assertThat(file.resolveSibling("report.md")).exists();
        assertThat(file.resolveSibling("report.html")).exists();
        return Evidence.read(file).experiments().get(0);
    }

    @Test
    void aPassingExperimentPassesTheTestAndSavesItsProtocol() throws Exception {
        run("passes").assertStatistics(s -> s.succeeded(1).failed(0).aborted(0));

        ExperimentEvidence x = saved("passes");
        assertThat(x.name()).isEqualTo("passes");
        assertThat(x.requirements()).containsExactly("R5", "R6");
        assertThat(x.outcome().status()).isEqualTo(Status.PASS);
    }

    @Test
    void aRerunReplacesTheTestsPreviousProtocol() throws Exception {
        run("failsACheck");
        run("passes").assertStatistics(s -> s.succeeded(1));
        run("passes").assertStatistics(s -> s.succeeded(1));

        assertThat(saved("passes").outcome().status()).isEqualTo(Status.PASS);
        assertThat(saved("failsACheck").outcome().status()).as("another test's protocol is left alone").isEqualTo(Status.FAIL);
    }

    @Test
    void aFailedExperimentFailsTheTestWithItsReason() throws Exception {
        run("failsACheck").assertThatEvents().haveExactly(1, event(test("failsACheck"),
                finishedWithFailure(instanceOf(AssertionError.class), message(m -> m.contains("experiment FAIL [CHECK_FAILED]")
                        && m.contains("no second effect") && m.contains("report.md")))));

        assertThat(saved("failsACheck").outcome().failKind()).isEqualTo(FailKind.CHECK_FAILED);
    }

    @Test
    void aNotRunExperimentAbortsTheTestWithItsReason() throws Exception {
        run("notRun").assertThatEvents().haveExactly(1, event(test("notRun"),
                abortedWithReason(instanceOf(TestAbortedException.class), message(m -> m.contains("the broker was not reachable")))));

        assertThat(saved("notRun").outcome().status()).isEqualTo(Status.NOT_RUN);
    }

    @Test
    void withNotRunSetToFailANotRunExperimentFailsTheTest() throws Exception {
        engine().configurationParameter(TestResults.NOT_RUN_PARAMETER, "fail")
                .selectors(selectMethod(Examples.class, "notRun", ExperimentRecorder.class.getName())).execute().testEvents()
                .assertThatEvents().haveExactly(1, event(test("notRun"),
                        finishedWithFailure(instanceOf(AssertionError.class), message(m -> m.contains("the broker was not reachable")))));

        assertThat(saved("notRun").outcome().status()).isEqualTo(Status.NOT_RUN);
    }

    @Test
    void aTestThatNeverFinishesItsExperimentIsAbortedNeverPassed() throws Exception {
        run("forgetsToFinish").assertThatEvents().haveExactly(1, event(test("forgetsToFinish"),
                abortedWithReason(message(m -> m.contains("without finishing its experiment")))));

        assertThat(saved("forgetsToFinish").outcome().status()).isEqualTo(Status.NOT_RUN);
    }

    @Test
    void aFailingAssertionIsAFailedCheckAndTheProtocolIsStillSaved() throws Exception {
        run("assertionFails").assertThatEvents().haveExactly(1, event(test("assertionFails"),
                finishedWithFailure(instanceOf(AssertionError.class), message("two effects of m-1"))));

        Outcome o = saved("assertionFails").outcome();
        assertThat(o.failKind()).isEqualTo(FailKind.CHECK_FAILED);
        assertThat(o.reason()).contains("two effects of m-1");
    }

    @Test
    void aTestAbortedByAnAssumptionIsNotRunWithItsReason() throws Exception {
        run("assumesAPrerequisite").assertThatEvents().haveExactly(1, event(test("assumesAPrerequisite"),
                abortedWithReason(message(m -> m.contains("the example's prerequisite is absent")))));

        assertThat(saved("assumesAPrerequisite").outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(saved("assumesAPrerequisite").outcome().reason()).isEqualTo("the test was aborted: the example's prerequisite is absent");
    }

    @Test
    void anotherExceptionMeansTheExperimentCouldNotRun() throws Exception {
        run("crashes").assertThatEvents().haveExactly(1, event(test("crashes"), finishedWithFailure(instanceOf(IllegalStateException.class))));

        assertThat(saved("crashes").outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(saved("crashes").outcome().reason()).contains("could not complete").contains("no database");
    }

    @Test
    void aTestWithoutARecorderIsLeftAlone() throws Exception {
        EngineTestKit.engine("junit-jupiter").selectors(selectMethod(Examples.class, "takesNoRecorder")).execute().testEvents()
                .assertThatEvents().haveExactly(1, event(test("takesNoRecorder"), finishedSuccessfully()));

        assertThat(Files.exists(dir.resolve(Examples.class.getName()).resolve("takesNoRecorder"))).isFalse();
    }

    /** Run only through EngineTestKit above (a nested class: surefire does not pick it up). */
    @RecordEvidence(requirements = {"R5", "R6"})
    static class Examples {
        @Test
        void passes(ExperimentRecorder e) {
            Event seen = e.record(Source.here("test"), new Payload.Note("every record delivered again"));
            e.check(Check.of("no second effect", "R6", "0 duplicates", "0 duplicates", true));
            e.finish(Outcome.judge(e.confirmFault("records delivered again", seen), e.checks()));
        }

        @Test
        void failsACheck(ExperimentRecorder e) {
            Event seen = e.record(Source.here("test"), new Payload.Note("every record delivered again"));
            e.check(Check.of("no second effect", "R6", "0 duplicates", "1 duplicate", false));
            e.finish(Outcome.judge(e.confirmFault("records delivered again", seen), e.checks()));
        }

        @Test
        void notRun(ExperimentRecorder e) {
            e.finish(Outcome.notRun("the broker was not reachable"));
        }

        @Test
        void forgetsToFinish(ExperimentRecorder e) {
            e.record(Source.here("test"), new Payload.Note("started, never judged"));
        }

        @Test
        void assertionFails(ExperimentRecorder e) {
            throw new AssertionError("two effects of m-1");
        }

        @Test
        void assumesAPrerequisite(ExperimentRecorder e) {
            // an abort as the extension may meet one (never a skip in this build: this class runs only inside EngineTestKit)
            throw new org.opentest4j.TestAbortedException("the example's prerequisite is absent");
        }

        @Test
        void crashes(ExperimentRecorder e) {
            throw new IllegalStateException("no database");
        }

        @Test
        void takesNoRecorder() {
            assertThat(1).isEqualTo(1);
        }
    }
}
