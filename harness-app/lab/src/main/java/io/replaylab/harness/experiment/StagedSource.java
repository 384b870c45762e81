package io.replaylab.harness.experiment;

import java.util.List;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.kafka.LabNamespace;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The source set produced beside an experiment's topic (the lab's payments or the user's producer, as
 * usual) and copied into it unchanged in two steps: a first few records, so that A starts, commits and
 * can be armed at its point; then the rest once it is. A consumer that commits on a timer, or a batch's
 * end, then still has records in flight at the point, where a topic filled at once is drained before
 * anything is armed.
 */
final class StagedSource {
    private final LabContext ctx;
    private final String topic;
    private final String namespace;
    private final List<ConsumerRecord<byte[], byte[]>> rest;
    private int published;

    private StagedSource(LabContext ctx, LabNamespace ns, List<ConsumerRecord<byte[], byte[]>> rest) {
        this.ctx = ctx;
        this.topic = ns.topic();
        this.namespace = ns.prefix();
        this.rest = rest;
    }

    /** Fills {@code ns.topic("staging")} and keeps all of it back: {@link #publishHalf()}, then {@link #publishRest()}, when the caller says. */
    static StagedSource held(LabContext ctx, ExperimentRecorder e, LabNamespace ns, String when) throws Exception {
        String staging = ns.topic("staging");
        ctx.kafka().fillSource(e, staging, ns.prefix());
        List<ConsumerRecord<byte[], byte[]>> all = ctx.kafka().readRaw(staging);
        ctx.kafka().publishRaw(ns.topic(), List.of()); // the topic, empty: a consumer subscribes to what exists
        e.record(Source.here("harness"), new LabEvent.SourceStaged(ns.topic(), aborted(ctx), ", " + all.size() + " record(s) in two halves: "
                + when));
        return new StagedSource(ctx, ns, List.copyOf(all));
    }

    /** The first half of what is held back, into the topic. */
    void publishHalf() throws Exception {
        int half = Math.max(1, rest.size() / 2);
        ctx.kafka().copySource(topic, rest.subList(published, half), namespace);
        published = half;
    }

    /** Fills {@code ns.topic("staging")}, copies its first few records (one tenth, one to five) to {@code ns.topic()}, and says so. */
    static StagedSource produce(LabContext ctx, ExperimentRecorder e, LabNamespace ns, String restWhen) throws Exception {
        String staging = ns.topic("staging");
        ctx.kafka().fillSource(e, staging, ns.prefix());
        List<ConsumerRecord<byte[], byte[]>> all = ctx.kafka().readRaw(staging);
        int first = Math.max(1, Math.min(5, all.size() / 10));
        ctx.kafka().copySource(ns.topic(), all.subList(0, first), ns.prefix());
        e.record(Source.here("harness"), new LabEvent.SourceStaged(ns.topic(), aborted(ctx), " in two steps: " + first + " record(s) now, the other "
                + (all.size() - first) + " " + restWhen));
        return new StagedSource(ctx, ns, List.copyOf(all.subList(first, all.size())));
    }

    /** The rest of the source set, into the topic. */
    void publishRest() throws Exception {
        ctx.kafka().copySource(topic, rest.subList(published, rest.size()), namespace);
        published = rest.size();
    }

    /** Whether the records are copied with aborted transactions between them, as the run's source has them. */
    private static boolean aborted(LabContext ctx) {
        return ctx.settings().source().abortedTransactions();
    }
}
