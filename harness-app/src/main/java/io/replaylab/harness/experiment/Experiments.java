package io.replaylab.harness.experiment;

import java.util.List;
import java.util.Optional;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.jdi.DebuggerBarrier;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.Versions;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.subject.SubjectCommand;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;

/** The reference experiments, in the order a run takes them, and the steps they share. */
public final class Experiments {
    /** replay, rebalance, rebuild: what {@code replay-lab run --experiment all} runs. */
    public static final List<Experiment> REFERENCE = List.of(
            new Experiment(ReplayExperiment.NAME, List.of(ReplayExperiment.REQUIREMENTS), ReplayExperiment::run),
            new Experiment(RebalanceExperiment.NAME, List.of(RebalanceExperiment.REQUIREMENTS), RebalanceExperiment::run),
            new Experiment(RebuildExperiment.NAME, List.of(RebuildExperiment.REQUIREMENTS), RebuildExperiment::run));

    /** Run only when named ({@code --experiment eos}, {@code schedules}, {@code durability}): they start programs (or a cluster) of their own and take longer. */
    public static final List<Experiment> OPT_IN = List.of(
            new Experiment(EosExperiment.NAME, List.of(EosExperiment.REQUIREMENTS), EosExperiment::run),
            new Experiment(SchedulesExperiment.NAME, List.of(SchedulesExperiment.REQUIREMENTS), SchedulesExperiment::run),
            new Experiment(DurabilityExperiment.NAME, List.of(DurabilityExperiment.REQUIREMENTS), DurabilityExperiment::run));

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

    /**
     * The end of a fault experiment: waits for the group to drain with {@code needed} running, stops
     * every instance, replays their assignment logs into the timeline; the drained offsets, or null
     * after recording the NOT_RUN check (the oracle would only count the records nobody consumed yet
     * as missing: no verdict on a group that is not done).
     */
    static OffsetSnapshot settle(LabContext ctx, ExperimentRecorder e, String group, String topic, List<LabContext.Instance> running,
            LabContext.Instance needed) throws InterruptedException {
        OffsetSnapshot settled = ctx.awaitDrained(group, topic, ctx.settings().drainTimeout(), "recovery", needed);
        for (LabContext.Instance i : running) {
            ctx.stop(e, i);
        }
        for (LabContext.Instance i : running) {
            ctx.recordAssignmentLog(e, i);
        }
        if (settled == null) {
            e.check(Check.notRun("drained after recovery", "R10", "lag 0", "the group did not drain within " + ctx.settings().drainTimeout()));
        }
        return settled;
    }

    /** The NOT_RUN of a group that did not drain after the recovery ({@link #settle} returned null). */
    static Outcome notDrained(LabContext ctx, ExperimentRecorder e) {
        return e.finish(Outcome.notRun("the group did not drain after the recovery within " + ctx.settings().drainTimeout()));
    }

    /** Whatever an experiment ends with: a held barrier released (a program never stays frozen), its debugger gone, its instances stopped. */
    static void release(LabContext ctx, ExperimentRecorder e, Barrier barrier, DebuggerBarrier debugger, List<LabContext.Instance> running) {
        if (barrier != null && barrier.state() == BarrierState.HELD) {
            barrier.release("experiment ended");
        }
        if (debugger != null) {
            debugger.close();
        }
        for (LabContext.Instance i : running) {
            if (i.process().isAlive()) {
                ctx.stop(e, i);
            }
        }
    }
}
