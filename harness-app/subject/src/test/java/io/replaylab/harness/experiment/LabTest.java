package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.harness.subject.ReferenceLab;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.Subject;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabProgress;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.barrier.jdi.HoldMode;
import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.FailKind;
import io.replaylab.evidence.MetricValue;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.PollingConsumerMain;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The experiments end to end, as values: settings in, evidence out, against the real broker. */
@LocalKafkaTest
class LabTest {
    @TempDir
    Path dir;

    private LabSettings.Builder on(LocalKafka kafka) {
        return ReferenceLab.settings().bootstrap(kafka.bootstrapServers()).workDir(dir).records(60);
    }

    private static ExperimentEvidence experiment(RunEvidence r, String name) {
        return r.experiments().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
    }

    private static MetricValue metric(RunEvidence r, String experiment, String name, String tag, String value) {
        return experiment(r, experiment).metrics().stream().filter(m -> m.name().equals(name) && (tag == null || value.equals(m.tags().get(tag))))
                .findFirst().orElseThrow(() -> new AssertionError("no metric " + name + " in " + experiment + ": " + experiment(r, experiment).metrics()));
    }

    @Test
    void allThreeExperimentsPassWithTheReferenceSubjectAndLeaveAProtocol(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).build(), null);

        assertThat(r.evidence().outcome().status()).as(r.evidence().outcome().reason()).isEqualTo(Status.PASS);
        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("replay", "rebalance", "rebuild");
        assertThat(r.evidence().experiments()).allSatisfy(x -> {
            assertThat(x.outcome().confirmation()).isNotNull();
            assertThat(x.limitations()).anyMatch(l -> l.contains("EOS"));
        });
        assertThat(experiment(r.evidence(), "rebalance").events()).extracting(e -> e.type())
                .contains("barrier-reached", "db-commit-seen", "assignment-changed", "barrier-released", "commit-rejected");
        assertThat(Evidence.read(r.runDir().resolve("evidence.json"))).isEqualTo(r.evidence());
        // metrics: final values, taken when each experiment finished
        assertThat(metric(r.evidence(), "replay", "replaylab.drain.records", "stage", "replay").values()).containsEntry("count", 60.0);
        assertThat(metric(r.evidence(), "replay", "replaylab.drain", "stage", "first pass").values().get("count")).isEqualTo(1.0);
        assertThat(metric(r.evidence(), "replay", "replaylab.subject.processes", null, null).values()).containsEntry("count", 2.0);
        assertThat(metric(r.evidence(), "replay", "replaylab.oracle.snapshot", null, null).values()).containsEntry("count", 2.0);
        assertThat(metric(r.evidence(), "replay", "replaylab.kafka.admin.requests", null, null).values().get("count")).isPositive();
        assertThat(metric(r.evidence(), "rebalance", "replaylab.barrier.hold", null, null).values().get("total")).isPositive();
        assertThat(metric(r.evidence(), "rebalance", "replaylab.handoff", null, null).values()).containsEntry("count", 1.0);
        assertThat(metric(r.evidence(), "rebuild", "replaylab.oracle.compare", null, null).values()).containsEntry("count", 1.0);
        assertThat(Files.readString(r.report())).contains("### Metrics").contains("replaylab.barrier.hold");
        assertThat(r.runDir().resolve("report.html")).exists();
        assertThat(r.runDir().resolve("targets")).as("each experiment projects into a SQLite file of its own")
                .isDirectoryContaining("glob:**/replay.db").isDirectoryContaining("glob:**/rebalance.db").isDirectoryContaining("glob:**/rebuild.db");
        assertThat(experiment(r.evidence(), "rebalance").environment().get("target db")).startsWith("targets/rebalance.db");
        try (var plans = Files.list(r.runDir().resolve("plans"))) {
            assertThat(plans).anyMatch(p -> p.toString().endsWith(".plan.json"));
        }
        assertThat(r.cleaned()).isNotEmpty().allMatch(c -> c.contains(".replay.") || c.contains(".rebalance.") || c.contains(".rebuild."));
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            assertThat(ops.describe(experiment(r.evidence(), "replay").environment().get("group")).state().isInactive()).isTrue();
        }
    }

    @ParameterizedTest(name = "{0} protocol, {1} hold")
    @CsvSource({"CONSUMER, THREAD", "CLASSIC, PROCESS", "CONSUMER, PROCESS"})
    void rebalancePassesInBothProtocolsAndHoldModes(GroupProtocol protocol, HoldMode mode, LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.rebalance()).groupProtocol(protocol).holdMode(mode).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.PASS);
        assertThat(x.environment()).containsEntry("hold mode", mode.name().toLowerCase()).containsEntry("group protocol", protocol.name);
    }

    @ParameterizedTest(name = "{0} protocol")
    @EnumSource(GroupProtocol.class)
    void rebalancePassesWithTheWireBarrierInBothProtocols(GroupProtocol protocol, LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.rebalance()).groupProtocol(protocol).barrier(BarrierKind.WIRE).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.PASS);
        assertThat(x.environment()).containsEntry("barrier", "wire (asked for)").containsEntry("hold mode", "connection")
                .containsKey("subject bootstrap");
        Payload.CommitRejected rejected = x.events().stream().map(e -> e.payload()).filter(Payload.CommitRejected.class::isInstance)
                .map(Payload.CommitRejected.class::cast).findFirst().orElseThrow();
        assertThat(rejected.exception()).as("the broker's error, read from the OffsetCommit answer").isIn("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION",
                "STALE_MEMBER_EPOCH", "FENCED_MEMBER_EPOCH", "REBALANCE_IN_PROGRESS");
        assertThat(Files.readString(r.report())).contains("| barrier | wire (asked for) |");
    }

    /**
     * The rebalance of the foreign subject (in {@code mode}) whose instance B never starts a consumer:
     * A's partition cannot move to B, and the experiment must FAIL with no handoff.
     */
    private ExperimentEvidence rebalanceWithoutB(LocalKafka kafka, String mode, Duration handoffTimeout) throws Exception {
        String bNeverJoins = "sh -c 'if [ \"$0\" = rebalance-B ]; then exec sleep 600; fi; exec \"$@\"' {instance} "
                + ForeignSubjectMain.template(mode);
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.rebalance()).subject(Subject.command(bNeverJoins)).targetQuery(ForeignSubjectMain.TARGET_QUERY)
                .handoffTimeout(handoffTimeout).build(), null);
        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.FAIL);
        assertThat(x.outcome().failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        assertThat(x.outcome().reason()).startsWith("no handoff: ").endsWith("stayed with A for " + handoffTimeout);
        return x;
    }

    @Test
    void aSecondInstanceThatNeverJoinsIsAFailedFaultNoHandoff(LocalKafka kafka) throws Exception {
        // 5 s, inside A's 6 s session: later, A's own client may give up its held coordinator connection and join again as a new
        // member (seen under load at 12 s); that case has its own test below
        ExperimentEvidence x = rebalanceWithoutB(kafka, "", Duration.ofSeconds(5));

        assertThat(x.checks()).filteredOn(c -> c.name().equals("partition moved to B while A was held")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.FAIL));
        assertThat(x.environment().get("barrier")).startsWith("wire");
    }

    @Test
    void anAThatJoinsAgainAsANewMemberAndTakesItsPartitionBackIsNoHandoffToB(LocalKafka kafka) throws Exception {
        // A's held commit times out in A after 3 s; A un-subscribes and subscribes again, a new member of the same process that
        // (B never joins) gets the partition back: that is A, told by its client.id (its instance name), not a handoff to B
        ExperimentEvidence x = rebalanceWithoutB(kafka, "rejoins", Duration.ofSeconds(25));

        assertThat(x.events()).filteredOn(ev -> ev.payload() instanceof Payload.Note n && n.text().contains("joined again as a new member"))
                .singleElement().satisfies(ev -> assertThat(ev.source().instance()).isEqualTo("rebalance-A"));
        Set<String> aMembersOwning = new HashSet<>();
        x.events().stream().filter(ev -> ev.payload() instanceof Payload.AssignmentChanged c && c.instance().equals("rebalance-A") && !c.partitions().isEmpty())
                .forEach(ev -> aMembersOwning.add(((Payload.AssignmentChanged) ev.payload()).seenBy().replaceAll(".*member ([^)]+)\\).*", "$1")));
        assertThat(aMembersOwning).as("A owned its partition as two members: before and after it joined again").hasSize(2);
    }

    @Test
    void aCommitTheSubjectGaveUpWhileHeldOnTheWireIsNotRunNeverPass(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.rebalance()).subject(Subject.command(ForeignSubjectMain.template("gives-up")))
                .targetQuery(ForeignSubjectMain.TARGET_QUERY).barrier(BarrierKind.WIRE).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains("never reached the broker").contains("closed the connection");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("stale commit rejected")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.NOT_RUN));
        assertThat(x.events()).extracting(e -> e.type()).contains("commit-not-delivered").doesNotContain("commit-rejected", "commit-accepted");
    }

    @Test
    void aSubjectThatExitsAtOnceIsNotRunWithinSecondsNamingItsExitCodeAndStderr(LocalKafka kafka) throws Exception {
        String exits = "sh -c 'echo boom-on-stderr >&2; exit 3' {group}";
        long start = System.nanoTime();
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.replay(), Experiments.rebalance()).subject(Subject.command(exits)).build(), null);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(r.evidence().experiments()).hasSize(2).allSatisfy(x -> {
            assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
            assertThat(x.outcome().reason()).contains("exited on its own with code 3").contains("boom-on-stderr");
        });
        assertThat(experiment(r.evidence(), "rebalance").environment().get("barrier")).startsWith("wire").contains("'sh' is not java");
        assertThat(experiment(r.evidence(), "rebalance").events()).extracting(e -> e.type()).contains("barrier-armed", "barrier-expired");
        assertThat(took).as("not the 3-minute drain timeout, nor the barrier timeout").isLessThan(Duration.ofSeconds(40));
    }

    @Test
    void aSubjectWithoutTheInboxCheckIsCaughtAsASecondEffect(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.replay()).subject(Subject.command(BrokenSubjectMain.template("no-inbox"))).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "replay");
        assertThat(x.outcome().status()).isEqualTo(Status.FAIL);
        assertThat(x.outcome().failKind()).isEqualTo(FailKind.CHECK_FAILED);
        assertThat(x.checks()).filteredOn(c -> c.status() == Status.FAIL).extracting(c -> c.name())
                .contains("no second effect", "target identical before and after");
    }

    @Test
    void aSubjectThatJumpsOverTheReplayFailsWithNoRedeliveryAlthoughItCommittedEveryOffsetAgain(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.replay()).subject(Subject.command(BrokenSubjectMain.template("skip-replay"))).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "replay");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.FAIL);
        assertThat(x.outcome().failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        assertThat(x.outcome().reason()).isEqualTo("no redelivery: after the reset to earliest the subject handled 0 of 60 records again "
                + "(60 offsets committed again, 0 records handled in the subject's log {})");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("records delivered again")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.FAIL));
    }

    /** R16's two checks, each failed by a subject that breaks it: an inbox blind to namespaces, a rebuild that writes into generation 1. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "global-inbox | generation 2 rebuilt every effect",
        "write-to-g1  | generation 1 untouched"})
    void aRebuildThatDoesNotRebuildIntoItsOwnGenerationFails(String defect, String failedCheck, LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.rebuild()).subject(Subject.command(BrokenSubjectMain.template(defect))).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebuild");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.FAIL);
        assertThat(x.outcome().failKind()).isEqualTo(FailKind.CHECK_FAILED);
        assertThat(x.checks()).filteredOn(c -> c.status() == Status.FAIL).extracting(c -> c.name()).contains(failedCheck);
    }

    /** Every NOT_RUN an experiment can end with for want of a prerequisite, reached by a subject with that one defect. */
    @ParameterizedTest(name = "{0}: {1} NOT_RUN")
    @CsvSource(delimiter = '|', value = {
        "stall-on-replay | replay  | the subject did not consume the replay to the end within PT25S",
        "occupy-plans    | replay  | the reset was refused: cannot save the plan into ",
        "ignore-sigterm  | replay  | did not become inactive within PT2S after its consumer stopped",
        "lossy           | rebuild | effects, not 60",
        "stall-in-g2     | rebuild | generation 2 did not consume the topic within PT25S"})
    void aMissingPrerequisiteIsNotRunWithItsReason(String defect, String experiment, String reason, LocalKafka kafka) throws Exception {
        // a 3 s stop grace: the subject that ignores SIGTERM is killed after 3 s, not the default 20
        Lab.LabResult r = Lab.run(on(kafka).experiments(experiment.equals("replay") ? Experiments.replay() : Experiments.rebuild()).subject(Subject.command(BrokenSubjectMain.template(defect)))
                // 25 s: the first drain (a JVM start and 60 records) must end within it on a loaded 2-core machine, where 10 s
                // were seen to run out; the stall cases wait it out once
                .drainTimeout(Duration.ofSeconds(25)).handoffTimeout(Duration.ofSeconds(2)).stopGrace(Duration.ofSeconds(3)).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), experiment);
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains(reason);
    }

    @Test
    void aSubjectThatNeverReadsIsNotRunAtTheFirstDrainOfReplayAndRebuild(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.replay(), Experiments.rebuild()).subject(Subject.command(BrokenSubjectMain.template("stall")))
                .drainTimeout(Duration.ofSeconds(5)).build(), null);

        assertThat(experiment(r.evidence(), "replay").outcome().reason())
                .isEqualTo("the subject did not consume the topic to the end within PT5S (see logs/replay-A.err)");
        assertThat(experiment(r.evidence(), "rebuild").outcome().reason()).isEqualTo("generation 1 did not consume the topic within PT5S");
        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN));
    }

    @Test
    void aRebalanceWhoseGroupNeverDrainsAfterRecoveryIsNotRunOnThatCheck(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).records(3000).experiments(Experiments.rebalance()).subject(Subject.command(BrokenSubjectMain.template("stall-after-rebalance")))
                .drainTimeout(Duration.ofSeconds(6)).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).isEqualTo("the group did not drain after the recovery within PT6S");
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
            assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
            assertThat(x.outcome().reason()).startsWith("the broker became unreachable: ");
            assertThat(r.runDir().resolve("evidence.json")).exists();
        }
    }

    @Test
    void anUnforeseenFailureIsNotRunWithTheExceptionNamed(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.replay()).targetQuery("SELECT no_such_column AS message_id, 1 AS amount FROM ledger")
                .build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "replay");
        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).startsWith("the experiment could not complete: java.lang.IllegalArgumentException: cannot read the target");
    }

    @Test
    void aSubjectThatCommitsOffsetsBeforeItsDbCommitIsCaughtAtTheBarrier(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.rebalance()).subject(Subject.command(BrokenSubjectMain.template("commit-first"))).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains("not confirmed").contains("commit offsets before its DB commit");
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
        String neverCommits = Subject.javaCommand(PollingConsumerMain.class.getName()) + " {bootstrap} {topic} {group}";
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.rebalance()).subject(Subject.command(neverCommits)).barrierTimeout(Duration.ofSeconds(8)).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).contains("never reached");
        assertThat(x.events()).extracting(e -> e.type()).contains("barrier-armed", "barrier-expired");
    }

    @Test
    void anotherConsumerWithItsOwnSchemaRunsThroughSubjectCmdAndTargetQuery(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka).experiments(Experiments.replay(), Experiments.rebalance()).subject(Subject.command(ForeignSubjectMain.template()))
                .targetQuery(ForeignSubjectMain.TARGET_QUERY).build(), null);

        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("replay", "rebalance");
        assertThat(r.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason())
                .isEqualTo(Status.PASS));
        assertThat(experiment(r.evidence(), "replay").checks()).filteredOn(c -> c.name().equals("records delivered again")).singleElement()
                .satisfies(c -> assertThat(c.actual()).contains("the subject keeps no processing log: offsets only"));
    }
}
