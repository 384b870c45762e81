package io.replaylab.harness.experiment;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.Versions;
import io.replaylab.harness.subject.SubjectCommand;
import io.replaylab.kafka.LabNamespace;

/** Steps every experiment shares. */
final class Experiments {
    private Experiments() {
    }

    static void environment(LabContext ctx, ExperimentRecorder e, LabNamespace ns) {
        e.environment("replay-lab", Versions.replayLab())
                .environment("java", Versions.java())
                .environment("kafka-clients", Versions.kafkaClients())
                .environment("broker", ctx.brokerVersion)
                .environment("sqlite", Versions.sqlite())
                .environment("bootstrap", ctx.bootstrap)
                .environment("namespace", ns.prefix())
                .environment("topic", ns.topic())
                .environment("group", ns.group())
                .environment("target db", ctx.db.describe())
                .environment("group protocol", ctx.settings.groupProtocol().name)
                .environment("subject", ctx.settings.subject() == null ? "reference (replay-lab subject consume)" : ctx.settings.subject())
                .environment("pid.harness", Long.toString(ProcessHandle.current().pid()));
        if (ctx.proxy != null) {
            e.environment("subject bootstrap", ctx.proxy.bootstrapServers() + " (the wire proxy, forwarding to " + ctx.bootstrap + ")");
        }
    }

    /** Produces the run's synthetic records (the source side is always ours: deterministic, with a manifest). */
    static void produce(LabContext ctx, ExperimentRecorder e, LabNamespace ns) throws Exception {
        String manifest = "snapshots/" + ns.prefix() + "-manifest.json";
        String summary = SubjectCommand.produce(ctx.bootstrap, ns.topic(), ctx.settings.partitions(), ns.prefix(), ctx.settings.records(), 7, 10,
                ctx.runDir.resolve(manifest));
        e.record(Source.here("harness"), new Payload.Note(summary));
        e.artifact(manifest, "what was produced (count, sums, end offsets)");
    }
}
