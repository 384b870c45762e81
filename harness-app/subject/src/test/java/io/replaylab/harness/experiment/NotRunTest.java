package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.run;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.harness.subject.ReferenceLab;
import io.replaylab.harness.lab.Subject;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabProgress;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.oracle.TargetEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every NOT_RUN a run of the reference experiments can end with for want of a prerequisite, each reached for real: never a PASS without its fault. */
@LocalKafkaTest
// two at a time (the module's surefire settings): mostly waits out drain, barrier and stop timeouts
@Execution(ExecutionMode.CONCURRENT)
class NotRunTest {
    @TempDir
    Path dir;

    @Test
    void aSubjectThatExitsAtOnceIsNotRunWithinSecondsNamingItsExitCodeAndStderr(LocalKafka kafka) throws Exception {
        String exits = "sh -c 'echo boom-on-stderr >&2; exit 3' {group}";
        long start = System.nanoTime();
        Lab.LabResult r = Lab.run(on(kafka, dir).experiments(Experiments.replay(), Experiments.rebalance()).subject(Subject.command(exits)).build(), null);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(r.evidence().experiments()).hasSize(2).allSatisfy(x -> {
            wasNotRun(x).contains("exited on its own with code 3").contains("boom-on-stderr");
        });
        assertThat(experiment(r.evidence(), "rebalance").environment().get("barrier")).startsWith("wire").contains("'sh' is not java");
        assertThat(experiment(r.evidence(), "rebalance").events()).extracting(e -> e.type()).contains("barrier-armed", "barrier-expired");
        assertThat(took).as("not the 3-minute drain timeout, nor the barrier timeout").isLessThan(Duration.ofSeconds(40));
    }

