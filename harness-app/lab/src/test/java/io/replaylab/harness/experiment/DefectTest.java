package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** README's "What catches what" is the lab's list of defect classes, and each names an experiment or cell the battery runs. */
class DefectTest {
    @Test
    void readmesTableListsEveryDefectClassWithWhatCatchesItAndWhatItsFailShows() throws Exception {
        List<String> rows = Files.readAllLines(Path.of("..", "..", "README.md")).stream().filter(l -> l.startsWith("| ")).toList();
        for (Defect d : Defect.all()) {
            assertThat(rows).as(d.name()).anyMatch(r -> r.startsWith("| " + d.description() + " | `" + d.caughtBy() + "` | " + d.shows() + " |"));
        }
    }

    @Test
    void everyDefectClassIsCaughtByAnExperimentOrCellOfTheThoroughBattery() {
        List<String> battery = Experiments.thorough().stream().map(x -> x.name()).toList();
        List<String> defaultCells = ScheduleCell.all().stream().map(SchedulesExperiment::partName).toList();
        for (Defect d : Defect.all()) {
            assertThat(battery.contains(d.caughtBy()) || defaultCells.contains(d.caughtBy())).as(d.caughtBy()).isTrue();
        }
    }

    private static ExperimentEvidence ended(String name, Outcome outcome, Check... checks) {
        return new ExperimentEvidence(name, List.of(), java.time.Instant.EPOCH, java.time.Instant.EPOCH, java.util.Map.of(), List.of(), List.of(checks),
                outcome, List.of(), List.of(), List.of());
    }

    private static io.replaylab.evidence.RunEvidence run(ExperimentEvidence... experiments) {
        return new io.replaylab.evidence.RunEvidence(io.replaylab.evidence.RunEvidence.SCHEMA_VERSION, "run-t", java.time.Instant.EPOCH, java.time.Instant.EPOCH,
                true, List.of(experiments), Outcome.combine(java.util.Arrays.stream(experiments).map(ExperimentEvidence::outcome).toList()), List.of());
    }

    private static final Check SECOND_EFFECT = Check.fail("no second effect", "R12", "0", "40 duplicated");
    private static final Check NO_SECOND_EFFECT = Check.pass("no second effect", "R12", "0", "0");
    private static final Check NO_MISSING = Check.pass("no missing effect", "R12", "0", "0 missing");
    private static final Check NOT_REDELIVERED = Check.fail("records delivered again", "R5", "40 redelivered", "0 handled again");
    private static final Check REDELIVERED = Check.pass("records delivered again", "R5", "40 redelivered", "40 handled again");

