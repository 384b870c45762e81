package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.run;
import static io.replaylab.harness.experiment.Runs.matrix;
import static io.replaylab.harness.experiment.Runs.payloads;
import static io.replaylab.harness.experiment.Runs.failed;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.RecordSource;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.OffsetsEvent;
import io.replaylab.kafka.testing.PythonConsumer;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wire-faults experiment end to end: faults the proxy aims at A's requests, on real subjects and a real broker. */
@LocalKafkaTest
class WireFaultsExperimentTest {
    @TempDir
    Path dir;

    private LabSettings.Builder wireFaults(LocalKafka kafka, String... cells) {
        return Runs.on(kafka, dir).records(20).stopGrace(Duration.ofSeconds(5))
                .experiments(cells.length == 0 ? Experiments.wireFaults() : Experiments.wireFaults(Stream.of(cells).map(WireFaultCell::parse).toList()));
    }


    private static ExperimentEvidence cell(RunEvidence r, String spec) {
        return experiment(r, WireFaultsExperiment.partName(WireFaultCell.parse(spec)));
    }

    @Test
    void theReferenceSubjectPassesEveryDefaultCellAndTheTableSaysWhatEachMeant(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka).parallel(2).build(), null);

        ExperimentEvidence whole = experiment(r.evidence(), "wire-faults");
        List<String> defaults = WireFaultCell.defaults(GroupProtocol.CLASSIC).stream().map(WireFaultCell::toString).toList();
        assertThat(defaults).hasSize(9).contains("offset-commit:lost-answer", "offset-fetch:rewind=5@every", "offset-fetch:forget@every",
                "heartbeat:error=REBALANCE_IN_PROGRESS");
        Payload.Matrix m = matrix(experiment(r.evidence(), "wire-faults"));
        assertThat(m.rows()).containsExactlyElementsOf(defaults);
        assertThat(m.cells()).as(m.cells().toString()).allSatisfy(c -> assertThat(c.status()).isEqualTo("PASS"))
                .allSatisfy(c -> assertThat(c.meaning()).isNotBlank());
        passed(whole);
        for (String spec : defaults) {
            ExperimentEvidence x = cell(r.evidence(), spec);
            assertThat(x.outcome().confirmation().toString()).as(spec).contains(spec + " fired on the wire").contains("after it A ");
            assertThat(payloads(x)).as(spec).anyMatch(p -> p instanceof LabEvent.ClientDid n && !n.did().isEmpty());
        }
        assertThat(cell(r.evidence(), "offset-commit:lost-answer").outcome().confirmation().toString())
                .contains("the broker answered {NONE=1}; that answer was dropped");
        ExperimentEvidence rewind = cell(r.evidence(), "offset-fetch:rewind=5@every");
        assertThat(rewind.checks()).filteredOn(c -> c.name().equals("records delivered again with no reset by anyone")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.PASS));
        assertThat(rewind.outcome().confirmation().toString()).containsPattern("answered the committed offsets lower: [^ ]+ [0-9]+→[0-9]+");
        assertThat(payloads(rewind)).as("confirmed on the wire too").anyMatch(p -> p instanceof Payload.Note n
                && n.text().matches("A went back on the wire: .+=[0-9]+ committed after [0-9]+ was stored"));
        assertThat(Files.readString(r.report())).contains("### Wire faults: fault × group protocol").contains("| **offset-fetch:rewind=5@every** |");
    }

    @Test
    void underTheConsumerProtocolTheJavaClientRetriesAStaleEpochButTakesRebalanceInProgressAsFatalAndRecoversOnceRestarted(LocalKafka kafka)
            throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka, "offset-commit:error=STALE_MEMBER_EPOCH", "consumer-group-heartbeat:error=FENCED_MEMBER_EPOCH@3",
                "offset-commit:error=REBALANCE_IN_PROGRESS").groupProtocol(GroupProtocol.CONSUMER).build(), null);

        assertThat(cell(r.evidence(), "offset-commit:error=STALE_MEMBER_EPOCH").outcome().status()).isEqualTo(Status.PASS);
        assertThat(cell(r.evidence(), "consumer-group-heartbeat:error=FENCED_MEMBER_EPOCH@3").outcome().status()).isEqualTo(Status.PASS);
        // the client dies of it (exit code 1); restarted as a supervisor would, it drains: judged on what it reached, the exit a finding
        ExperimentEvidence rebalancing = cell(r.evidence(), "offset-commit:error=REBALANCE_IN_PROGRESS");
        passed(rebalancing);
        assertThat(payloads(rebalancing)).as("its exit, from its process").anyMatch(p -> p instanceof LabEvent.Exited n && n.exit() == 1
                && n.why().contains("exited on its own with code 1") && n.why().contains("Unexpected error in commit"));
        assertThat(rebalancing.environment()).hasEntrySatisfying("exits of offset-commit.error-REBALANCE_IN_PROGRESS-A",
                v -> assertThat(v).startsWith("1 exit(s) on its own, the last with code 1"));
        assertThat(experiment(r.evidence(), "wire-faults").outcome().status()).isEqualTo(Status.PASS);
    }

    /**
     * A Java consumer with its client's defaults that commits each batch with commitAsync() (which never retries), through
     * every default cell: a commit answered with an error, at-least-once with an inbox allows it (every effect is applied),
     * so a cell is judged once the effects are in and the committed offsets stand still, not when they reach the log end. On
     * KIP-848's protocol it sends no Heartbeat: the default heartbeat cell follows it to its ConsumerGroupHeartbeat.
     */
    @ParameterizedTest(name = "{0} group protocol")
    @ValueSource(strings = {"classic", "consumer"})
    void anAsynchronousCommitterThatNeverRetriesAFailedCommitPassesEveryDefaultCellOnceEveryEffectIsApplied(String protocol, LocalKafka kafka)
            throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka).subject(ForeignSubjectMain.subject("async-batch").env("GROUP_PROTOCOL", protocol))
                .targetQuery(ForeignSubjectMain.TARGET_QUERY).build(), null);

        assertThat(r.evidence().experiments()).filteredOn(x -> x.name().startsWith("wire-faults.")).hasSize(9)
                .allSatisfy(x -> assertThat(x.outcome().status()).as(x.name() + ": " + x.outcome().reason()).isEqualTo(Status.PASS));
        assertThat(matrix(experiment(r.evidence(), "wire-faults")).columns()).as("the protocol A joined with, as the wire saw it").containsExactly(protocol);
        ExperimentEvidence heartbeat = cell(r.evidence(), "heartbeat:error=REBALANCE_IN_PROGRESS");
        if (protocol.equals("consumer")) {
            assertThat(payloads(heartbeat)).anyMatch(p -> p instanceof Payload.Note n && n.text().matches("A joined \\S+ with the consumer protocol, "
                    + "which sends no Heartbeat: the default heartbeat cell aims at its ConsumerGroupHeartbeat instead, "
                    + "consumer-group-heartbeat:error=FENCED_MEMBER_EPOCH@3"));
            passed(heartbeat).startsWith("consumer-group-heartbeat:error=FENCED_MEMBER_EPOCH@3 fired on the wire");
            return;
        }
        passed(heartbeat).startsWith("heartbeat:error=REBALANCE_IN_PROGRESS fired on the wire");
        ExperimentEvidence x = cell(r.evidence(), "offset-commit:error=COORDINATOR_LOAD_IN_PROGRESS");
        passed(x);
        assertThat(payloads(x)).as("the group's committed offsets stood short of the log end").anyMatch(p -> p instanceof OffsetsEvent.OffsetsSnapshot s
                && s.label().equals("after the fault") && s.partitions().stream().anyMatch(row -> row.lag() > 0));
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no missing effect")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.PASS));
    }

    /**
     * A heartbeat cell asked for by name is A's to meet: on the other protocol it says at once that it cannot fire, and with a
     * consumer that never joins it says that, after the barrier timeout.
     */
    @Test
    void aHeartbeatCellOfTheOtherProtocolOrOfAConsumerThatNeverJoinsIsNotRunSayingWhich(LocalKafka kafka) throws Exception {
        ExperimentEvidence other = run(wireFaults(kafka, "heartbeat:error=REBALANCE_IN_PROGRESS")
                .subject(ForeignSubjectMain.subject("async-batch").env("GROUP_PROTOCOL", "consumer")).targetQuery(ForeignSubjectMain.TARGET_QUERY),
                "wire-faults.heartbeat.error-REBALANCE_IN_PROGRESS");
        wasNotRun(other).matches("the fault cannot fire: A joined \\S+ with the consumer protocol, which sends no Heartbeat "
                + "\\(consumer-group-heartbeat:error=FENCED_MEMBER_EPOCH@3 is that protocol's cell\\)");

        ExperimentEvidence never = run(wireFaults(kafka, "consumer-group-heartbeat:error=FENCED_MEMBER_EPOCH@3")
                .subject(Subject.command("sh -c 'exec sleep 600' {group}")).barrierTimeout(Duration.ofSeconds(3)),
                "wire-faults.consumer-group-heartbeat.error-FENCED_MEMBER_EPOCH-3");
        wasNotRun(never).matches("the fault never fired: A did not join group \\S+ within PT3S \\(no JoinGroup or ConsumerGroupHeartbeat of its "
                + "on the wire\\)");
    }

    /**
     * Expired offsets (the OffsetFetch answered with none): librdkafka's default reset (latest) jumps to the log end, past the
     * records published after A's first instance stopped, a FAIL naming them (its first instance, started on the empty topic,
     * read everything); the reference (earliest) reads everything again and passes in the default cells' test above.
     */
    @Test
    void forgottenOffsetsMakeAConsumerThatResetsToTheEndSkipWhatItHadNotAppliedAndFail(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka, "offset-fetch:forget@every").records(40)
                .subject(Subject.command(PythonConsumer.template(dir, "--offset-reset latest"))).targetQuery(PythonConsumer.TARGET_QUERY).build(), null);

        ExperimentEvidence x = cell(r.evidence(), "offset-fetch:forget@every");
        failed(x).startsWith("records skipped: client offset-fetch.forget-every-A reset ").contains("(ListOffsets LATEST)")
                .contains("has no effect");
        assertThat(payloads(x)).as("the first instance skipped nothing: it started at 0 on the empty topic").noneMatch(p -> p instanceof Payload.Note n
                && n.text().contains("first half goes in now anyway"));
        assertThat(payloads(x)).anyMatch(p -> p instanceof LabEvent.FaultFired n && n.fault().equals("offset-fetch:forget@every")
                && n.firing().contains("answered no committed offset: "));
    }

    /**
     * The forget cell fills its topic in two steps (a staged source): with aborted transactions in the source, each step is
     * copied with aborted ones between its records, and a Java consumer with the client's default isolation applies them.
     */
    @Test
    void aStagedSourceKeepsItsAbortedTransactionsAndAJavaConsumerWithDefaultIsolationFailsNamingThem(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka, "offset-fetch:forget@every").records(40).source(RecordSource.reference().withAbortedTransactions())
                .subject(ForeignSubjectMain.subject("client-defaults")).targetQuery(ForeignSubjectMain.TARGET_QUERY).build(), null);

        ExperimentEvidence x = cell(r.evidence(), "offset-fetch:forget@every");
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.FAIL);
        assertThat(payloads(x)).anyMatch(p -> p instanceof LabEvent.SourceStaged s && s.abortedTransactions()
                && s.summary().contains("unchanged, in committed transactions with aborted ones (copies under fresh ids) between them, 40 record(s) in two halves"));
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no effect of an aborted record")).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.FAIL);
            assertThat(c.actual()).contains("-aborted-").contains("isolation.level=read_uncommitted, the Java client's default");
        });
        assertThat(x.checks()).filteredOn(c -> c.name().equals("no missing effect")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Status.PASS));
    }

    @Test
    void aConsumerWithoutTheInboxCheckFailsTheRewindWithTheIdsItAppliedTwice(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka, "offset-fetch:rewind=5").subject(Subject.command(BrokenSubjectMain.template("no-inbox"))).build(),
                null);

        ExperimentEvidence x = cell(r.evidence(), "offset-fetch:rewind=5");
        failedItsChecks(x);
        assertThat(x.checks()).filteredOn(c -> c.status() == Status.FAIL).isNotEmpty()
                .anySatisfy(c -> assertThat(c.actual()).containsPattern("dup|second|2 effect"));
    }

    @Test
    void aConsumerThatSkipsAheadAfterARejectedCommitFailsWithTheRecordsItNeverProjected(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka, "offset-commit:error=STALE_MEMBER_EPOCH").groupProtocol(GroupProtocol.CONSUMER)
                .subject(Subject.command(BrokenSubjectMain.template("skip-ahead"))).build(), null);

        ExperimentEvidence x = cell(r.evidence(), "offset-commit:error=STALE_MEMBER_EPOCH");
        failedItsChecks(x);
        assertThat(x.checks()).filteredOn(c -> c.status() == Status.FAIL).isNotEmpty();
        assertThat(x.outcome().confirmation().toString()).contains("offset-commit:error=STALE_MEMBER_EPOCH fired on the wire");
    }

    @Test
    void aConsumerThatJumpsToTheEndOnAssignmentDoesNotGoBackAndTheRewindIsNotRun(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka, "offset-fetch:rewind=5").subject(Subject.command(BrokenSubjectMain.template("skip-replay")))
                .build(), null);

        ExperimentEvidence x = cell(r.evidence(), "offset-fetch:rewind=5");
        wasNotRun(x).startsWith("the rewind fired (answered the committed offsets lower: ")
                .endsWith("but A did not go back: none of its commits after it is below the offsets stored before, and it fetched "
                        + "from none below them");
    }

    @Test
    void aCorrectBatchedConsumerThatCommitsOnlyEachBatchsEndGoesBackUnderTheRewindAndPasses(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka, "offset-fetch:rewind=5@every").records(60).targetQuery(PythonConsumer.HANDBOOK_TARGET_QUERY)
                .source(Handbook.shaped()).subject(Handbook.consumer(dir).env("BATCH", "10")).build(), null);

        ExperimentEvidence x = cell(r.evidence(), "offset-fetch:rewind=5@every");
        passed(x);
        assertThat(x.events().stream().map(ev -> ev.payload().toString())).anyMatch(p -> p.contains("A went back on the wire: ")
                && p.contains("fetched from"));
    }

    /**
     * A fault that never fires; one that keeps A from ever joining (its timeouts never seen: the drain timeout bounds the wait);
     * one that keeps A, joined, from ever reading (its stall, past its own timeouts, is the fault's while the fault still fires).
     */
    @Test
    void aFaultThatNeverFiresOrThatKeepsTheClientFromProgressingIsNotRunSayingWhichAndWhatTheClientDid(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(wireFaults(kafka, "produce:error=NOT_LEADER_OR_FOLLOWER", "find-coordinator:error=COORDINATOR_NOT_AVAILABLE@every",
                "fetch:error=NOT_LEADER_OR_FOLLOWER@every")
                .barrierTimeout(Duration.ofSeconds(30)).drainTimeout(Duration.ofSeconds(8)).build(), null); // 30 s: a JVM start under the suite's load

        ExperimentEvidence never = cell(r.evidence(), "produce:error=NOT_LEADER_OR_FOLLOWER");
        wasNotRun(never).isEqualTo("the fault never fired: A sent no Produce as client produce.error-NOT_LEADER_OR_FOLLOWER-A within PT30S");
        ExperimentEvidence lost = cell(r.evidence(), "find-coordinator:error=COORDINATOR_NOT_AVAILABLE@every");
        wasNotRun(lost).startsWith("the client could not progress under find-coordinator:error=COORDINATOR_NOT_AVAILABLE@every: "
                + "not done within 8 s (the lab's drain timeout, LabSettings.drainTimeout: no member of ").contains(" joined through the wire proxy to "
                + "show the consumer's own timeouts); after the fault it ").contains("sent FindCoordinator again");
        ExperimentEvidence starved = cell(r.evidence(), "fetch:error=NOT_LEADER_OR_FOLLOWER@every");
        wasNotRun(starved).matches("the fault kept firing \\([0-9]+ time\\(s\\) since \\S+, the last at A's Fetch v[0-9]+.*\\): \\S+ "
                + "stalled during drain after the fault: [0-9]+ effect\\(s\\) missing .*with no progress for 41 s, longer than its poll interval and session "
                + "timeout .*; under a fault that never stops, that is the cell's doing, not the consumer's");
    }

    @Test
    void aRewindWhoseFirstDrainNeverEndsAndARunWithoutTheProxyAreNotRun(LocalKafka kafka) throws Exception {
        // a "consumer" that never connects: no member joins, so the drain timeout bounds the first drain
        Lab.LabResult stalled = Lab.run(wireFaults(kafka, "offset-fetch:rewind=5").subject(Subject.command("sleep 600").env("RL_GROUP", "{group}")
                .env("RL_TOPIC", "{topic}").env("RL_BOOTSTRAP", "{bootstrap}").env("RL_DB", "{db}").env("RL_NAMESPACE", "{namespace}"))
                .drainTimeout(Duration.ofSeconds(5)).stopGrace(Duration.ofSeconds(2)).build(), null);
        assertThat(cell(stalled.evidence(), "offset-fetch:rewind=5").outcome().reason()).matches("the group did not drain before the fault: not done "
                + "within 5 s \\(the lab's drain timeout, LabSettings.drainTimeout: no member of \\S+ joined through the wire proxy to show the "
                + "consumer's own timeouts\\)");

        Lab.LabResult direct = Lab.run(wireFaults(kafka).witness(false).build(), null);
        ExperimentEvidence x = experiment(direct.evidence(), "wire-faults");
        wasNotRun(x).startsWith("wire faults need the wire proxy between the subjects and the broker, and this run has none");
    }
}
