package io.replaylab.harness.experiment;

import io.replaylab.barrier.BarrierState;
import io.replaylab.harness.barrier.CommitPoint;
import io.replaylab.harness.experiment.ScheduleCell.Fault;
import io.replaylab.kafka.LabNamespace;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

/** The schedules cells as values: what each shows is the cell's, and the docs' table is checked against them. */
class ScheduleCellTest {
    private static final ScheduleCell HOLD_THEN_CRASH = ScheduleCell.parse("before-db-commit:hold-then-crash");

    @Test
    void everyPointSaysWhatEachFaultsCellShows() {
        for (ScheduleCell c : ScheduleCell.every()) {
            assertThat(c.shows()).as(c.toString()).isNotBlank();
            assertThat(c.meaning()).as(c.toString()).startsWith("at " + c.point().id() + " (").contains(c.fault().description());
        }
        assertThat(ScheduleCell.every()).hasSize(CommitPoint.values().length * Fault.values().length);
    }

    @Test
    void theDefaultMatrixIsEverySingleFaultAndOnlyTheSequencesThatCatchWhatTheSingleFaultsDoNot() {
        assertThat(ScheduleCell.all()).filteredOn(c -> !c.fault().isSequence()).hasSize(9);
        assertThat(ScheduleCell.all()).filteredOn(c -> c.fault().isSequence()).containsExactly(HOLD_THEN_CRASH);
        assertThat(ScheduleCell.all()).as("in the matrix's order").isEqualTo(ScheduleCell.every().stream().filter(ScheduleCell.all()::contains).toList());
        assertThat(ScheduleCell.all().get(3)).isEqualTo(HOLD_THEN_CRASH);
    }

    @Test
    void aSequenceIsNamedWithinTheNamespaceAlphabetAndReadsBackFromItsName() {
        assertThat(List.of(Fault.values())).filteredOn(Fault::isSequence).extracting(Fault::id).containsExactly("hold-then-crash", "hold-then-late-release");
        assertThat(HOLD_THEN_CRASH).isEqualTo(new ScheduleCell(CommitPoint.BEFORE_DB_COMMIT, Fault.HOLD_THEN_CRASH));
        assertThat(HOLD_THEN_CRASH.id()).isEqualTo("before-db-commit.hold-then-crash");
        for (ScheduleCell c : ScheduleCell.every()) {
            assertThat(ScheduleCell.parse(c.toString())).isEqualTo(c);
            assertThat(c.id()).matches("[A-Za-z0-9._-]+");
            assertThat(LabNamespace.of("rl-0a1b2c3d.schedules." + c.id()).group()).contains(c.id());
        }
    }

    @Test
    void anUnknownFaultIsRefusedListingEveryFaultAndSequence() {
        assertThatThrownBy(() -> ScheduleCell.parse("before-db-commit:hold-then-freeze")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown fault 'hold-then-freeze' in 'before-db-commit:hold-then-freeze': use hold, freeze, crash, hold-then-crash, "
                        + "hold-then-late-release");
    }

    @Test
    void aSequenceOutsideTheDefaultMatrixIsNamedOnDemandAndSaysSo() {
        ScheduleCell late = ScheduleCell.parse("before-offset-commit:hold-then-late-release");
        assertThat(ScheduleCell.all()).doesNotContain(late);
        assertThat(late.shows()).contains("only when named");
        assertThat(late.meaning()).contains("then released").contains("stale commit is refused");
    }

    @Test
    void aSequencesSecondStepIsNotMadeWhenAIsNoLongerHeldAfterTheContentionWindowAndSaysWhy() {
        Duration window = Duration.ofSeconds(3);
        assertThat(AfterHandoff.notHeld(HOLD_THEN_CRASH, window, 42, true, OptionalInt.empty(), BarrierState.HELD)).isEmpty();
        assertThat(AfterHandoff.notHeld(HOLD_THEN_CRASH, window, 42, false, OptionalInt.of(137), BarrierState.HELD)).contains("the sequence "
                + "hold-then-crash could not make its second step: A (pid 42) was no longer held at before-db-commit at the end of the contention "
                + "window (PT3S): its process ended while held, with code 137");
        assertThat(AfterHandoff.notHeld(HOLD_THEN_CRASH, window, 42, false, OptionalInt.empty(), BarrierState.HELD)).hasValueSatisfying(why ->
                assertThat(why).endsWith("its process ended while held"));
        assertThat(AfterHandoff.notHeld(HOLD_THEN_CRASH, window, 42, true, OptionalInt.empty(), BarrierState.RELEASED)).hasValueSatisfying(why ->
                assertThat(why).endsWith("its barrier is RELEASED (a barrier lets A go after its hold timeout: the handoff and drain timeouts and "
                        + "the window together)"));
    }

    @Test
    void theDocsCellTableIsTheCellsOwnRows() throws Exception {
        List<String> docs = Files.readAllLines(Path.of("..", "..", "docs", "how-a-run-works.md")).stream().map(String::strip)
                .filter(l -> l.startsWith("| before-") || l.startsWith("| after-")).toList();
        assertThat(docs).containsExactlyElementsOf(ScheduleCell.table());
    }
}
