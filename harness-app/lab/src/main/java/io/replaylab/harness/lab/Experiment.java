package io.replaylab.harness.lab;

import java.util.List;
import java.util.Objects;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.kafka.LabNamespace;

/**
 * One experiment of a run, as a value: its name, the requirements it proves, and the body that
 * runs it on the run's shared {@link LabContext} in a child namespace of its own. The reference
 * experiments are {@code io.replaylab.harness.experiment.Experiments#REFERENCE}; a lab adds its own
 * with {@link LabSettings.Builder#experiment(Experiment)}.
 *
 * <pre>{@code
 * Experiment drain = new Experiment("drain", List.of("R10"), (ctx, ns, e) -> {
 *     ...  // start subjects with ctx.start, wait with ctx.awaitDrained, judge with ctx.compare
 *     return e.finish(Outcome.judge(..., e.checks()));
 * });
 * }</pre>
 */
public record Experiment(String name, List<String> requirements, Body body) {
    /** What the experiment does; its outcome is what {@code e.finish} returned. An exception makes it NOT_RUN with the reason. */
    @FunctionalInterface
    public interface Body {
        Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception;
    }

    public Experiment {
        Objects.requireNonNull(name, "name");
        if (!name.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("an experiment's name is lower case letters, digits and '-' (it becomes part of topic names): " + name);
        }
        requirements = List.copyOf(requirements);
        Objects.requireNonNull(body, "body");
    }
}
