package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.run;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.check;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.metric;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.barrier.BarrierEvent;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.Subject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.replaylab.harness.lab.Lab;
import io.replaylab.barrier.HoldMode;
import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.process.Platform;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The experiments end to end, as values: settings in, evidence out, against the real broker; what a passing run leaves. */
@LocalKafkaTest
class LabTest {
    @TempDir
    Path dir;

    /**
     * Beyond Linux, simulated here: on a machine with nothing beyond the JDK (no /proc, setsid,
     * POSIX signals or shell: Windows) replay, rebalance and rebuild still PASS through the JDK's own
     * process control, with no watchdog shell; what needs SIGSTOP is NOT_RUN naming the machine.
     */
    @Test
    void onAMachineWithNothingBeyondTheJdkReplayRebalanceAndRebuildPassAndFreezesAreNotAvailable(LocalKafka kafka) throws Exception {
        Platform windows = Platform.jdkOnly("Windows 11");
        Lab.LabResult r = Lab.run(on(kafka, dir).platform(windows).experiments(Experiments.replay(), Experiments.rebalance(), Experiments.rebuild(),
                Experiments.schedules(List.of(ScheduleCell.parse("before-offset-commit:freeze"))), Experiments.durability()).build(), null);

        String machine = "Windows 11 (simulated on " + System.getProperty("os.name") + " ";
        for (String x : List.of("replay", "rebalance", "rebuild")) {
            ExperimentEvidence ev = experiment(r.evidence(), x);
            assertThat(ev.outcome().status()).as(x + ": " + ev.outcome().reason()).isEqualTo(Status.PASS);
            assertThat(ev.environment().get("os")).startsWith(machine).endsWith("): no /proc, no setsid, no POSIX signals, no /bin/sh");
        }
        assertThat(experiment(r.evidence(), "schedules.before-offset-commit.freeze").outcome().reason()).startsWith("not available on " + machine)
                .endsWith(": a freeze needs POSIX signals (SIGSTOP, SIGCONT) and /proc to confirm every thread stopped");
        assertThat(experiment(r.evidence(), "durability").outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(experiment(r.evidence(), "durability").outcome().reason()).startsWith("not available on " + machine);
        assertThat(r.runDir().resolve("logs/process-groups")).as("no watchdog shell, no process groups").doesNotExist();
        assertThat(experiment(r.evidence(), "replay").environment().get("os")).isNotEqualTo(Platform.host().describe());
    }

    @Test
    void allThreeExperimentsPassWithTheReferenceSubjectAndLeaveAProtocol(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir).build(), null);

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
        // the verdict's compare, and those of each generation's drain while it follows the generation by its effects
        assertThat(metric(r.evidence(), "rebuild", "replaylab.oracle.compare", null, null).values().get("count")).isGreaterThanOrEqualTo(1.0);
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
        Lab.LabResult r = Lab.run(on(kafka, dir).experiments(Experiments.rebalance()).groupProtocol(protocol).holdMode(mode).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        passed(x);
        assertThat(x.environment()).containsEntry("hold mode", mode.name().toLowerCase()).containsEntry("group protocol", protocol.name)
                .hasEntrySatisfying("wire witness", v -> assertThat(v).startsWith("on"));
        // the debugger holds A; the witness says whether its client refused the stale commit or sent it and the broker refused it
        String said = check(x, "stale commit rejected").actual();
        List<BarrierEvent.CommitWitnessed> aOnWire = witnessed(x, "rebalance-A");
        if (said.startsWith("refused by the client before sending")) {
            assertThat(said).contains("no OffsetCommit from A (member ").contains("after its hold; the client said ");
        } else {
            assertThat(said).matches("rejected by the broker: [A-Z_]+ to the OffsetCommit [^ ]+=[0-9]+ of member .*");
            assertThat(aOnWire).as("the refused commit is in the evidence").anyMatch(c -> !c.accepted() && c.fate().equals("ANSWERED"));
        }
        assertThat(x.outcome().confirmation().toString()).containsPattern("was (refused by the client before sending|rejected by the broker: [A-Z_]+)");
        assertThat(witnessed(x, "rebalance-B")).as("B's commits, stored").isNotEmpty().anyMatch(BarrierEvent.CommitWitnessed::accepted);
        assertThat(Files.readString(r.report())).contains("### Offset commits on the wire");
    }

