package io.replaylab.harness.experiment;

import java.util.Map;
import java.util.Optional;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.kafka.GroupType;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.ResetPlan;
import io.replaylab.kafka.ResetScope;
import io.replaylab.kafka.ResetTargets;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.TargetSnapshot;

/**
 * Replay on a share group (R1–R6 for queues, R11–R15): A drains the source through the share group,
 * leaves; the group's start offsets are reset to the earliest record through the same guards as a
 * consumer group's (dry run, no member, saved plan); A2 gets every record again and the target must
 * not change: one effect per message. What a reset cannot bring back (acknowledgement state) is said.
 */
final class ShareReplayExperiment {
    static final String NAME = "share-replay";

    static final String[] REQUIREMENTS = {"R1", "R2", "R3", "R4", "R5", "R6", "R11", "R12", "R13", "R14", "R15"};

    private static final Source HARNESS = Source.here("harness");

    private ShareReplayExperiment() {
    }

    static Outcome run(LabContext ctx, ExperimentRecorder e, Shares.Share s) throws Exception {
        int partitions = ctx.settings().broker().partitions();
        ctx.kafka().ops().createTopic(ctx.kafka().namespace(), s.topic(), partitions);
        Shares.configureGroup(ctx, e, s.group(), Shares.BROKER_DEFAULT_MIN_LOCK);
        long total = Experiments.produce(ctx, e, s.ns()).records();

        ctx.step("share consumer A drains the topic into the target (" + s.inbox() + ")");
        OffsetSnapshot drained = ctx.subjects().runWhile(e, ctx.subjects().shareConsumer(NAME + "-A", s.topic(), s.group(), s.inbox()),
                a -> ctx.kafka().awaitShareDrained(s.group(), s.topic(), partitions, ctx.settings().timeouts().drain(), "first pass", a));
        if (drained == null) {
            return e.finish(Outcome.notRun("the share consumer did not acknowledge every record of " + s.topic() + " within "
                    + ctx.settings().timeouts().drain() + " (see logs/" + NAME + "-A.err)"));
        }
        e.record(HARNESS, drained.toPayload("drained"));

        OffsetSnapshot before = Shares.awaitNoMember(ctx, s.group(), ctx.settings().timeouts().handoffOrDefault());
        e.record(HARNESS, before.toPayload("before reset"));
        e.artifact(ctx.save(NAME + "-offsets-before", before), "the share group's start offsets before the reset");
        TargetSnapshot targetBefore = ctx.target().snapshot(s.inbox(), NAME + "-target-before");
        e.artifact("snapshots/" + NAME + "-target-before.tsv", "target (identity, amount) before the replay; sha256 " + targetBefore.digest());
        if (!before.members().isEmpty()) {
            return e.finish(Outcome.notRun("share group " + s.group() + " still had " + before.members().size() + " member(s) "
                    + ctx.settings().timeouts().handoffOrDefault() + " after its consumer stopped"));
        }

        ctx.step("dry run of the share group's reset to earliest");
        ResetPlan plan = ctx.kafka().ops().planReset(s.group(), GroupType.SHARE, ResetScope.allTopics(), ResetTargets.toEarliest());
        e.record(HARNESS, plan.toPayload(true, null));
        plan.caveat().ifPresent(c -> e.limitation("The reset: " + c + "."));
        GuardedReset.Done reset = GuardedReset.execute(ctx, e, HARNESS, plan, Check.of("reset executed only for a share group without members, "
                + "in the lab's namespace", "R3", "no member, group within " + ctx.kafka().namespace().prefix(), before.members().size()
                + " member(s), " + s.group(), before.members().isEmpty() && ctx.kafka().namespace().owns(s.group())), "start offsets");
        if (reset.refused() != null) {
            return e.finish(reset.refused());
        }

        ctx.step("share consumer A2 gets every record again, into the same target");
        LabContext.Instance a2 = ctx.subjects().start(e, ctx.subjects().shareConsumer(NAME + "-A2", s.topic(), s.group(), s.inbox()));
        OffsetSnapshot after;
        try {
            after = ctx.kafka().awaitShareDrained(s.group(), s.topic(), partitions, ctx.settings().timeouts().drain(), "replay", a2);
        } finally {
            ctx.subjects().stop(e, a2);
        }
        if (after == null) {
            return e.finish(Outcome.notRun("the share consumer did not acknowledge the replay to the end within " + ctx.settings().timeouts().drain()));
        }
        e.record(HARNESS, after.toPayload("after replay"));

        // The fault: every record delivered again, as the subject's processing log says (a share s.group()'s
        // acknowledgements leave no offsets behind to count)
        Optional<Map<String, Long>> log = ctx.subjects().processingCounts(NAME + "-A2");
        if (log.isEmpty()) {
            return e.finish(Outcome.notRun("the share consumer writes no processing log ({logdir}/{instance}.processing.jsonl): the lab cannot "
                    + "confirm that it got the records again"));
        }
        Map<String, Long> counts = log.get();
        long handled = counts.getOrDefault("applied", 0L) + counts.getOrDefault("duplicate", 0L) + counts.getOrDefault("quarantined", 0L);
        Event delivered = e.record(Source.of(NAME + "-A2", a2.pid(), "processing log"), new Payload.Delivered(NAME + "-A2",
                counts.getOrDefault("applied", 0L), counts.getOrDefault("duplicate", 0L), counts.getOrDefault("quarantined", 0L)));
        Optional<Outcome> none = Verdicts.redelivery(e, Verdicts.REDELIVERED, total, total, total, handled, handled + " records handled again in the subject's log " + counts
                + ", every record acknowledged again (lag 0)");
        if (none.isPresent()) {
            return none.get();
        }

        ctx.step("checks (snapshot equality, oracle)");
        TargetSnapshot targetAfter = ctx.target().snapshot(s.inbox(), NAME + "-target-after");
        e.artifact("snapshots/" + NAME + "-target-after.tsv", "target after the replay; sha256 " + targetAfter.digest());
        e.check(targetBefore.equalityCheck(targetAfter));
        Comparison c = Shares.compare(ctx, e, s, after);
        e.record(HARNESS, c.toPayload());
        c.toChecks().forEach(e::check);
        return e.finish(Verdicts.naming(Outcome.judge(e.confirmFault("every record delivered again after the share group's reset", delivered),
                e.checks()), c));
    }
}
