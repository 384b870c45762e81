package io.replaylab.harness.lab.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;
import static org.junit.platform.testkit.engine.EventConditions.abortedWithReason;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.Status;
import io.replaylab.evidence.junit.TestResults;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;
import org.opentest4j.TestAbortedException;

/** {@link RecordLab} run by JUnit's own engine on a real broker: each run's outcome becomes the right test result, and the protocol is saved every time. */
@LocalKafkaTest
class RecordLabTest {
    /** The shared broker, for the examples JUnit runs inside this test. */
    static String bootstrap;

    @TempDir
    Path dir;

    @BeforeEach
    void examplesUseTheSharedBroker(LocalKafka kafka) {
        bootstrap = kafka.bootstrapServers();
    }

    private Events run(String method) {
        return EngineTestKit.engine("junit-jupiter").configurationParameter(TestResults.DIR_PROPERTY, dir.toString())
                .selectors(selectMethod(Examples.class, method, LabRunner.class.getName())).execute().testEvents();
    }

    /** The one run a test made, read back from its protocol directory. */
    private RunEvidence saved(String method) throws Exception {
        Path testDir = dir.resolve(Examples.class.getName()).resolve(method);
        try (Stream<Path> runs = Files.list(testDir)) {
            List<Path> dirs = runs.filter(Files::isDirectory).toList();
            assertThat(dirs).as("one run under " + testDir).hasSize(1);
            assertThat(dirs.get(0).resolve("report.md")).exists();
            assertThat(dirs.get(0).resolve("report.html")).exists();
            return Evidence.read(dirs.get(0).resolve(Evidence.EVIDENCE_FILE));
        }
    }

    @Test
    void aPassingRunPassesTheTestAndSavesItsProtocol() throws Exception {
        run("passes").assertStatistics(s -> s.succeeded(1).failed(0).aborted(0));

        assertThat(saved("passes").outcome().status()).isEqualTo(Status.PASS);
    }

    @Test
    void aFailedRunFailsTheTestWithItsReason() throws Exception {
        run("fails").assertThatEvents().haveExactly(1, event(test("fails"),
                finishedWithFailure(instanceOf(AssertionError.class), message(m -> m.contains("experiment FAIL") && m.contains("check failed: one effect (R6)")
                        && m.contains("report.md")))));

        assertThat(saved("fails").outcome().status()).isEqualTo(Status.FAIL);
    }

    @Test
    void aNotRunRunAbortsTheTestWithItsReason() throws Exception {
        run("notRun").assertThatEvents().haveExactly(1, event(test("notRun"),
                abortedWithReason(instanceOf(TestAbortedException.class), message(m -> m.contains("the fault was never reached")))));

        assertThat(saved("notRun").outcome().status()).isEqualTo(Status.NOT_RUN);
    }

    @Test
    void anExpectedFailPassesTheTestAndAnUnexpectedPassFailsIt() throws Exception {
        run("expectsAFailAndGetsOne").assertStatistics(s -> s.succeeded(1).failed(0).aborted(0));
        run("expectsAFailButPasses").assertThatEvents().haveExactly(1, event(test("expectsAFailButPasses"),
                finishedWithFailure(instanceOf(AssertionError.class), message(m -> m.startsWith("expected the run to FAIL, but it was PASS")))));

        assertThat(saved("expectsAFailAndGetsOne").outcome().status()).isEqualTo(Status.FAIL);
        assertThat(saved("expectsAFailButPasses").outcome().status()).isEqualTo(Status.PASS);
    }

    @Test
    void anExpectedFailThatCouldNotRunIsAbortedNeverPassed() throws Exception {
        run("expectsAFailButCannotRun").assertThatEvents().haveExactly(1, event(test("expectsAFailButCannotRun"),
                abortedWithReason(message(m -> m.contains("the fault was never reached")))));
    }

    /** Experiments that end as told, without a subject: what is judged here is the mapping, not the experiments. */
    static Experiment ending(String name, Status status) {
        return new Experiment(name, List.of("R14"), (ctx, ns, e) -> switch (status) {
            case PASS -> {
                e.check(Check.of("one effect", "R6", "1", "1", true));
                yield e.finish(Outcome.judge(e.confirmFault("the fault hit", e.record(Source.here("test"), new Payload.Note("fault"))), e.checks()));
            }
            case FAIL -> {
                e.check(Check.of("one effect", "R6", "1", "2: a second effect", false));
                yield e.finish(Outcome.judge(e.confirmFault("the fault hit", e.record(Source.here("test"), new Payload.Note("fault"))), e.checks()));
            }
            case NOT_RUN -> e.finish(Outcome.notRun("the fault was never reached"));
        });
    }

    static LabSettings.Builder settings(Status status) {
        return LabSettings.custom().bootstrap(bootstrap).experiments(ending("example", status));
    }

    @RecordLab
    static class Examples {
        @Test
        void passes(LabRunner lab) throws Exception {
            lab.run(settings(Status.PASS));
        }

        @Test
        void fails(LabRunner lab) throws Exception {
            lab.run(settings(Status.FAIL));
        }

        @Test
        void notRun(LabRunner lab) throws Exception {
            lab.run(settings(Status.NOT_RUN));
        }

        @Test
        void expectsAFailAndGetsOne(LabRunner lab) throws Exception {
            lab.expect(Status.FAIL, settings(Status.FAIL));
        }

        @Test
        void expectsAFailButPasses(LabRunner lab) throws Exception {
            lab.expect(Status.FAIL, settings(Status.PASS));
        }

        @Test
        void expectsAFailButCannotRun(LabRunner lab) throws Exception {
            lab.expect(Status.FAIL, settings(Status.NOT_RUN));
        }
    }
}
