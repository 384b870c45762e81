package io.replaylab.harness.experiment;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.wire.CommitCheck;
import io.replaylab.barrier.wire.WitnessedCommit;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.barrier.BarrierPlan;
import io.replaylab.harness.barrier.CommitPoint;
import io.replaylab.harness.barrier.CommitsAnotherWay;
import io.replaylab.harness.barrier.Held;
import io.replaylab.harness.barrier.PointNotReached;
import io.replaylab.harness.barrier.PointUnreachable;
import io.replaylab.harness.lab.InstanceSpec;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.LabWire;
import io.replaylab.harness.lab.SubjectExitedException;
import io.replaylab.harness.lab.Timeouts;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.oracle.Comparison;

/**
 * Commit-ahead (R11 as it happens, R12): every OffsetCommit of the group is checked on the wire
 * the moment it is sent against the target ({@link FrontierCheck}); instance A is killed at its
 * first commit that covers a record with no effect yet, any time before its group drained, and the
 * group then drains as usual: a record whose offset was stored before its effect is lost (missing
 * effect, a hole in the frontier). To give a commit timer (librdkafka's and Kafka's auto-commit, every 5 s by default)
 * its chance, A is held at its DB commit while the check watches ({@link #window}: longer than A took
 * from its start to its first offset commit, at least its commit interval and a half ({@link #floor})): a consumer that stored the
 * offset when poll returned commits it then, ahead of its transaction.
 */
final class CommitAheadExperiment {
    static final String NAME = "commit-ahead";
    /** The check of what the live check saw as each commit was sent ({@link FrontierCheck#noneAhead}). */
    static final String NO_COMMIT_AHEAD = FrontierCheck.noneAheadName(CommitCheck.Kind.OFFSET_COMMIT);
    static final String[] REQUIREMENTS = {"R11", "R12"};
    /**
     * The least A is held at its DB commit for a timer's commit to come: its commit interval (the run's setting, 5 s by default, the
     * Java client's and librdkafka's auto-commit interval), half as long again for the timer's phase, and a second for the commit's
     * way: 8 s by default.
     */
    static Duration floor(Duration commitInterval) {
        return commitInterval.plus(commitInterval.dividedBy(2)).plusSeconds(1).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    }

    private CommitAheadExperiment() {
    }

    static Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception {
        Experiments.environment(ctx, e, ns); // not onTheRunsBroker: its own check lists the commits ahead, and kills at one
        e.limitation(Limitations.singleBrokerAndDatabase(ctx.target().kind()));
        e.limitation("Commits are checked on the wire as they are sent; a commit covers the offsets from where the partition's previous "
                + "checked commit stood, whoever sent it and whether or not the broker then stored it. A commit a wire fault fires on, or one "
                + "waiting behind a held commit on its connection, is not checked.");
        Optional<LabWire> proxy = ctx.kafka().wire();
        if (proxy.isEmpty()) {
            return e.finish(Outcome.notRun("the live check reads each OffsetCommit on the wire, and this run has no wire proxy (the witness is off)"));
        }
        String topic = ns.topic();
        String group = ns.group();
        String inbox = ns.inbox(1);
        // a consumer that commits on a timer must have records in flight when it does, not a topic drained before A is held
        StagedSource source = StagedSource.produce(ctx, e, ns, "once A is held at its DB commit (or, with no DB hold, at once)");

        FrontierCheck check = FrontierCheck.of(ctx, e, topic, inbox);
        String aName = NAME + "-A";
        InstanceSpec spec = ctx.subjects().consumer(aName, topic, group, inbox);
        List<LabContext.Instance> running = new ArrayList<>();
        Held[] held = {null};
        try (WireProxy.Checking ignored = proxy.get().checkCommits(group, check)) {
            // armed before A starts: its first commit may be ahead already (a parallel consumer's, whose second record finished
            // first), sent while the DB barrier is being armed; the commit then goes on to the broker past the arming's hold
            check.crashAtFirstAhead(aName, x -> held[0] != null && held[0].instance() == x ? held[0].crash() : ctx.subjects().crash(e, x));
            LabContext.Instance a = holdAtDbCommit(ctx, e, spec, group, check, held);
            if (a == null) {
                a = ctx.subjects().start(e, spec);
            }
            running.add(a);
            source.publishRest();
            if (held[0] != null) {
                watchWhileHeld(ctx, e, held[0], check, group);
            }
            OffsetSnapshot drained = runArmed(ctx, check, a, group, topic, inbox);
            if (check.disarm().isPresent()) { // no kill after this look: a restart is decided here, and only here
                LabContext.Instance again = ctx.subjects().start(e, spec); // the same name, a new process
                running.add(again);
            }
            OffsetSnapshot settled = drained != null || (check.killedAt().isEmpty() && a.process().isAlive())
                    ? Experiments.settled(ctx, e, group, running, drained) // drained, or stalled (its reason given): not waited for twice
                    : Experiments.settle(ctx, e, group, topic, inbox, running, running.get(running.size() - 1)); // the restarted A, or A exited
            if (settled == null) {
                return Experiments.notDrained(ctx, e);
            }
            e.record(Source.here("harness"), settled.toPayload("after the check"));
        } finally {
            if (held[0] != null) {
                held[0].close();
            }
        }
        FrontierCheck.Tally seen = check.tally();
        Event summary = e.record(Source.here("harness"), new Payload.Note("the live check: " + seen.commits() + " commit(s) of " + group
                + " seen, " + seen.covering() + " covered records and were checked against the target, " + seen.ahead().size()
                + " ahead of the database" + (seen.unchecked().isEmpty() ? "" : "; not checked: " + seen.unchecked())));
        if (seen.blocking().isPresent()) {
            return e.finish(Outcome.notRun("the live check did not read the target: " + seen.blocking().get()
                    + " (a reader that can block the subject's writes would cause the very failure it looks for)"));
        }
        Comparison c = ctx.target().judge(e, topic, inbox, group);
        return e.finish(Verdicts.naming(verdict(e, check, summary, CommitCheck.Kind.OFFSET_COMMIT), c));
    }

