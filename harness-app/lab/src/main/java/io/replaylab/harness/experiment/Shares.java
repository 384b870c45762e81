package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Source;
import io.replaylab.barrier.wire.ShareWitness;
import io.replaylab.kafka.GroupType;
import io.replaylab.kafka.PartitionRef;
import io.replaylab.oracle.ArchivedRecord;
import io.replaylab.oracle.Comparison;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.KafkaOpsException;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.evidence.process.Poll;

/** What the share-group experiments (KIP-932) have in common: their subject, their group's configs, its members leaving. */
final class Shares {
    /** An external broker's floor for a group's record lock, by default ({@code group.share.min.record.lock.duration.ms}). */
    static final Duration BROKER_DEFAULT_MIN_LOCK = Duration.ofSeconds(15);

    /**
     * The lab's record lock for a share experiment's group: short, so that it runs out while A is held, long enough for a
     * brief hold of B (the lab's broker allows 1 s and up).
     */
    static final Duration LOCK = Duration.ofSeconds(4);

    /** A broker's delivery count limit by default ({@code group.share.delivery.count.limit}). */
    static final int DEFAULT_DELIVERY_COUNT_LIMIT = 5;

    private Shares() {
    }

    /** What a share experiment runs with: its share consumer, its namespace, topic, share group and inbox namespace. */
    record Share(Subject subject, LabNamespace ns, String topic, String group, String inbox) {
    }

    /** A share experiment's body. */
    @FunctionalInterface
    interface Body {
        Outcome run(LabContext ctx, ExperimentRecorder e, Share s) throws Exception;
    }

    /**
     * The experiment's body, started the one way every share experiment starts: the run's environment, the share subject
     * and the group type in the evidence, NOT_RUN without a share subject; with the wire proxy, every acknowledgement of the
     * share group that ACCEPTs records is checked against the target as it is sent, and one ahead of the database is listed
     * in the evidence (never killed here: only share-ack-ahead proves a loss).
     */
    static Experiment.Body body(Body b) {
        return body(b, true);
    }

    /** As {@link #body(Body)}; {@code passiveCheck} false for an experiment with a live check of its own (share-ack-ahead). */
    static Experiment.Body body(Body b, boolean passiveCheck) {
        return (ctx, ns, e) -> {
            Experiments.environment(ctx, e, ns);
            Optional<Subject> share = ctx.settings().shareSubject();
            if (share.isEmpty()) {
                return e.finish(noShareSubject());
            }
            e.environment("subject", share.get().description()).environment("group type", "share (KIP-932)");
            Share s = new Share(share.get(), ns, ns.topic(), ns.group(), ns.inbox(1));
            if (passiveCheck) {
                ctx.kafka().wire().ifPresent(proxy -> ctx.closeAtEnd(proxy.checkCommits(s.group(), FrontierCheck.of(ctx, e, s.topic(), s.inbox()))));
            }
            return b.run(ctx, e, s);
        };
    }

    private static Outcome noShareSubject() {
        return Outcome.notRun("no share consumer to test: give the lab one (LabSettings.shareSubject, e.g. the reference subject's "
                + "ReferenceSubject.shareConsume())");
    }

