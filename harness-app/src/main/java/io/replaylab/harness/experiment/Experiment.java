package io.replaylab.harness.experiment;

import java.util.List;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.kafka.LabNamespace;

/**
 * One experiment of a run, as a value: its name, the requirements it proves, and the body that
 * runs it on the run's shared context in a child namespace of its own. The run takes them in the
 * order of {@link #ALL}, not by a switch on names.
 */
record Experiment(String name, List<String> requirements, Body body) {
    interface Body {
        Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception;
    }

    static final List<Experiment> ALL = List.of(
            new Experiment(ReplayExperiment.NAME, List.of(ReplayExperiment.REQUIREMENTS), ReplayExperiment::run),
            new Experiment(RebalanceExperiment.NAME, List.of(RebalanceExperiment.REQUIREMENTS), RebalanceExperiment::run),
            new Experiment(RebuildExperiment.NAME, List.of(RebuildExperiment.REQUIREMENTS), RebuildExperiment::run));

    static List<String> names() {
        return ALL.stream().map(Experiment::name).toList();
    }
}