    /**
     * A held at its DB commit through the run's barrier for that point; A killed at a commit ahead while the barrier was armed (the
     * kill is the finding); or null (recorded why) when it cannot be held there.
     */
    private static LabContext.Instance holdAtDbCommit(LabContext ctx, ExperimentRecorder e, InstanceSpec spec, String group, FrontierCheck check,
            Held[] held) throws InterruptedException {
        BarrierPlan plan = BarrierPlan.of(ctx, CommitPoint.BEFORE_DB_COMMIT);
        Optional<String> unavailable = plan.unavailable();
        if (unavailable.isEmpty()) {
            try {
                held[0] = plan.arm(ctx, e, CommitPoint.BEFORE_DB_COMMIT.id(), spec, group, HoldMode.THREAD,
                        BarrierOptions.ofDefaults().holdTimeout(Handoff.LONGEST.plus(Handoff.longest(ctx))));
                return held[0].instance();
            } catch (RuntimeException x) {
                if (check.killedAt().isPresent()) { // whatever the arming made of A's death (it exited, gdb lost it): the kill is why
                    return ctx.subjects().started().stream().filter(i -> i.name().equals(spec.name())).findFirst().orElseThrow(() -> x);
                }
                if (!(x instanceof PointNotReached || x instanceof PointUnreachable)) {
                    throw x;
                }
                unavailable = Optional.of(x.getMessage());
            }
        }
        e.record(Source.here("harness"), new Payload.Note("A is not held at its DB commit (" + unavailable.get() + "): the check still sees "
                + "every commit, but a commit timer may find every record applied"));
        return null;
    }

    /**
     * A goes on with the kill armed until its group drained: a commit ahead may come only once A is released, when records that
     * waited behind the held one finish (a parallel consumer's workers wait for the held transaction's write lock). Null when A
     * was killed or exited first, or the group stalled (its reason given).
     */
    private static OffsetSnapshot runArmed(LabContext ctx, FrontierCheck check, LabContext.Instance a, String group, String topic,
            String inbox) throws InterruptedException {
        if (check.killedAt().isPresent()) {
            return null;
        }
        ctx.step("A goes on until its group drained, killed at its first commit ahead of the database if one comes");
        return ctx.kafka().awaitApplied(group, topic, inbox, "checked drain", () -> check.killedAt().isPresent() || !a.process().isAlive(), a);
    }

    /**
     * How long A stays held at its DB commit for a commit of A's to come: longer than A took from its start to its first offset
     * commit (a timer commits first one interval or more after its client started; a consumer that commits per record, once it
     * read its first), at least the {@link #floor} of A's commit interval, at most {@link Handoff#LONGEST}. A's first commit is the
     * warm-up's: every barrier at the DB commit arms after it.
     */
    static Duration window(Instant started, Optional<Instant> firstCommit, Duration commitInterval) {
        Duration toFirst = firstCommit.map(f -> Duration.between(started, f)).filter(d -> !d.isNegative()).orElse(Duration.ZERO);
        Duration w = toFirst.plus(toFirst.dividedBy(4)).plusSeconds(1).truncatedTo(java.time.temporal.ChronoUnit.SECONDS); // a timer's jitter
        Duration least = floor(commitInterval);
        return w.compareTo(least) < 0 ? least : w.compareTo(Handoff.LONGEST) > 0 ? Handoff.LONGEST : w;
    }