    /**
     * The group starts at the earliest record (a share group starts at the latest, and the lab produces first) and its
     * records are locked for {@code lock}; a broker whose floor is higher gets its default floor, said in the evidence.
     */
    static Duration configureGroup(LabContext ctx, ExperimentRecorder e, String group, Duration lock) {
        try {
            ctx.kafka().ops().setGroupConfigs(group, Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms",
                    Long.toString(lock.toMillis())));
            e.environment("record lock", lock.toMillis() + " ms (the group's share.record.lock.duration.ms)");
            return lock;
        } catch (KafkaOpsException refused) {
            ctx.kafka().ops().setGroupConfigs(group, Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms",
                    Long.toString(BROKER_DEFAULT_MIN_LOCK.toMillis())));
            e.environment("record lock", BROKER_DEFAULT_MIN_LOCK.toMillis() + " ms: the broker refused " + lock.toMillis() + " ms ("
                    + refused.getMessage() + "); its group.share.min.record.lock.duration.ms is above it");
            return BROKER_DEFAULT_MIN_LOCK;
        }
    }

    /** Waits until the share group has no member; its last description either way. */
    static OffsetSnapshot awaitNoMember(LabContext ctx, String group, Duration timeout) throws InterruptedException {
        return Poll.every(Duration.ofMillis(250)).upTo(timeout).until(() -> ctx.kafka().ops().describe(group, GroupType.SHARE), s -> s.members().isEmpty());
    }

    /**
     * The end of a share experiment: the share group drains with {@code needed} running (lag 0 on each of the topic's
     * {@code partitions}), every instance in {@code running} stops, and the oracle compares the target with the source against
     * the group's start offsets (its checks recorded); empty when the group did not drain (no verdict on a group not done).
     */
    static Optional<Comparison> drainAndCompare(LabContext ctx, ExperimentRecorder e, Share s, int partitions, List<LabContext.Instance> running,
            LabContext.Instance needed) throws InterruptedException {
        OffsetSnapshot drained;
        try {
            drained = ctx.kafka().awaitShareDrained(s.group(), s.topic(), partitions, ctx.settings().timeouts().drain(), "recovery", needed);
        } finally {
            for (LabContext.Instance i : new ArrayList<>(running)) {
                ctx.subjects().stop(e, i);
            }
        }
        if (drained == null) {
            return Optional.empty();
        }
        Source harness = Source.here("harness");
        e.record(harness, drained.toPayload("drained"));
        Comparison c = compare(ctx, e, s, drained);
        e.record(harness, c.toPayload());
        c.toChecks().forEach(e::check);
        return Optional.of(c);
    }

    /**
     * The oracle's comparison of a drained share group: with a wire witness, the records the group archived are given to
     * the oracle (archived at the delivery count limit, or REJECTed), so that one without an effect is said as such, not
     * missing; without one, the plain comparison (an archived record counts as missing).
     */
    static Comparison compare(LabContext ctx, ExperimentRecorder e, Share s, OffsetSnapshot drained) {
        if (ctx.kafka().witness().isEmpty()) {
            return ctx.target().compare(s.topic(), s.inbox(), drained);
        }
        Optional<Integer> limit = deliveryCountLimit(ctx, e, s.group());
        if (limit.isEmpty()) {
            return ctx.target().compare(s.topic(), s.inbox(), drained);
        }
        return ctx.target().compare(s.topic(), s.inbox(), drained, archived(ctx.kafka().witness().get().share(), s.group(), s.topic(), limit.get()));
    }

    /**
     * The group's delivery count limit (a group config since Kafka 4.2; the broker's default, 5, where the broker has none);
     * empty, said in the evidence, when the group's configs cannot be read (an ACL, say): no record is then judged archived.
     */
    static Optional<Integer> deliveryCountLimit(LabContext ctx, ExperimentRecorder e, String group) {
        Integer limit;
        try {
            String set = ctx.kafka().ops().groupConfigs(group).get("share.delivery.count.limit");
            limit = set == null ? null : Integer.valueOf(set);
        } catch (RuntimeException unreadable) {
            e.environment("delivery count limit", "not known (the group's configs could not be read: " + unreadable.getMessage() + "): no record "
                    + "is judged archived, an archived one counts as missing");
            return Optional.empty();
        }
        e.environment("delivery count limit", limit == null ? DEFAULT_DELIVERY_COUNT_LIMIT + " (the broker's default: it has no group config for it)"
                : limit + " (the group's share.delivery.count.limit)");
        return Optional.of(limit == null ? DEFAULT_DELIVERY_COUNT_LIMIT : limit);
    }

    /**
     * The records of {@code topic} the share group archived as the wire saw them: one an acknowledgement the broker took
     * REJECTed (the consumer's word), and one delivered {@code limit} times that nobody's acknowledgement took as ACCEPT or
     * REJECT (released, or its lock run out, at the limit: the broker archived it with nobody's word for it).
     */
    static List<ArchivedRecord> archived(ShareWitness wire, String group, String topic, int limit) {
        Map<PartitionRef, Map<Long, Integer>> delivered = new HashMap<>();
        for (ShareWitness.Delivery d : wire.deliveries(group)) {
            if (d.topic().equals(topic)) {
                Map<Long, Integer> p = delivered.computeIfAbsent(PartitionRef.of(topic, d.partition()), k -> new TreeMap<>());
                for (long o = d.firstOffset(); o <= d.lastOffset(); o++) {
                    p.merge(o, d.deliveryCount(), Math::max);
                }
            }
        }
        Map<PartitionRef, Map<Long, ShareWitness.AckType>> decided = new HashMap<>();
        for (ShareWitness.Acknowledgement a : wire.acknowledgements(group)) {
            if (a.topic().equals(topic) && a.accepted() && (a.type() == ShareWitness.AckType.ACCEPT || a.type() == ShareWitness.AckType.REJECT)) {
                Map<Long, ShareWitness.AckType> p = decided.computeIfAbsent(PartitionRef.of(topic, a.partition()), k -> new HashMap<>());
                for (long o = a.firstOffset(); o <= a.lastOffset(); o++) {
                    p.putIfAbsent(o, a.type()); // the first word the broker took is the record's fate
                }
            }
        }
        List<ArchivedRecord> out = new ArrayList<>();
        delivered.forEach((partition, offsets) -> offsets.forEach((offset, count) -> {
            ShareWitness.AckType word = decided.getOrDefault(partition, Map.of()).get(offset);
            if (word == ShareWitness.AckType.REJECT) {
                out.add(ArchivedRecord.rejected(partition, offset, count));
            } else if (word == null && count >= limit) {
                out.add(ArchivedRecord.atLimit(partition, offset, count));
            }
        }));
        return out;
    }
}
