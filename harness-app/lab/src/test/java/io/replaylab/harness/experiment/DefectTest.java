package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Outcome;
import org.junit.jupiter.api.Test;

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

    private static final Check SECOND_EFFECT = Check.fail("no second effect", "R12", "0", "40 duplicated");
    private static final Check NO_MISSING = Check.pass("no missing effect", "R12", "0", "0 missing");

    /** A class is caught only by its own FAIL: the check its defect fails, or (a skipped replay) the fault it never lets happen. */
    @Test
    void aFailIsTheDefectWhoseSignatureItShowsAndRulesOutTheOthersItsChecksHeld() {
        ExperimentEvidence doubled = ended("replay", Outcome.checkFailed("check failed: no second effect (R12)"), SECOND_EFFECT, NO_MISSING);
        ExperimentEvidence notRedelivered = ended("replay", Outcome.faultNotObserved("the records were not delivered again"));

        assertThat(Defect.SKIPS_THE_REPLAY.verdict(doubled)).as("the replay was read: its second effects say so").isEqualTo(Defect.Verdict.NOT_FOUND);
        assertThat(Defect.SKIPS_THE_REPLAY.decidedBy(doubled)).isEqualTo("FAIL, not this defect's: check failed: no second effect (R12)");
        assertThat(Defect.SKIPS_THE_REPLAY.verdict(notRedelivered)).isEqualTo(Defect.Verdict.CAUGHT);
        assertThat(Defect.SKIPS_THE_REPLAY.decidedBy(notRedelivered)).isEqualTo("FAIL: the records were not delivered again");

        ExperimentEvidence rebalance = ended("rebalance", Outcome.checkFailed("check failed: no second effect (R12)"), SECOND_EFFECT);
        assertThat(Defect.NO_INBOX.verdict(rebalance)).isEqualTo(Defect.Verdict.CAUGHT);
        assertThat(Defect.NO_INBOX.verdict(ended("rebalance", Outcome.faultNotObserved("no handoff")))).as("no handoff says nothing of an inbox")
                .isEqualTo(Defect.Verdict.NOT_JUDGED);

        ExperimentEvidence aheadButDoubled = ended("commit-ahead", Outcome.checkFailed("check failed: no second effect (R12)"), SECOND_EFFECT, NO_MISSING);
        assertThat(Defect.COMMITS_AHEAD.verdict(aheadButDoubled)).as("nothing missing: no commit ran ahead").isEqualTo(Defect.Verdict.NOT_FOUND);
        assertThat(Defect.COMMITS_AHEAD.verdict(ended("commit-ahead", Outcome.notRun("no wire proxy")))).isEqualTo(Defect.Verdict.NOT_JUDGED);
        assertThat(Defect.POSITION_AS_IDENTITY.verdict(ended("duplicate-publish", Outcome.checkFailed("x"),
                Check.pass("no second effect", "R12", "0", "0")))).as("its FAIL another check's").isEqualTo(Defect.Verdict.NOT_FOUND);
    }
}