    /** A at its DB commit: up to its {@link #window} for a commit of A's to come (and be killed at), then A goes on. */
    private static void watchWhileHeld(LabContext ctx, ExperimentRecorder e, Held at, FrontierCheck check, String group) throws InterruptedException {
        try {
            at.awaitArrival();
        } catch (BarrierTimeoutException t) {
            e.record(Source.here("harness"), new Payload.Note("A did not reach its DB commit within " + ctx.settings().timeouts().barrier()
                    + ": no hold; the check still sees every commit"));
            at.untrace();
            return;
        } catch (CommitsAnotherWay x) { // its statements commit themselves: every commit it makes is checked all the same
            e.record(Source.here("harness"), new Payload.Note(x.getMessage() + ": no hold; the check still sees every commit"));
            at.untrace();
            return;
        } catch (SubjectExitedException gone) {
            if (check.killedAt().isEmpty()) { // waits for a kill under way: its process may be gone a moment before it is recorded
                throw gone;
            }
            return; // killed at a commit ahead before it reached its DB commit: the kill is the finding, not an exit of its own
        }
        // the first the client sent (a commit is listed once its fate is known); one sent before this process started is not A's now
        Optional<Instant> first = ctx.kafka().witness().flatMap(w -> java.util.stream.Stream.concat(w.commits(group).stream(), w.inFlight().stream().filter(c -> group.equals(c.group())))
                .min(java.util.Comparator.comparingLong(WitnessedCommit::seq))).map(WitnessedCommit::sent).filter(f -> !f.isBefore(at.instance().started()));
        Duration interval = ctx.settings().timeouts().commitInterval();
        Duration window = window(at.instance().started(), first, interval);
        LabEvent.HeldForATimer held = new LabEvent.HeldForATimer(Timeouts.seconds(window), first.map(f -> "its first offset commit came "
                + Timeouts.seconds(Duration.between(at.instance().started(), f)) + " after its start").orElse("no offset commit of A's seen"),
                Timeouts.seconds(floor(interval)));
        ctx.step(held.summary());
        e.record(Source.here("harness"), held);
        boolean killed = Poll.every(Duration.ofMillis(100)).upTo(window).until(() -> check.killedAt().isPresent());
        if (!killed) {
            at.barrier().release();
            e.record(Source.here("harness"), new LabEvent.ReleasedUnkilled(Timeouts.seconds(window)));
        }
        at.untrace();
    }

    /**
     * FAIL at a commit (or share acknowledgement: {@code kind}) of A's ahead of the database, A killed there, whether the oracle
     * then found the loss or the effects landed before the kill; PASS only with enough checked and none ahead.
     */
    static Outcome verdict(ExperimentRecorder e, FrontierCheck check, Event summary, CommitCheck.Kind kind) {
        String what = kind.word();
        Optional<FrontierCheck.Ahead> killed = check.killedAt();
        if (killed.isPresent()) {
            FrontierCheck.Ahead k = killed.get();
            // FAILs the check even when the effects landed before the kill (a race a parallel consumer's in-flight record can win)
            e.check(check.noneAhead(kind));
            return Outcome.judge(e.confirmFault("A killed (SIGKILL) at " + article(what) + " " + what + " ahead of the database: partition "
                    + k.partition() + " at " + k.offset() + " (event " + check.killEvent().seq() + ")", check.killEvent()), e.checks());
        }
        FrontierCheck.Tally seen = check.tally();
        if (!seen.ahead().isEmpty()) {
            FrontierCheck.Ahead a = seen.ahead().get(0);
            return Outcome.notRun(seen.ahead().size() + " " + what + "(s) ahead of the database were seen (the first: " + a.instance() + " at "
                    + a.partition() + "@" + a.offset() + ", " + a.uncovered() + "), none of them A's to kill: no loss was proved or ruled out");
        }
        if (!seen.unchecked().isEmpty()) {
            return Outcome.notRun(seen.unchecked().size() + " " + what + "(s) could not be checked (the first: " + seen.unchecked().get(0)
                    + "): " + article(what) + " " + what + " ahead of the database among them cannot be ruled out");
        }
        if (seen.commits() == 0 && kind == CommitCheck.Kind.OFFSET_COMMIT) {
            return Outcome.notRun("the group got no offset commit at all: the consumer's positions are not the group's offsets (it keeps them "
                    + "in its own database, or nowhere), so no commit of them can run ahead of its database");
        }
        if (seen.covering() < FrontierCheck.ENOUGH_COMMITS) {
            return Outcome.notRun("only " + seen.covering() + " " + what + "(s) covering a record were checked (" + FrontierCheck.ENOUGH_COMMITS
                    + " needed): too few to say the consumer never " + (kind == CommitCheck.Kind.OFFSET_COMMIT ? "commits" : "acknowledges")
                    + " ahead of its database");
        }
        e.check(check.noneAhead(kind));
        return Outcome.judge(e.confirmFault("every " + what + " of the group checked against the target the moment it was sent: " + seen.covering()
                + " covered records, none ahead", summary), e.checks());
    }

    private static String article(String what) {
        return what.startsWith("a") ? "an" : "a";
    }
}