    /** A class is caught only by its own FAIL: the check its defect fails, with the kind of FAIL that defect gives. */
    @Test
    void aFailIsTheDefectWhoseSignatureItShowsAndRulesOutTheOthersItsChecksHeld() {
        ExperimentEvidence doubled = ended("replay", Outcome.checkFailed("check failed: no second effect (R12)"), REDELIVERED, SECOND_EFFECT, NO_MISSING);
        ExperimentEvidence notRedelivered = ended("replay", Outcome.faultNotObserved("no redelivery"), NOT_REDELIVERED);

        assertThat(Defect.SKIPS_THE_REPLAY.verdict(doubled)).as("the replay was read: its second effects say so").isEqualTo(Defect.Verdict.NOT_FOUND);
        assertThat(Defect.SKIPS_THE_REPLAY.decidedBy(run(doubled))).hasValue("FAIL, not this defect's: check failed: no second effect (R12)");
        assertThat(Defect.SKIPS_THE_REPLAY.verdict(notRedelivered)).isEqualTo(Defect.Verdict.CAUGHT);
        assertThat(Defect.SKIPS_THE_REPLAY.verdict(ended("replay", Outcome.faultNotObserved("the reset did not land"))))
                .as("the lab's own reset failing says nothing of the consumer").isEqualTo(Defect.Verdict.NOT_JUDGED);

        ExperimentEvidence rebalance = ended("rebalance", Outcome.checkFailed("check failed: no second effect (R12)"), SECOND_EFFECT);
        assertThat(Defect.NO_INBOX.verdict(rebalance)).isEqualTo(Defect.Verdict.CAUGHT);
        assertThat(Defect.NO_INBOX.verdict(ended("rebalance", Outcome.checkFailed("collision"),
                Check.fail("no second effect from the old/new collision", "R9", "1", "2")))).as("its direct check alone").isEqualTo(Defect.Verdict.CAUGHT);
        assertThat(Defect.NO_INBOX.verdict(ended("rebalance", Outcome.faultNotObserved("no handoff")))).as("no handoff says nothing of an inbox")
                .isEqualTo(Defect.Verdict.NOT_JUDGED);

        ExperimentEvidence aheadButDoubled = ended("commit-ahead", Outcome.checkFailed("check failed: no second effect (R12)"), SECOND_EFFECT, NO_MISSING);
        assertThat(Defect.COMMITS_AHEAD.verdict(aheadButDoubled)).as("nothing missing: no commit ran ahead").isEqualTo(Defect.Verdict.NOT_FOUND);
        assertThat(Defect.COMMITS_AHEAD.verdict(ended("commit-ahead", Outcome.notRun("no wire proxy")))).isEqualTo(Defect.Verdict.NOT_JUDGED);
        ExperimentEvidence aheadNothingLost = ended("commit-ahead", Outcome.checkFailed("check failed: no commit ahead of the database (R11)"),
                Check.fail(CommitAheadExperiment.NO_COMMIT_AHEAD, "R11", "every record a commit covers has its effect in the target when the "
                        + "commit is sent", "commit-ahead-A sent a commit of t-0 at 2 while 1 record(s) it covered had no effect in the target yet"),
                NO_MISSING);
        assertThat(Defect.COMMITS_AHEAD.verdict(aheadNothingLost)).as("ahead as it was sent; its record landed before the kill")
                .isEqualTo(Defect.Verdict.CAUGHT);
    }

    /** Two classes with one symptom: a consumer with no inbox doubles duplicate-publish's re-sent messages too, not only a position-keyed one. */
    @Test
    void aClassWhoseSymptomAnotherClassSharesIsCaughtOnlyOnceTheRunRuledTheOtherOut() {
        ExperimentEvidence republishDoubled = ended("duplicate-publish", Outcome.checkFailed("check failed: no second effect (R12)"), SECOND_EFFECT);
        ExperimentEvidence noInbox = ended("rebalance", Outcome.checkFailed("check failed: no second effect (R12)"), SECOND_EFFECT);
        // its inbox held (another check failed): one effect per message in rebalance
        ExperimentEvidence inbox = ended("rebalance", Outcome.checkFailed("check failed: amounts match exactly (R12)"), NO_SECOND_EFFECT,
                Check.fail("amounts match exactly", "R12", "0", "1 mismatched"));

        assertThat(Defect.POSITION_AS_IDENTITY.verdict(run(republishDoubled, inbox))).hasValue(Defect.Verdict.CAUGHT);
        assertThat(Defect.POSITION_AS_IDENTITY.verdict(run(republishDoubled, noInbox))).hasValue(Defect.Verdict.NOT_JUDGED);
        assertThat(Defect.POSITION_AS_IDENTITY.decidedBy(run(republishDoubled, noInbox))).hasValueSatisfying(t -> assertThat(t)
                .startsWith("FAIL, but 'applies every delivery (no inbox, or the inbox outside the effect's transaction)' shows the same and "
                        + "rebalance caught that in this run: "));
        assertThat(Defect.POSITION_AS_IDENTITY.decidedBy(run(republishDoubled))).hasValueSatisfying(t -> assertThat(t)
                .contains("rebalance did not rule it out in this run: "));
        assertThat(Defect.POSITION_AS_IDENTITY.verdict(run(republishDoubled))).as("no rebalance in the run").hasValue(Defect.Verdict.NOT_JUDGED);
        assertThat(Defect.NO_INBOX.verdict(run(republishDoubled, noInbox))).hasValue(Defect.Verdict.CAUGHT);
        assertThat(Defect.SWALLOWS_BUSY_WRITES.sameSymptom()).isEqualTo(Defect.COMMITS_AHEAD);
    }