    private static List<BarrierEvent.CommitWitnessed> witnessed(ExperimentEvidence x, String instance) {
        return x.events().stream().map(e -> e.payload()).filter(BarrierEvent.CommitWitnessed.class::isInstance).map(BarrierEvent.CommitWitnessed.class::cast)
                .filter(c -> c.instance().equals(instance)).toList();
    }

    @Test
    void withoutTheWitnessSubjectsGoStraightToTheBrokerAndTheVerdictSaysWhoRefusedIsNotKnown(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(on(kafka, dir).experiments(Experiments.rebalance()).witness(false), "rebalance");
        passed(x);
        assertThat(x.environment()).doesNotContainKey("subject bootstrap").hasEntrySatisfying("wire witness", v -> assertThat(v).startsWith("off"));
        assertThat(x.events()).extracting(e -> e.type()).doesNotContain("commit-witnessed");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("stale commit rejected")).singleElement()
                .satisfies(c -> assertThat(c.actual()).contains("the run had no wire witness: by the broker or by the client is not known"));
    }

    @Test
    void aSubjectThatIgnoresTheBootstrapItIsGivenIsNotWitnessedNeverRefusedByTheClient(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = pastTheProxy(kafka, Experiments.rebalance());
        passed(x);
        assertThat(x.events()).extracting(e -> e.type()).doesNotContain("commit-witnessed");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("stale commit rejected")).singleElement()
                .satisfies(c -> assertThat(c.actual()).contains("not witnessed: A never talked through the wire proxy").doesNotContain("refused by"));
    }

    @Test
    void aReplayThatNeverFetchedThroughTheProxyIsNotRunNotFailedBecauseTheRedeliveryCannotBeSeen(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = pastTheProxy(kafka, Experiments.replay());
        wasNotRun(x).contains("never fetched").contains("through the wire proxy it was given as {bootstrap}");
    }

    @ParameterizedTest(name = "{0} protocol")
    @EnumSource(GroupProtocol.class)
    void rebalancePassesWithTheWireBarrierInBothProtocols(GroupProtocol protocol, LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir).experiments(Experiments.rebalance()).groupProtocol(protocol).barrier(BarrierKind.WIRE).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "rebalance");
        passed(x);
        assertThat(x.environment()).containsEntry("barrier", "wire (asked for)").containsEntry("hold mode", "connection")
                .containsKey("subject bootstrap");
        BarrierEvent.CommitRejected rejected = x.events().stream().map(e -> e.payload()).filter(BarrierEvent.CommitRejected.class::isInstance)
                .map(BarrierEvent.CommitRejected.class::cast).findFirst().orElseThrow();
        assertThat(rejected.exception()).as("the broker's error, read from the OffsetCommit answer").isIn("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION",
                "STALE_MEMBER_EPOCH", "FENCED_MEMBER_EPOCH", "REBALANCE_IN_PROGRESS");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("stale commit rejected")).singleElement()
                .satisfies(c -> assertThat(c.actual()).startsWith("rejected by the broker: " + rejected.exception() + " to the OffsetCommit "));
        assertThat(witnessed(x, "rebalance-A")).as("the held commit, refused on the wire").anyMatch(c -> c.held() && !c.accepted());
        assertThat(Files.readString(r.report())).contains("| barrier | wire (asked for) |");
    }

    /** {@code experiment} alone, on a subject that ignores the bootstrap it is given and talks to the broker itself, past the wire proxy. */
    private ExperimentEvidence pastTheProxy(LocalKafka kafka, Experiment experiment) throws Exception {
        String direct = ForeignSubjectMain.template().replace("{bootstrap}", kafka.bootstrapServers());
        Lab.LabResult r = Lab.run(on(kafka, dir).subject(Subject.command(direct)).targetQuery(ForeignSubjectMain.TARGET_QUERY).experiments(experiment)
                .build(), null);
        return experiment(r.evidence(), experiment.name());
    }
}
