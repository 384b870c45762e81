package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.faultNotObserved;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static io.replaylab.harness.experiment.Runs.run;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.harness.lab.Subject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import io.replaylab.harness.lab.Lab;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.evidence.Status;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.kafka.OffsetsEvent;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Subjects with one defect each, caught by the experiment built to catch it: FAIL with the check or the missing handoff named. */
@LocalKafkaTest
class DefectiveSubjectTest {
    @TempDir
    Path dir;

    /**
     * The rebalance of the foreign subject (in {@code mode}) whose instance B never starts a consumer:
     * A's partition cannot move to B, and the experiment must FAIL with no handoff.
     */
    private ExperimentEvidence rebalanceWithoutB(LocalKafka kafka, String mode, Duration handoffTimeout) throws Exception {
        String bNeverJoins = "sh -c 'if [ \"$0\" = rebalance-B ]; then exec sleep 600; fi; exec \"$@\"' {instance} "
                + ForeignSubjectMain.template(mode);
        ExperimentEvidence x = run(on(kafka, dir).experiments(Experiments.rebalance()).subject(Subject.command(bNeverJoins)).targetQuery(ForeignSubjectMain.TARGET_QUERY)
                .handoffTimeout(handoffTimeout), "rebalance");
        faultNotObserved(x).startsWith("no handoff: ").endsWith("stayed with A for " + handoffTimeout);
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

        assertThat(x.events()).filteredOn(ev -> ev.payload() instanceof LabEvent.Rejoined j && j.instance().equals("rebalance-A"))
                .singleElement().satisfies(ev -> assertThat(ev.source().instance()).isEqualTo("rebalance-A"));
        Set<String> aMembersOwning = new HashSet<>();
        x.events().stream().filter(ev -> ev.payload() instanceof OffsetsEvent.AssignmentChanged c && c.instance().equals("rebalance-A") && !c.partitions().isEmpty())
                .forEach(ev -> aMembersOwning.add(((OffsetsEvent.AssignmentChanged) ev.payload()).seenBy().replaceAll(".*member ([^)]+)\\).*", "$1")));
        assertThat(aMembersOwning).as("A owned its partition as two members: before and after it joined again").hasSize(2);
    }

    @Test
    void aSubjectWithoutTheInboxCheckIsCaughtAsASecondEffect(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(on(kafka, dir).experiments(Experiments.replay()).subject(Subject.command(BrokenSubjectMain.template("no-inbox"))),
                "replay");
        failedItsChecks(x);
        assertThat(x.checks()).filteredOn(c -> c.status() == Status.FAIL).extracting(c -> c.name())
                .contains("no second effect", "target identical before and after");
    }

    @Test
    void aSubjectThatJumpsOverTheReplayFailsWithNoRedeliveryAlthoughItCommittedEveryOffsetAgain(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir).experiments(Experiments.replay()).subject(Subject.command(BrokenSubjectMain.template("skip-replay"))).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "replay");
        faultNotObserved(x).isEqualTo("no redelivery: after the reset to earliest the subject handled 0 of 60 records again "
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
        ExperimentEvidence x = run(on(kafka, dir).experiments(Experiments.rebuild()).subject(Subject.command(BrokenSubjectMain.template(defect))),
                "rebuild");
        failedItsChecks(x);
        assertThat(x.checks()).filteredOn(c -> c.status() == Status.FAIL).extracting(c -> c.name()).contains(failedCheck);
    }

    /**
     * A subject that loses every tenth record's effect, committing its offset all the same, is caught at rebuild's first
     * generation, before any fault: what it did there is judged, not taken for a prerequisite the lab lacked.
     */
    @Test
    void aSubjectThatLosesEffectsFailsRebuildAtItsFirstGenerationNamingThem(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(on(kafka, dir).experiments(Experiments.rebuild()).subject(Subject.command(BrokenSubjectMain.template("lossy"))),
                "rebuild");
        failedItsChecks(x).matches("generation 1 holds \\d+ effects for the source set's 60 ids before the rebuild: check failed: no missing "
                + "effect \\(R12\\).*").contains("effect lost of");
        assertThat(x.events()).extracting(ev -> ev.payload()).filteredOn(p -> p instanceof Payload.ProcessStarted).extracting(p ->
                ((Payload.ProcessStarted) p).instance()).as("generation 2 never started").containsOnly("rebuild-g1");
    }

    @Test
    void aSubjectThatCommitsOffsetsBeforeItsDbCommitIsCaughtAtTheBarrier(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(on(kafka, dir).experiments(Experiments.rebalance()).subject(Subject.command(BrokenSubjectMain.template("commit-first"))),
                "rebalance");
        wasNotRun(x).contains("not confirmed").contains("commit offsets before its DB commit");
    }
}