    /**
     * A PASS rules a class out only with the check that class fails made and holding: a replay read from committed offsets alone
     * (no processing log, no wire witness) checks "offsets committed again", which a consumer that jumps to the log end passes too.
     */
    @Test
    void aPassWithoutTheCheckThatShowsADefectLeavesItNotJudged(@TempDir Path dir) {
        Outcome passed = passedReplay(dir);
        ExperimentEvidence offsetsOnly = ended("replay", passed, Check.pass(Verdicts.RECOMMITTED, "R5", "40 redelivered", "40 offsets committed again"),
                NO_SECOND_EFFECT, NO_MISSING);
        ExperimentEvidence read = ended("replay", passed, REDELIVERED, NO_SECOND_EFFECT, NO_MISSING);

        assertThat(Defect.SKIPS_THE_REPLAY.verdict(offsetsOnly)).isEqualTo(Defect.Verdict.NOT_JUDGED);
        assertThat(Defect.SKIPS_THE_REPLAY.decidedBy(run(offsetsOnly))).hasValue("PASS, without a check that rules this defect out (records delivered "
                + "again, made only where the wire witness or the consumer's processing log shows what it read)");
        assertThat(Defect.SKIPS_THE_REPLAY.verdict(read)).isEqualTo(Defect.Verdict.NOT_FOUND);
        assertThat(Defect.SKIPS_THE_REPLAY.decidedBy(run(read))).hasValue("PASS: " + passed.reason());
    }

    /** A replay's PASS, its fault confirmed, with one check made ("no second effect"). */
    private static Outcome passedReplay(Path dir) {
        try (RunRecorder r = RunRecorder.start(dir.resolve("run"), "run-defects")) {
            ExperimentRecorder e = r.experiment("replay");
            e.check(NO_SECOND_EFFECT);
            return e.finish(Outcome.judge(e.confirmFault("every record delivered again after the reset",
                    e.record(Source.here("harness"), new Payload.Note("40 offsets committed again"))), e.checks()));
        }
    }

    /** Aborted records applied are their own class, judged by replay's aborted check, which only a source with aborted transactions makes. */
    @Test
    void aReplayThatAppliedAbortedRecordsIsCaughtAndOneWhoseSourceHadNoneLeavesTheClassNotJudged(@TempDir Path dir) {
        Check applied = Check.fail(io.replaylab.harness.lab.LabTarget.NO_ABORTED_EFFECT, "R12", "no effect of the 9 record(s) of aborted transactions",
                "9 applied");
        Check none = Check.pass(io.replaylab.harness.lab.LabTarget.NO_ABORTED_EFFECT, "R12", "no effect of the 9 record(s) of aborted transactions",
                "none applied");
        ExperimentEvidence readAborted = ended("replay", Outcome.checkFailed("check failed: no effect of an aborted record (R12)"), REDELIVERED,
                NO_SECOND_EFFECT, applied);
        Outcome doubled = Outcome.checkFailed("check failed: no second effect (R12)");

        assertThat(Defect.READS_ABORTED.verdict(readAborted)).isEqualTo(Defect.Verdict.CAUGHT);
        assertThat(Defect.SKIPS_THE_REPLAY.verdict(readAborted)).as("it read the replay").isEqualTo(Defect.Verdict.NOT_FOUND);
        assertThat(Defect.READS_ABORTED.verdict(ended("replay", doubled, REDELIVERED, SECOND_EFFECT, none))).as("another check failed, this one held")
                .isEqualTo(Defect.Verdict.NOT_FOUND);
        ExperimentEvidence noneInTheSource = ended("replay", passedReplay(dir), REDELIVERED, NO_SECOND_EFFECT);
        assertThat(Defect.READS_ABORTED.verdict(noneInTheSource)).as("no aborted record in its source").isEqualTo(Defect.Verdict.NOT_JUDGED);
        assertThat(Defect.READS_ABORTED.decidedBy(run(noneInTheSource))).hasValue("PASS, without a check that rules this defect out (no effect "
                + "of an aborted record, made only on a source with aborted transactions, as thorough writes it)");
    }
}
