package io.replaylab.harness.experiment;

import java.util.List;
import java.util.Optional;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.Versions;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.subject.SubjectCommand;
import io.replaylab.kafka.LabNamespace;

/** The reference experiments, in the order a run takes them, and the steps they share. */
public final class Experiments {
    /** replay, rebalance, rebuild: what {@code replay-lab run --experiment all} runs. */
    public static final List<Experiment> REFERENCE = List.of(
            new Experiment(ReplayExperiment.NAME, List.of(ReplayExperiment.REQUIREMENTS), ReplayExperiment::run),
            new Experiment(RebalanceExperiment.NAME, List.of(RebalanceExperiment.REQUIREMENTS), RebalanceExperiment::run),
            new Experiment(RebuildExperiment.NAME, List.of(RebuildExperiment.REQUIREMENTS), RebuildExperiment::run));

    /** Run only when named ({@code --experiment eos}): they start programs of their own and take longer. */
    public static final List<Experiment> OPT_IN = List.of(
            new Experiment(EosExperiment.NAME, List.of(EosExperiment.REQUIREMENTS), EosExperiment::run));

    private Experiments() {
    }

    /** One of replay-lab's experiments by name. */
    public static Optional<Experiment> named(String name) {
        return java.util.stream.Stream.concat(REFERENCE.stream(), OPT_IN.stream()).filter(x -> x.name().equals(name)).findFirst();
    }

    static void environment(LabContext ctx, ExperimentRecorder e, LabNamespace ns) {
        e.environment("replay-lab", Versions.replayLab())
                .environment("java", Versions.java())
                .environment("kafka-clients", Versions.kafkaClients())
                .environment("broker", ctx.brokerVersion())
                .environment("sqlite", Versions.sqlite())
                .environment("bootstrap", ctx.bootstrap())
                .environment("namespace", ns.prefix())
                .environment("topic", ns.topic())
                .environment("group", ns.group())
                .environment("target db", ctx.targetDescription())
                .environment("group protocol", ctx.settings().groupProtocol().name)
                .environment("subject", ctx.settings().subject() == null ? "reference (replay-lab subject consume)" : ctx.settings().subject())
                .environment("pid.harness", Long.toString(ProcessHandle.current().pid()));
        ctx.proxy().ifPresent(proxy -> e.environment("subject bootstrap", proxy.bootstrapServers() + " (the wire proxy, forwarding to "
                + ctx.bootstrap() + ")"));
    }

    /** Produces the run's synthetic records (the source side is always ours: deterministic, with a manifest). */
    public static void produce(LabContext ctx, ExperimentRecorder e, LabNamespace ns) throws Exception {
        String manifest = "snapshots/" + ns.prefix() + "-manifest.json";
        String summary = SubjectCommand.produce(ctx.bootstrap(), ns.topic(), ctx.settings().partitions(), ns.prefix(), ctx.settings().records(), 7, 10,
                ctx.runDir().resolve(manifest));
        e.record(Source.here("harness"), new Payload.Note(summary));
        e.artifact(manifest, "what was produced (count, sums, end offsets)");
    }
}
