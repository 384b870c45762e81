package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
}
