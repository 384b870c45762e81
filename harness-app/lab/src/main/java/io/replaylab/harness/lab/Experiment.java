package io.replaylab.harness.lab;

import java.util.List;
import java.util.Objects;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.kafka.LabNamespace;

/**
 * One experiment of a run, as a value: its name, the requirements it proves, and the body that
 * runs it on a {@link LabContext} of its own in a child namespace of its own. Experiments of a run
 * go side by side ({@link LabSettings.Builder#parallel}) unless one {@linkplain #runsAlone() runs
 * alone}: it waits for those before it, and those after it wait for it. The reference
 * experiments are {@code io.replaylab.harness.experiment.Experiments#reference()}; a lab adds its own
 * with {@link LabSettings.Builder#experiments}.
 *
 * <pre>{@code
 * Experiment drain = new Experiment("drain", List.of("R10"), (ctx, ns, e) -> {
 *     ...  // start subjects with ctx.start, wait with ctx.awaitDrained, judge with ctx.compare
 *     return e.finish(Outcome.judge(..., e.checks()));
 * });
 * }</pre>
 */
public record Experiment(String name, List<String> requirements, Body body, boolean runsAlone, boolean onlyOnPostgres) {
    /** What the experiment does; its outcome is what {@code e.finish} returned. An exception makes it NOT_RUN with the reason. */
    @FunctionalInterface
    public interface Body {
        Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception;
    }

    /** An experiment that may run beside others. */
    public Experiment(String name, List<String> requirements, Body body) {
        this(name, requirements, body, false, false);
    }

    /** The same experiment, run with nothing beside it (e.g. one that starts a cluster of its own and needs the CPU). */
    public Experiment alone() {
        return new Experiment(name, requirements, body, true, onlyOnPostgres);
    }

    /**
     * The same experiment as a battery's member that only a PostgreSQL target runs (a run on SQLite leaves it out; named on its own, it
     * runs and says why it cannot).
     */
    public Experiment whenPostgres() {
        return new Experiment(name, requirements, body, runsAlone, true);
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
