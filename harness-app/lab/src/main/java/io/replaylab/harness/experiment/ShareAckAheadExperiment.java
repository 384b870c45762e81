package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.replaylab.barrier.wire.CommitCheck;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.InstanceSpec;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabWire;
import io.replaylab.oracle.Comparison;

/**
 * Acknowledged ahead of the database, in a share group (KIP-932; R11 as it happens, R12): every acknowledgement of the
 * share group that ACCEPTs records is checked on the wire the moment it is sent, against the target
 * ({@link FrontierCheck}): each record it ACCEPTs must have its effect already. Instance A is killed (SIGKILL) at its first
 * acknowledgement ahead of the database; the acknowledgement goes on to the broker (as one already sent would), which
 * then never delivers the record again: its effect is lost. B drains the rest. Any client: the check is on the wire, so a
 * share consumer that is not a JVM is judged the same way (share-crash needs a debugger at the DB commit).
 */
final class ShareAckAheadExperiment {
    static final String NAME = "share-ack-ahead";

    static final String[] REQUIREMENTS = {"R11", "R12", "R13", "R14"};

    private static final Source HARNESS = Source.here("harness");

    private ShareAckAheadExperiment() {
    }

    static Outcome run(LabContext ctx, ExperimentRecorder e, Shares.Share s) throws Exception {
        Optional<LabWire> proxy = ctx.kafka().wire();
        if (proxy.isEmpty()) {
            return e.finish(Outcome.notRun("the live check reads each acknowledgement on the wire, and this run has no wire proxy (the witness is off)"));
        }
        e.limitation("Acknowledgements are checked on the wire as they are sent: each record an acknowledgement ACCEPTs must have its "
                + "effect in the target already. One a wire fault fires on, or one waiting behind a held request on its connection, is not "
                + "checked; RELEASE and REJECT claim no effect and are not checked.");
        e.limitation("One partition: B fetches from the partition A was reading.");
        ctx.kafka().ops().createTopic(ctx.kafka().namespace(), s.topic(), 1);
        Duration lock = Shares.configureGroup(ctx, e, s.group(), Shares.LOCK);
        Experiments.produce(ctx, e, s.ns());

        FrontierCheck check = FrontierCheck.of(ctx, e, s.topic(), s.inbox());
        String aName = NAME + "-A";
        InstanceSpec a = ctx.subjects().shareConsumer(aName, s.topic(), s.group(), s.inbox());
        List<LabContext.Instance> running = new ArrayList<>();
        Optional<Comparison> compared;
        try (WireProxy.Checking ignored = proxy.get().checkCommits(s.group(), check)) {
            check.crashAtFirstAhead(aName, x -> ctx.subjects().crash(e, x));
            LabContext.Instance first = ctx.subjects().start(e, a);
            running.add(first);
            ctx.step("A drains the share group while every acknowledgement is checked against the target");
            // A drains, unless it is killed at an acknowledgement ahead of the database first
            boolean killed = killedOrDrained(ctx, s, check);
            if (check.disarm().isPresent()) { // no kill after this look
                ctx.step("A was killed at an acknowledgement ahead of the database; B takes over (A's other records come back once their "
                        + lock.toMillis() + " ms lock runs out)");
                running.add(ctx.subjects().start(e, ctx.subjects().shareConsumer(NAME + "-B", s.topic(), s.group(), s.inbox())));
            } else if (!killed) {
                e.record(HARNESS, new Payload.Note("A neither drained the share group nor was killed within " + ctx.settings().timeouts().drain()));
            }
            compared = Shares.drainAndCompare(ctx, e, s, 1, running, running.get(running.size() - 1));
        }
        FrontierCheck.Tally seen = check.tally();
        Event summary = e.record(HARNESS, new Payload.Note("the live check: " + seen.commits() + " acknowledgement(s) of " + s.group()
                + " that ACCEPT records seen, " + seen.covering() + " checked against the target, " + seen.ahead().size()
                + " ahead of the database" + (seen.unchecked().isEmpty() ? "" : "; not checked: " + seen.unchecked())));
        if (seen.blocking().isPresent()) {
            return e.finish(Outcome.notRun("the live check did not read the target: " + seen.blocking().get()
                    + " (a reader that can block the subject's writes would cause the very failure it looks for)"));
        }
        if (compared.isEmpty()) {
            return Experiments.notDrained(ctx, e);
        }
        return e.finish(Verdicts.naming(CommitAheadExperiment.verdict(e, check, summary, CommitCheck.Kind.ACKNOWLEDGEMENT), compared.get()));
    }

    /** Until A is killed at an acknowledgement ahead of the database (true) or the share group drained (true), up to the drain timeout. */
    private static boolean killedOrDrained(LabContext ctx, Shares.Share s, FrontierCheck check) throws InterruptedException {
        long end = System.nanoTime() + ctx.settings().timeouts().drain().toNanos();
        while (System.nanoTime() < end) {
            if (check.killedAt().isPresent()) {
                return true;
            }
            if (ctx.kafka().awaitShareDrained(s.group(), s.topic(), 1, Duration.ofMillis(500), "drain") != null) {
                return true;
            }
        }
        return check.killedAt().isPresent();
    }
}
