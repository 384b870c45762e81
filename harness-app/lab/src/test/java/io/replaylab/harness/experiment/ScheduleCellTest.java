package io.replaylab.harness.experiment;

import io.replaylab.harness.barrier.CommitPoint;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The schedules cells as values: what each shows is the cell's, and the docs' table is checked against them. */
class ScheduleCellTest {
    @Test
    void everyPointSaysWhatEachFaultsCellShows() {
        for (ScheduleCell c : ScheduleCell.all()) {
            assertThat(c.shows()).as(c.toString()).isNotBlank();
        }
        assertThat(ScheduleCell.all()).hasSize(CommitPoint.values().length * ScheduleCell.Fault.values().length);
    }

    @Test
    void theDocsCellTableIsTheCellsOwnRows() throws Exception {
        List<String> docs = Files.readAllLines(Path.of("..", "..", "docs", "how-a-run-works.md")).stream().map(String::strip)
                .filter(l -> l.startsWith("| before-") || l.startsWith("| after-")).toList();
        assertThat(docs).containsExactlyElementsOf(ScheduleCell.table());
    }
}
