package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import io.replaylab.harness.lab.Experiment;
import org.junit.jupiter.api.Test;

/** Every experiment a user can name is in one catalogue, once, and each entry makes what its name says. */
class ExperimentCatalogueTest {
    @Test
    void noNameIsInTheCatalogueTwiceAndEachSingleEntryMakesTheExperimentOfItsName() {
        List<String> names = Experiments.catalogue().stream().map(Experiments.Named::name).toList();
        assertThat(names).doesNotHaveDuplicates().startsWith("default", "thorough", "all");
        Experiments.catalogue().stream().filter(n -> n.experiments().size() == 1 && !n.name().equals("default"))
                .forEach(n -> assertThat(n.experiments()).extracting(Experiment::name).as(n.name()).containsExactly(n.name()));
        assertThat(Experiments.named("default").experiments()).extracting(Experiment::name).containsExactly("replay", "rebalance", "rebuild");
        assertThat(Experiments.named("thorough").experiments()).extracting(Experiment::name)
                .containsExactly("replay", "rebalance", "rebuild", "schedules", "wire-faults", "commit-ahead", "duplicate-publish", "db-faults");
        assertThat(Experiments.named("thorough").experiments()).filteredOn(Experiment::onlyOnPostgres).extracting(Experiment::name)
                .as("left out of a run on SQLite").containsExactly("db-faults");
        assertThat(Experiments.catalogue().stream().filter(Experiments.Named::battery).map(Experiments.Named::name)).containsExactly("thorough", "all");
        assertThat(Experiments.catalogue().stream().filter(Experiments.Named::takesCells).map(Experiments.Named::name))
                .containsExactly("schedules", "wire-faults", "db-faults");
        // every experiment the sets make is named in the catalogue on its own too
        Experiments.catalogue().forEach(n -> n.experiments().forEach(x -> assertThat(names).as("made by " + n.name()).contains(x.name())));
    }

    @Test
    void aNameIsFoundInAnyCaseAndAnUnknownOneOrAMisplacedCellIsRefusedNamingWhatIsValid() {
        assertThat(Experiments.named(" Wire-Faults ").name()).isEqualTo("wire-faults");
        assertThatThrownBy(() -> Experiments.named("wire_fault")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown experiment 'wire_fault': use one of default, thorough, all, replay, rebalance");
        assertThatThrownBy(() -> Experiments.named("rebalance").experiments(List.of("before-offset-commit:crash")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("cells are for schedules or wire-faults or db-faults, not for rebalance");
        assertThatThrownBy(() -> Experiments.named("db-faults").experiments(List.of("commit:explode"))).hasMessageContaining("unknown database fault effect 'explode'");
        assertThatThrownBy(() -> Experiments.named("schedules").experiments(List.of("after-commit:hold")))
                .hasMessageContaining("unknown point 'after-commit'");
        assertThat(Experiments.named("schedules").experiments(List.of("after-offset-commit:crash"))).extracting(Experiment::name)
                .containsExactly("schedules");
    }
}
