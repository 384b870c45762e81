package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.replaylab.barrier.wire.FetchWatch;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.Timeouts;
import io.replaylab.harness.lab.LabKafka;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.ResetPlan;
import io.replaylab.kafka.ResetScope;
import io.replaylab.kafka.ResetTargets;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.TopicOracle;
import io.replaylab.oracle.TargetSnapshot;

/**
 * Experiment 1 (SPEC R1–R6, R11–R15): consume to the end, snapshot, reset the inactive group to
 * earliest through the guards, consume again into the SAME target, and show redelivery without a
 * second effect.
 */
final class ReplayExperiment {
    static final String NAME = "replay";

    private ReplayExperiment() {
    }

    static final String[] REQUIREMENTS = {"R1", "R2", "R3", "R4", "R5", "R6", "R11", "R12", "R13", "R14", "R15"};

    static Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception {
        Experiments.onTheRunsBroker(ctx, e, ns);
        String topic = ns.topic();
        String group = ns.group();
        String inbox = ns.inbox(1);
        Source harness = Source.here("harness");

        ctx.step("producing " + ctx.settings().records() + " records to " + topic);
        TopicOracle.SourceSummary produced = Experiments.produce(ctx, e, ns);

        ctx.step("consumer A drains the topic into the target (" + inbox + ")");
        LabContext.Instance a = ctx.subjects().start(e, ctx.subjects().consumer("replay-A", topic, group, inbox));
        OffsetSnapshot drained;
        try {
            drained = ctx.kafka().awaitApplied(group, topic, inbox, "first pass", a);
        } finally {
            ctx.subjects().stop(e, a);
        }
        if (drained == null) {
            return e.finish(Outcome.notRun("the subject did not consume the topic to the end: " + ctx.kafka().notDone(group)
                    + " (see logs/replay-A.err)"));
        }
        ctx.subjects().recordAssignmentLog(e, a);
        if (drained.partitions().stream().noneMatch(p -> p.topic().equals(topic) && p.hasCommitted())) {
            // every effect applied and not one offset committed: A keeps its positions itself (in its own database, as Kafka's
            // "storing offsets outside Kafka" does, or under another group); a reset of this group's offsets cannot reach them
            return e.finish(Outcome.notRun("replay-A applied every record's effect but committed no offset for group " + group + ": its positions "
                    + "are not the group's offsets (it keeps them in its own database, under another group, or nowhere), so a reset of the "
                    + "group's offsets, the lab's replay, does not drive it; replay it by resetting the positions where it keeps them"));
        }

        // a stopped consumer that did not leave is dropped within its session timeout: its patience (or the wait asked for)
        Duration leave = ctx.settings().timeouts().handoff().orElse(ctx.kafka().patience(group).judgedOr(Timeouts.DEFAULT_HANDOFF));
        OffsetSnapshot before = ctx.kafka().awaitInactive(group, leave);
        e.record(harness, before.toPayload("before reset"));
        e.artifact(ctx.save("replay-offsets-before", before), "offsets before the reset (describe)");
        TargetSnapshot targetBefore = ctx.target().snapshot(inbox, "replay-target-before");
        e.artifact("snapshots/replay-target-before.tsv", "target (identity, amount) before the replay; sha256 " + targetBefore.digest());
        if (!before.state().isInactive()) {
            return e.finish(Outcome.notRun("group " + group + " did not become inactive within " + leave
                    + " after its consumer stopped (" + before.state().display() + ")"));
        }

        ctx.step("dry run of the reset to earliest");
        ResetPlan plan = ctx.kafka().ops().planReset(group, ResetScope.allTopics(), ResetTargets.toEarliest());
        e.record(harness, plan.toPayload(true, null));
        ctx.step("executing the reset (group " + before.state().display() + ", plan saved first)");
        GuardedReset.Done reset = GuardedReset.execute(ctx, e, harness, plan, Check.of("reset executed only for an inactive synthetic group", "R3",
                "state Empty/Dead, group within " + ctx.kafka().namespace().prefix(), before.state().display() + ", " + group,
                before.state().isInactive() && ctx.kafka().namespace().owns(group)), "offsets");
        if (reset.refused() != null) {
            return e.finish(reset.refused());
        }

        ctx.step("consumer A2 replays into the same target");
        // the wire's word on redelivery: from where A2 asks to read each partition (a consumer that skips to the end never asks below it)
        FetchWatch fetches = null;
        LabContext.Instance a2 = null;
        OffsetSnapshot after;
        try {
            fetches = ctx.kafka().witness().map(w -> w.watchFetches(topic)).orElse(null);
            OffsetSnapshot atReset = ctx.kafka().ops().describe(group);
            a2 = ctx.subjects().start(e, ctx.subjects().consumer("replay-A2", topic, group, inbox));
            after = ctx.kafka().awaitDrained(group, topic, "replay", fetches, atReset, a2);
        } finally {
            if (a2 != null) {
                ctx.subjects().stop(e, a2);
            }
            if (fetches != null) {
                fetches.close();
            }
        }
        ctx.subjects().recordAssignmentLog(e, a2);
        if (after == null) {
            return e.finish(Outcome.notRun("the subject did not consume the replay to the end: " + ctx.kafka().notDone(group)));
        }
        e.record(harness, after.toPayload("after replay"));
        e.artifact(ctx.save("replay-offsets-after", after), "offsets after the replay");

        // The fault: every record was delivered again. Evidence: offsets went back to the start and the group
        // committed them again; and, when the subject keeps a processing log, that it handled each record again
        // (a subject that jumps to the end commits the offsets without reading a single record).
        Optional<Map<String, Long>> log = ctx.subjects().processingCounts("replay-A2");
        long recommitted = reset.result().partitions().stream().mapToLong(p -> LabKafka.committed(after, p.topic(), p.partition()) - p.actual()).sum();
        // without a processing log: the records the broker's Fetch answers delivered to A2 again, from each partition's reset offset to
        // where it committed (on the wire), or, with no witness, the offsets committed again (a weaker rule: a consumer that jumps to
        // the end would pass it)
        Map<Integer, Long> lowest = fetches == null ? Map.of() : fetches.lowestOffsets();
        if (log.isEmpty() && fetches != null && lowest.isEmpty() && recommitted > 0) {
            // offsets came back, yet not one Fetch of the topic crossed the proxy: A2 reads from somewhere the lab cannot see
            return e.finish(Outcome.notRun("replay-A2 committed " + recommitted + " offsets again but never fetched " + topic + " through the wire "
                    + "proxy it was given as {bootstrap}: the redelivery cannot be confirmed (does the consumer take its broker from {bootstrap}?)"));
        }
        // an answer the witness could not read says nothing of what was delivered: then the offsets alone, and the check says so
        FetchWatch wire = fetches != null && fetches.unreadable() == null ? fetches : null;
        long refetched = reset.result().partitions().stream()
                .filter(p -> wire != null && wire.deliveredAll(p.partition(), p.actual(), LabKafka.committed(after, p.topic(), p.partition())))
                .mapToLong(p -> LabKafka.committed(after, p.topic(), p.partition()) - p.actual()).sum();
        long handled = log.map(m -> m.getOrDefault("applied", 0L) + m.getOrDefault("duplicate", 0L) + m.getOrDefault("quarantined", 0L))
                .orElse(wire != null ? refetched : recommitted);
        Map<String, Long> counts = log.orElse(Map.of());
        Event delivered = e.record(Source.of("replay-A2", a2.pid(), log.isPresent() ? "processing log" : "committed offsets"),
                new Payload.Delivered("replay-A2", counts.getOrDefault("applied", 0L), log.isPresent() ? counts.getOrDefault("duplicate", 0L) : recommitted,
                        counts.getOrDefault("quarantined", 0L)));
        // every offset up to where the replay's drain ended (the records' end): the first pass may have ended short of it (every
        // effect applied, a last commit still pending), which must not lower the bar
        long total = reset.result().partitions().stream().mapToLong(p -> LabKafka.committed(after, p.topic(), p.partition())).sum();
        String seen = recommitted + " offsets committed again" + (log.isPresent() ? ", " + handled + " records handled in the subject's log " + counts
                : wire != null ? ", " + handled + " records delivered again from the reset offsets on the wire (lowest fetch offsets " + lowest + ")"
                : fetches != null ? " (the wire witness could not read a Fetch answer, " + fetches.unreadable() + ": offsets only)"
                : " (no processing log and no wire witness: offsets only; a consumer that jumps to the log end would pass this check)");
        // a processing log counts records; offsets also count what transactions leave between them (markers, aborted records)
        // (nothing committed again at all, e.g. a consumer that positions itself past the reset: every record is one it did not read)
        long records = total == 0 ? produced.records() : log.isPresent() ? Math.min(total, produced.records()) : total;
        // read from offsets alone the check claims only that: it must not rule out a consumer that jumps to the end (Defect)
        String check = log.isEmpty() && wire == null ? Verdicts.RECOMMITTED : Verdicts.REDELIVERED;
        Optional<Outcome> none = Verdicts.redelivery(e, check, total, records, recommitted, handled, seen);
        if (none.isPresent()) {
            return none.get();
        }

        ctx.step("checks (snapshot equality, oracle, frontier)");
        TargetSnapshot targetAfter = ctx.target().snapshot(inbox, "replay-target-after");
        e.artifact("snapshots/replay-target-after.tsv", "target after the replay; sha256 " + targetAfter.digest());
        e.check(targetBefore.equalityCheck(targetAfter));
        Comparison c = ctx.target().judge(e, topic, inbox, group);
        String confirmed = check.equals(Verdicts.RECOMMITTED) ? "every offset committed again after the reset (offsets only: no processing log, no "
                + "wire witness)" : "every record delivered again after the reset";
        return e.finish(Verdicts.naming(Outcome.judge(e.confirmFault(confirmed, delivered), e.checks()), c));
    }

}
