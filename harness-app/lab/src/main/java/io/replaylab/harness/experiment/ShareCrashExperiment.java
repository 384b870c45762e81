package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.wire.ShareWitness;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.barrier.BarrierPlan;
import io.replaylab.harness.barrier.Held;
import io.replaylab.harness.barrier.PointNotReached;
import io.replaylab.harness.barrier.PointUnreachable;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.oracle.Comparison;

/**
 * A crash at the DB commit in a share group (KIP-932): A is held at its DB transaction's commit and
 * killed. A consumer that acknowledges after its transaction loses nothing (the record was neither
 * applied nor acknowledged: its lock runs out and B gets it); one that acknowledges first has told the
 * broker the record is done, and it is gone: a missing effect the oracle names.
 */
final class ShareCrashExperiment {
    static final String NAME = "share-crash";

    static final String[] REQUIREMENTS = {"R7", "R11", "R12", "R13", "R14"};

    private static final Source HARNESS = Source.here("harness");

    private ShareCrashExperiment() {
    }

    static Outcome run(LabContext ctx, ExperimentRecorder e, Shares.Share s) throws Exception {
        if (!s.subject().jvm()) {
            return e.finish(Outcome.notRun("the share consumer is not a JVM: A is held by a debugger breakpoint at its DB commit ("
                    + ctx.settings().barrier().dbCommitPoint() + ")"));
        }
        e.environment("barrier", "debugger at " + ctx.settings().barrier().dbCommitPoint() + ", armed after a warm-up at "
                + ShareOwnershipExperiment.ACKNOWLEDGE + " (A's first record is behind it)");
        e.limitation("One partition: B fetches from the partition A was reading.");
        ctx.kafka().ops().createTopic(ctx.kafka().namespace(), s.topic(), 1);
        Duration lock = Shares.configureGroup(ctx, e, s.group(), Shares.LOCK);
        Experiments.produce(ctx, e, s.ns());

        BarrierOptions options = BarrierOptions.ofDefaults().holdTimeout(ctx.settings().timeouts().handoffOrDefault().plus(ctx.settings().timeouts().drain()));
        Held at;
        try {
            at = BarrierPlan.debuggerAt(ctx.settings().barrier().dbCommitPoint(), ShareOwnershipExperiment.ACKNOWLEDGE).arm(ctx, e, "before-db-commit",
                    ctx.subjects().shareConsumer(NAME + "-A", s.topic(), s.group(), s.inbox()), s.group(), HoldMode.THREAD, options);
        } catch (PointNotReached x) {
            return e.finish(Outcome.notRun(Held.neverReached(ctx, "", x.getMessage())));
        } catch (PointUnreachable x) {
            return e.finish(Outcome.notRun(x.getMessage()));
        }
        try (at) {
            LabContext.Instance a = at.instance();
            try {
                at.awaitArrival();
            } catch (BarrierTimeoutException t) {
                return e.finish(Outcome.notRun(Held.neverReached(ctx, "", "reach " + ctx.settings().barrier().dbCommitPoint()
                        + " after its first acknowledgement")));
            }
            // what A had acknowledged when it was killed, on the wire: a consumer that acknowledges first has let go of its record
            List<ShareWitness.Acknowledgement> acked = ctx.kafka().witness().map(w -> w.share().acknowledgements(s.group()).stream()
                    .filter(k -> a.name().equals(k.clientId()) && k.accepted()).toList()).orElse(List.of());
            Event crash = at.crash();
            e.record(HARNESS, new Payload.Note("A crashed at its DB commit; its accepted acknowledgements on the wire: " + (acked.isEmpty()
                    ? "none seen" : acked.stream().map(k -> k.topic() + "-" + k.partition() + "@" + k.firstOffset()
                            + (k.lastOffset() == k.firstOffset() ? "" : "-" + k.lastOffset()) + " " + k.type()).collect(Collectors.joining(", ")))));

            ctx.step("A crashed at its DB commit; B takes over (A's record comes back once its " + lock.toMillis() + " ms lock runs out)");
            LabContext.Instance b = ctx.subjects().start(e, ctx.subjects().shareConsumer(NAME + "-B", s.topic(), s.group(), s.inbox()));
            Optional<Comparison> compared = Shares.drainAndCompare(ctx, e, s, 1, List.of(b), b);
            if (compared.isEmpty()) {
                return Experiments.notDrained(ctx, e);
            }
            Comparison c = compared.get();
            return e.finish(Verdicts.naming(Outcome.judge(e.confirmFault("A crashed at its DB commit, after its first acknowledgement", crash),
                    e.checks()), c));
        }
    }
}