    /** Every NOT_RUN an experiment can end with for want of a prerequisite, reached by a subject with that one defect. */
    @ParameterizedTest(name = "{0}: {1} NOT_RUN")
    @CsvSource(delimiter = '|', value = {
        "stall-on-replay | replay  | the subject did not consume the replay to the end: not done within 25 s (the lab's drain timeout",
        "occupy-plans    | replay  | the reset was refused: cannot save the plan into ",
        "ignore-sigterm  | replay  | did not become inactive within PT2S after its consumer stopped",
        "stall-in-g2     | rebuild | generation 2 did not consume the topic: not done within 25 s (the lab's drain timeout"})
    void aMissingPrerequisiteIsNotRunWithItsReason(String defect, String experiment, String reason, LocalKafka kafka) throws Exception {
        // a 3 s stop grace: the subject that ignores SIGTERM is killed after 3 s, not the default 20
        Lab.LabResult r = Lab.run(on(kafka, dir).experiments(experiment.equals("replay") ? Experiments.replay() : Experiments.rebuild()).subject(Subject.command(BrokenSubjectMain.template(defect)))
                // 25 s: the first drain (a JVM start and 60 records) must end within it on a loaded 2-core machine, where 10 s
                // were seen to run out; the stall cases wait it out once
                // no witness: the lab cannot read the consumer's timeouts, so a stall is the lab's NOT_RUN (with them it is a FAIL: LabTest)
                .drainTimeout(Duration.ofSeconds(25)).handoffTimeout(Duration.ofSeconds(2)).stopGrace(Duration.ofSeconds(3)).witness(false).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), experiment);
        wasNotRun(x).contains(reason);
    }

    @Test
    void aSubjectThatNeverReadsIsNotRunAtTheFirstDrainOfReplayAndRebuild(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir).experiments(Experiments.replay(), Experiments.rebuild()).subject(Subject.command(BrokenSubjectMain.template("stall")))
                .drainTimeout(Duration.ofSeconds(5)).witness(false).build(), null);

        assertThat(experiment(r.evidence(), "replay").outcome().reason())
                .isEqualTo("the subject did not consume the topic to the end: not done within 5 s (the lab's drain timeout, LabSettings.drainTimeout: the run has no wire witness to show the consumer's own timeouts) (see logs/replay-A.err)");
        assertThat(experiment(r.evidence(), "rebuild").outcome().reason()).isEqualTo("generation 1 did not consume the topic: not done within 5 s (the lab's drain timeout, LabSettings.drainTimeout: the run has no wire witness to show the consumer's own timeouts)");
        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN));
    }

    @Test
    void aRebalanceWhoseGroupNeverDrainsAfterRecoveryIsNotRunOnThatCheck(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(on(kafka, dir).records(3000).experiments(Experiments.rebalance()).subject(Subject.command(BrokenSubjectMain.template("stall-after-rebalance")))
                .drainTimeout(Duration.ofSeconds(6)).witness(false), "rebalance");
        wasNotRun(x).isEqualTo("the group did not drain after the recovery: not done within 6 s (the lab's drain timeout, LabSettings.drainTimeout: the run has no wire witness to show the consumer's own timeouts)");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("drained after recovery")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.NOT_RUN));
        assertThat(x.checks()).filteredOn(c -> c.name().equals("stale commit rejected")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.PASS));
    }

    @Test
    void aBrokerThatDiesDuringAnExperimentMakesItNotRunNamingTheBroker() throws Exception {
        try (LocalKafka own = LocalKafka.create(io.replaylab.kafka.broker.LocalKafkaConfig.custom().workDir(dir.resolve("own-broker")).build())
                .start()) {
            java.io.StringWriter progress = new java.io.StringWriter();
            java.util.concurrent.CompletableFuture<Lab.LabResult> run = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return Lab.run(ReferenceLab.settings().bootstrap(own.bootstrapServers()).workDir(dir).records(20).experiments(Experiments.replay())
                            .subject(Subject.command(BrokenSubjectMain.template("stall"))).build(), LabProgress.printingTo(new java.io.PrintWriter(progress, true)));
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!progress.toString().contains("drains the topic") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            own.kill(); // SIGKILL while the experiment waits for the first drain

            Lab.LabResult r = run.get(3, java.util.concurrent.TimeUnit.MINUTES);
            ExperimentEvidence x = experiment(r.evidence(), "replay");
            wasNotRun(x).startsWith("the broker became unreachable: ");
            assertThat(r.runDir().resolve("evidence.json")).exists();
        }
    }

    @Test
    void anUnforeseenFailureIsNotRunWithTheExceptionNamed(LocalKafka kafka) throws Exception {
        Experiment fails = new Experiment("fails", List.of("R14"), (ctx, ns, e) -> {
            ctx.step("about to fail");
            throw new IllegalStateException("a step nobody foresaw went wrong");
        });
        Lab.LabResult r = Lab.run(on(kafka, dir).experiments(fails, Experiments.rebuild()).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "fails");
        wasNotRun(x).as("the message first; the class's simple name only to say it was unforeseen")
                .isEqualTo("the experiment could not complete: a step nobody foresaw went wrong (an unforeseen IllegalStateException; the harness logged "
                        + "its stack trace)").doesNotContain("java.lang.");
        assertThat(experiment(r.evidence(), "rebuild").outcome().status()).as("the experiment beside it is not touched").isEqualTo(Status.PASS);
    }

    @Test
    void anUnreachableBrokerGivesNotRun() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Lab.LabResult r = Lab.run(ReferenceLab.settings().bootstrap("127.0.0.1:" + port).workDir(dir).build(), null);

        assertThat(r.evidence().outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(r.evidence().experiments()).hasSize(3).allSatisfy(x -> assertThat(x.outcome().reason()).contains("did not answer"));
    }

    @Test
    void aBarrierNeverReachedGivesNotRun(LocalKafka kafka) throws Exception {
        // with no witness its timeouts are not known: a consumer that never gets there is not judged as one that stalled
        // (UnseenConsumerTest's hanging consumer is), and the barrier timeout ends the wait
        String neverCommits = Runs.pollsOnly();
        Lab.LabResult r = Lab.run(on(kafka, dir).experiments(Experiments.rebalance()).subject(Subject.command(neverCommits)).witness(false)
                .barrierTimeout(Duration.ofSeconds(8)).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        wasNotRun(x).contains("never reached");
        assertThat(x.events()).extracting(e -> e.type()).contains("barrier-armed", "barrier-expired");
    }

    /** A custom target query the database refuses ends the whole run at the first offset commit, not at each experiment's verdict. */
    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "SELEC message_id, amount FROM ledger WHERE namespace = {namespace} | syntax error",
        "SELECT message_id FROM ledger WHERE namespace = {namespace}         | no such column: amount"})
    void aTargetQueryTheDatabaseRefusesEndsTheRunAtTheFirstOffsetCommitEveryExperimentNotRun(String query, String databaseSays, LocalKafka kafka)
            throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir).targetQuery(query).build(), null);

        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("replay", "rebalance", "rebuild");
        assertThat(r.evidence().experiments()).allSatisfy(x -> {
            wasNotRun(x).contains("the database refused the target query at the first offset commit: cannot read the target (")
                    .contains("with query [" + query + "]").contains(databaseSays).doesNotContain("Exception");
            assertThat(x.events()).as("no experiment got as far as its verdict").noneMatch(ev -> ev.payload() instanceof TargetEvent.OracleVerdict);
        });
    }
}
