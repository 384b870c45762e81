package io.replaylab.harness.experiment;


import io.replaylab.harness.lab.LabContext;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.TargetSnapshot;

/**
 * Experiment 3 (SPEC R16): on the same DB, generation 2 (new inbox namespace, new group) consumes
 * the topic from the beginning; although generation 1's inbox already holds every id, it must
 * rebuild every effect, and generation 1's rows stay untouched.
 */
final class RebuildExperiment {
    static final String NAME = "rebuild";

    private RebuildExperiment() {
    }

    static final String[] REQUIREMENTS = {"R16", "R12", "R14", "R15"};

    static Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception {
        Experiments.onTheRunsBroker(ctx, e, ns);
        String topic = ns.topic();
        Source harness = Source.here("harness");
        String g1 = ns.inbox(1);
        String g2 = ns.inbox(2);

        String query = ctx.settings().target().query().orElse(null);
        if (query != null && !query.contains("{namespace}")) {
            return e.finish(Outcome.notRun("the target query has no {namespace}: generation 1 and generation 2 would read the same rows, so "
                    + "what generation 2 rebuilt cannot be told from what generation 1 left (give the query a {namespace} its consumer writes)"));
        }
        ctx.step("generation 1 (" + g1 + ")");
        long sourceSet = Experiments.produce(ctx, e, ns).distinctIds(); // one effect per message: a payment sent twice is one
        OffsetSnapshot d1 = ctx.subjects().runWhile(e, ctx.subjects().consumer("rebuild-g1", topic, ns.group("g1"), g1),
                one -> ctx.kafka().awaitApplied(ns.group("g1"), topic, g1, "generation 1", one));
        if (d1 == null) {
            return e.finish(Outcome.notRun("generation 1 did not consume the topic: " + ctx.kafka().notDone(ns.group("g1"))));
        }
        TargetSnapshot g1Before = ctx.target().snapshot(g1, "rebuild-g1-before");
        e.artifact("snapshots/rebuild-g1-before.tsv", "generation 1 before the rebuild");
        // The hazard: an inbox that already holds every id. With a global marker it would suppress the rebuild.
        Event marker = e.record(harness, new Payload.Note("generation 1's inbox holds " + g1Before.rows() + " effects of the topic before g2 starts"));
        if (g1Before.rows() != sourceSet) {
            // generation 1 is the consumer's own first pass, before any fault: an effect applied twice, an aborted record applied or
            // one skipped is what the consumer did, and the oracle names it
            Comparison first = ctx.target().judge(e, topic, g1, ns.group("g1"));
            String failed = Outcome.names(e.checks(), Status.FAIL);
            return e.finish(Verdicts.naming(Outcome.checkFailed("generation 1 holds " + g1Before.rows() + " effects for the source set's "
                    + sourceSet + " ids before the rebuild" + (failed.isEmpty() ? "" : ": check failed: " + failed)), first));
        }

        ctx.step("generation 2 (" + g2 + ") on the same DB, new group, from the beginning");
        OffsetSnapshot d2 = ctx.subjects().runWhile(e, ctx.subjects().consumer("rebuild-g2", topic, ns.group("g2"), g2),
                two -> ctx.kafka().awaitApplied(ns.group("g2"), topic, g2, "generation 2", two));
        if (d2 == null) {
            return e.finish(Outcome.notRun("generation 2 did not consume the topic: " + ctx.kafka().notDone(ns.group("g2"))));
        }
        Comparison c = ctx.target().judge(e, topic, g2, ns.group("g2"));
        e.check(Verdicts.rebuilt(sourceSet, g2, c.targetEffects(), c.missing().count()));
        TargetSnapshot g1After = ctx.target().snapshot(g1, "rebuild-g1-after");
        Check untouched = g1Before.equalityCheck(g1After);
        e.check(new Check("generation 1 untouched", "R16", untouched.expected(), untouched.actual(), untouched.status()));
        return e.finish(Verdicts.naming(Outcome.judge(e.confirmFault("an old inbox already held every id", marker), e.checks()), c));
    }
}
