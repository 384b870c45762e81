package io.replaylab.harness.experiment;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Timer;
import io.replaylab.harness.barrier.BarrierPlan;
import io.replaylab.harness.barrier.CommitPoint;
import io.replaylab.harness.barrier.CommitsAnotherWay;
import io.replaylab.harness.barrier.Held;
import io.replaylab.harness.barrier.PointUnreachable;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.LabKafka;
import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.wire.WireWitness;
import io.replaylab.barrier.wire.WitnessedCommit;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.kafka.GroupMember;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.OffsetsEvent;
import io.replaylab.kafka.PartitionRef;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Oracle;
import io.replaylab.oracle.TargetEvent;

/**
 * Experiment 2 (SPEC R7–R12): instance A is held by a debugger after its DB commit and before its
 * offset commit; B joins; the partition moves to B; A resumes and its stale commit must be
 * rejected; the target holds exactly one effect per message. No offset is moved by hand.
 */
final class RebalanceExperiment {
    static final String NAME = "rebalance";

    private RebalanceExperiment() {
    }

    static final String[] REQUIREMENTS = {"R7", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"};

    static Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception {
        Experiments.onTheRunsBroker(ctx, e, ns);
        BarrierPlan plan = BarrierPlan.of(ctx, CommitPoint.BEFORE_OFFSET_COMMIT);
        e.environment("barrier", plan.display());
        e.limitation(plan.limitation());
        Experiments.produce(ctx, e, ns);
        int tries = 1;
        String group = ns.group();
        while (true) {
            try {
                return attempt(ctx, e, plan, ns.topic(), group, ns.inbox(tries));
            } catch (FallBack f) {
                plan = plan.fallback(f.why()).orElseThrow();
            }
            tries++;
            e.environment("barrier", plan.display());
            e.limitation(plan.limitation());
            boolean frozen = plan.why() == BarrierPlan.Why.CLIENT_GAVE_UP_THE_HELD_COMMIT;
            group = ns.group(frozen ? "frozen" : "wire");
            ctx.step("falling back to " + plan.display() + ": a new group and inbox namespace on the same topic and target");
        }
    }

    /** The plan cannot make its hazard ({@link #why()}), and it has a {@link BarrierPlan#fallback}: the caller tries that. */
    static final class FallBack extends Exception {
        private final BarrierPlan.Why why;

        FallBack(BarrierPlan.Why why) {
            super(why.name(), null, false, false);
            this.why = why;
        }

        BarrierPlan.Why why() {
            return why;
        }
    }

    /**
     * A went past the debugger's point another way (its offsets or its DB work): recorded, then the plan's fallback takes over
     * ({@link FallBack}) where it has one, else NOT_RUN saying so.
     */
    static Outcome offTheDebugger(ExperimentRecorder e, BarrierPlan plan, CommitsAnotherWay x) throws FallBack {
        boolean db = x.why() == BarrierPlan.Why.DB_COMMITS_PAST_THE_DEBUGGER;
        boolean next = plan.fallback(x.why()).isPresent();
        e.record(Source.here("harness"), new Payload.Note(x.getMessage() + (!next ? "" : db ? "; the debugger holds " + BarrierPlan.STATEMENT_UPDATE
                + " instead" : "; the wire barrier takes over")));
        if (next) {
            throw new FallBack(x.why());
        }
        return e.finish(Outcome.notRun(x.getMessage() + ", and the barrier was " + plan.noFallback(x.why()) + (db ? "; name the call that "
                + "commits it (LabSettings.dbCommitPoint)" : "; hold A on the wire instead (LabSettings.barrier WIRE)")));
    }

    /**
     * One try with one barrier.
     *
     * @throws FallBack the debugger held a commit whose offsets it could not read, A committed past it, or A's client gave up its
     *     commit held on the wire, and the plan has a fallback: everything of the try is released and stopped
     */
    private static Outcome attempt(LabContext ctx, ExperimentRecorder e, BarrierPlan plan, String topic, String group, String inbox)
            throws Exception {
        HoldMode mode = ctx.settings().barrier().holdMode();
        e.environment("hold mode", plan.holdMode(mode));
        Source harness = Source.here("harness");

        BarrierOptions options = BarrierOptions.ofDefaults().holdTimeout(Handoff.longest(ctx).plus(ctx.settings().timeouts().drain()));
        Held at = plan.arm(ctx, e, "offset-commit", ctx.subjects().consumer("rebalance-A", topic, group, inbox), group, mode, options);
        LabContext.Instance a = at.instance();
        Barrier barrier = at.barrier();
        try (at) {
            Arrival held;
            try {
                held = at.awaitArrival();
            } catch (BarrierTimeoutException t) {
                return e.finish(Outcome.notRun(at.neverReached()));
            } catch (PointUnreachable x) {
                return e.finish(Outcome.notRun("the injection point cannot be reached: " + x.getMessage()));
            } catch (CommitsAnotherWay x) {
                return offTheDebugger(e, plan, x);
            }

            Optional<String> unreadable = held.facts().unreadableOffsets();
            if (unreadable.isPresent()) {
                boolean wire = plan.fallback(BarrierPlan.Why.OFFSETS_UNREADABLE_BY_THE_DEBUGGER).isPresent();
                e.record(harness, new Payload.Note("the debugger held A's commitSync but could not read the offsets it commits: " + unreadable.get()
                        + (wire ? "; the wire barrier takes over" : "")));
                if (wire) {
                    throw new FallBack(BarrierPlan.Why.OFFSETS_UNREADABLE_BY_THE_DEBUGGER);
                }
                barrier.release();
                return e.finish(Outcome.notRun("the debugger could not read the offsets A commits " + unreadable.get() + " and the barrier was "
                        + plan.noFallback(BarrierPlan.Why.OFFSETS_UNREADABLE_BY_THE_DEBUGGER) + "; hold A on the wire instead (LabSettings.barrier WIRE)"));
            }
            // R8: tie the point to the DB commit — the target already holds the effect of the record A is committing past.
            Map<PartitionRef, Long> committing = new TreeMap<>();
            held.offsets().forEach(o -> committing.put(new PartitionRef(o.topic(), o.partition()), o.offset()));
            OffsetSnapshot atHold = ctx.kafka().ops().describe(group);
            e.record(harness, atHold.toPayload("while A is held"));
            List<String> missing = new ArrayList<>();
            Event dbSeen = null;
            String inFlightId = null;
            PartitionRef inFlight = null;
            for (Map.Entry<PartitionRef, Long> c : committing.entrySet()) {
                if (c.getValue() <= Math.max(0, LabKafka.committed(atHold, topic, c.getKey().partition())) && committing.size() > 1) {
                    continue; // a partition the commit does not move (a commit of every position): no record of it is in flight
                }
                // the last record the commit covers: below a transactional producer's marker, not simply the offset before
                PartitionRef source = PartitionRef.of(topic, c.getKey().partition());
                Oracle.RecordEffects applied = Oracle.of(ctx.kafka().source(topic), ctx.target().inbox(inbox)).effectsBefore(source, c.getValue())
                        .orElse(new Oracle.RecordEffects(source, c.getValue() - 1, null, 0));
                long recordOffset = applied.offset();
                long groupCommitted = LabKafka.committed(atHold, topic, c.getKey().partition());
                if (applied.appliedOnce() && groupCommitted < c.getValue()) {
                    dbSeen = e.record(harness, new TargetEvent.DbCommitSeen(inbox, applied.messageId(), topic, c.getKey().partition(), recordOffset,
                            "rebalance-A"));
                    inFlightId = applied.messageId();
                    inFlight = c.getKey();
                } else {
                    missing.add(c.getKey() + "@" + recordOffset + " (effects " + applied.effects() + ", group committed " + groupCommitted + ")");
                }
            }
            if (dbSeen == null || !missing.isEmpty()) {
                barrier.release();
                return e.finish(Outcome.notRun("the injection point was not confirmed: A is committing " + committing
                        + " but the target does not hold exactly one effect of the record(s) beyond the committed offset: " + missing
                        + " (does the subject commit offsets before its DB commit?)"));
            }
            e.check(Check.pass("held after the DB commit, before the offset commit", "R8", "effect in the DB, offset not committed",
                    inFlightId + " in " + inbox + "; " + inFlight + " committed " + show(LabKafka.committed(atHold, topic, inFlight.partition()))
                            + " < " + committing.get(inFlight)));
            Optional<Outcome> standalone = Handoff.standalone(ctx, group, atHold);
            if (standalone.isPresent()) {
                barrier.release();
                return e.finish(standalone.get());
            }
            Set<String> aMembers = atHold.members().stream().map(GroupMember::memberId).collect(Collectors.toSet());
            // the wire's arrival names the held request's member and generation; a debugger's does not
            Map<String, Integer> heldAs = heldAs(ctx, group, aMembers, held.facts().requester());

            Handoff wait = Handoff.of(ctx, e, group, aMembers);
            ctx.step("A held by " + at.heldBy() + ", committing " + committing + "; starting B");
            LabContext.Instance b = ctx.subjects().start(e, ctx.subjects().consumer("rebalance-B", topic, group, inbox));
            at.alsoStop(b);
            Timer.Sample handoffTime = Timer.start(ctx.meters());
            e.check(Check.of("two instances with different process ids", "R7", "pid A != pid B", a.pid() + " vs " + b.pid(), a.pid() != b.pid()));

            // Revocation evidence: watch the group description until someone other than A owns A's partition.
            ctx.step("waiting for " + inFlight + " to move to B (" + wait.says() + ")");
            Event handoff;
            try (wait) {
                Handoff.Moved moved = awaitHandoff(ctx, e, group, Set.of(inFlight), aMembers, a, List.of(a, b), wait.waitFor());
                handoff = moved == null ? null : moved.event();
            }
            if (handoff == null) {
                barrier.release();
                e.check(Check.fail("partition moved to B while A was held", "R8", inFlight + " owned by another member", "never moved"));
                return e.finish(wait.none("no handoff: " + inFlight + " stayed with A for " + wait.waitFor()));
            }
            handoffTime.stop(ctx.meters().timer("replaylab.handoff"));
            e.check(Check.pass("partition moved to B while A was held", "R8", inFlight + " owned by another member",
                    ((OffsetsEvent.AssignmentChanged) handoff.payload()).summary()));

            // B redelivers A's in-flight record: its commit passes A's, and the DB must not gain a second effect.
            ctx.step("B redelivers the in-flight record " + inFlightId);
            long target = committing.get(inFlight);
            int partition = inFlight.partition();
            Poll.every(Duration.ofMillis(250)).upTo(ctx.settings().timeouts().drain()).until(() -> {
                boolean past = LabKafka.committed(ctx.kafka().ops().describe(group), topic, partition) >= target;
                if (!past) {
                    ctx.subjects().checkpoint(b); // B must still run while it is behind; once past, its exit is the next step's business
                }
                return past;
            });
            long effectsAfterB = ctx.target().inbox(inbox).effectsOf(inFlightId);
            e.record(harness, new Payload.Note("after B processed " + inFlight + " past " + target + ": " + effectsAfterB + " effect(s) of " + inFlightId));
            e.check(Check.of(Verdicts.COLLISION, "R9", "1 effect of " + inFlightId,
                    effectsAfterB + " effect(s)", effectsAfterB == 1));

            ctx.step("releasing A; its stale commit must be rejected");
            barrier.release();
            ctx.meters().timer("replaylab.barrier.hold").record(Duration.between(held.time(), Instant.now()));
            Duration callWait = Verdicts.callWait(ctx, group);
            Optional<CallOutcome> outcome = Poll.every(Duration.ZERO).upTo(callWait).until(() -> {
                ctx.subjects().checkpoint();
                return barrier.awaitOutcome(Duration.ofMillis(250));
            }, Optional::isPresent);
            at.thaw(); // held whole (frozen) on the wire: A runs again once its held commit has its answer
            if (outcome.filter(o -> o.verdict() == CallOutcome.Verdict.NOT_DELIVERED).isPresent()) {
                boolean whole = plan.fallback(BarrierPlan.Why.CLIENT_GAVE_UP_THE_HELD_COMMIT).isPresent();
                e.record(harness, new Payload.Note("A's client gave up its held commit before the partition moved: " + outcome.get().message()
                        + (whole ? "; no stale commit can follow, so A is held whole (frozen) at its commit on a new group next" : "")));
                if (whole) {
                    throw new FallBack(BarrierPlan.Why.CLIENT_GAVE_UP_THE_HELD_COMMIT);
                }
            }
            StaleCommitOnWire onWire = StaleCommitOnWire.of(ctx.kafka().witness(), group, heldAs, held.time(), a.name(),
                    inFlight.topic() + "-" + inFlight.partition());
            Optional<Outcome> ended = Verdicts.staleCommit(e, outcome, callWait, onWire, plan.noFallback(BarrierPlan.Why.CLIENT_GAVE_UP_THE_HELD_COMMIT));
            if (ended.isPresent()) {
                return ended.get();
            }
            Event rejected = at.evidence().outcomeEvent();
            String rejecter = Verdicts.rejecter(outcome.orElseThrow(), onWire);

            ctx.step("group settles with both instances and drains");
            OffsetSnapshot settled = Experiments.settle(ctx, e, group, topic, inbox, at.running(), b);
            if (settled == null) {
                return Experiments.notDrained(ctx, e);
            } else {
                e.record(harness, settled.toPayload("after recovery"));
                e.artifact(ctx.save("rebalance-offsets-after", settled), "offsets after recovery");
                e.check(Check.pass("the new owner replayed; nothing skipped by hand", "R10", "lag 0 (or every effect applied) with no offset altered by the harness",
                        "lag " + settled.totalLag() + "; the harness made no offset change in this experiment"));
            }
            Comparison c = ctx.target().judge(e, topic, inbox, group);
            return e.finish(Verdicts.naming(Outcome.judge(e.confirmFault("A's stale commit was " + rejecter + " after its partition moved to B", rejected), e.checks()), c));
        }
    }

    /**
     * A's member ids at the hold, each with the generation (classic) or member epoch it held: the
     * held request's own for the wire barrier, else what the witness last saw it use (-1 unknown).
     */
    private static Map<String, Integer> heldAs(LabContext ctx, String group, Set<String> aMembers, Optional<Arrival.Requester> onTheWire) {
        Map<String, Integer> out = new TreeMap<>();
        if (onTheWire.isPresent()) {
            out.put(onTheWire.get().memberId(), onTheWire.get().generation());
            return out;
        }
        for (String m : aMembers) {
            out.put(m, ctx.kafka().witness().map(w -> w.generation(group, m).orElse(-1)).orElse(-1));
        }
        return out;
    }

    /**
     * What the wire witness saw of A's held commit: the run had none, A never talked through it (a
     * subject that ignored {@code {bootstrap}}), or the OffsetCommits of A's held member at its held
     * generation sent from the hold on (none: A's client refused it before sending).
     */
    record StaleCommitOnWire(Seen seen, String heldAs, String partition, List<WitnessedCommit> commits) {
        enum Seen {
            NO_WITNESS, NOT_WITNESSED, WITNESSED
        }

        static StaleCommitOnWire noWitness() {
            return new StaleCommitOnWire(Seen.NO_WITNESS, "", "", List.of());
        }

        /**
         * A's OffsetCommits of {@code partition} (the one that moved) from its held member at its held
         * generation, sent from the hold on (the held frame itself was read just before the arrival),
         * answered or still on their way. A generation the witness never saw (-1) is taken from the
         * first such commit: a later one of A after it rejoined is legitimate and not judged.
         */
        static StaleCommitOnWire of(Optional<WireWitness> witness, String group, Map<String, Integer> heldAs, Instant heldAt, String instance,
                String partition) {
            if (witness.isEmpty()) {
                return noWitness();
            }
            WireWitness w = witness.get();
            List<WitnessedCommit> seen = new ArrayList<>(w.commits(group));
            w.inFlight().stream().filter(c -> c.group().equals(group)).forEach(seen::add);
            return of(heldAs.keySet().stream().anyMatch(w::sawMember) || w.sawClient(instance), seen, heldAs, heldAt, partition);
        }

        /** As {@link #of(Optional, String, Map, Instant, String, String)}, on what the witness saw of the group: a function of values. */
        static StaleCommitOnWire of(boolean talkedThroughTheProxy, List<WitnessedCommit> seen, Map<String, Integer> heldAs, Instant heldAt, String partition) {
            String as = heldAs.entrySet().stream().map(m -> "member " + m.getKey() + (m.getValue() < 0 ? "" : " generation " + m.getValue()))
                    .collect(Collectors.joining(", "));
            if (!talkedThroughTheProxy) {
                return new StaleCommitOnWire(Seen.NOT_WITNESSED, as, partition, List.of());
            }
            List<WitnessedCommit> mine = seen.stream()
                    .filter(c -> heldAs.containsKey(c.memberId()))
                    .filter(c -> heldAs.get(c.memberId()) < 0 || heldAs.get(c.memberId()) == c.generation())
                    .filter(c -> c.held() || !c.sent().isBefore(heldAt))
                    .filter(c -> c.offsets().stream().anyMatch(o -> o.partitionName().equals(partition)))
                    .sorted(java.util.Comparator.comparingLong(WitnessedCommit::seq))
                    .toList();
            if (!mine.isEmpty() && heldAs.get(mine.get(0).memberId()) < 0) {
                int g = mine.get(0).generation();
                mine = mine.stream().filter(c -> c.generation() == g).toList();
            }
            return new StaleCommitOnWire(Seen.WITNESSED, as, partition, mine);
        }

        /** The broker stored the moved partition's offset. */
        Optional<WitnessedCommit> accepted() {
            return commits.stream().filter(c -> c.storedFor(partition)).findFirst();
        }

        /** The broker refused the moved partition's offset. */
        Optional<WitnessedCommit> rejected() {
            return commits.stream().filter(c -> c.refusedFor(partition)).findFirst();
        }

        /** What the broker said for the moved partition. */
        String answer(WitnessedCommit c) {
            return c.answers().get(partition);
        }

        /** {@code the OffsetCommit t-0=5 of member m generation 3}: as the report's wire table shows it. */
        static String named(WitnessedCommit c) {
            return "the OffsetCommit " + c.offsetsText() + " of member " + c.memberId() + " generation " + c.generation();
        }
    }

    /**
     * Waits (kafka-ops) for a member that is not A to own one of {@code watched}, recording each ownership change
     * (a member is named by the instance in {@code needed} whose name is its client id, else by its
     * client id); returns the event that shows the handoff and the partition that moved, or null. A's members are those in
     * {@code aMembers} and, while A's own process is one of {@code needed}, any whose client id is
     * A's instance name: the same process that left and joined again as a new member (a client that
     * re-subscribes after a failed commit, say) and took the partition back is not a handoff to B.
     * (A crashed A restarted under its name is a new process, not in {@code needed} as {@code a}:
     * its taking the partition is a handoff.) Every instance in {@code needed} must stay running
     * ({@link io.replaylab.harness.lab.LabSubjects#checkpoint}).
     */
    static Handoff.Moved awaitHandoff(LabContext ctx, ExperimentRecorder e, String group, Set<PartitionRef> watched, Set<String> aMembers,
            LabContext.Instance a, List<LabContext.Instance> needed, Duration timeout) throws InterruptedException {
        Map<String, List<String>> last = new HashMap<>();
        Set<String> aIds = new HashSet<>(aMembers);
        Set<String> aClientIds = new HashSet<>();
        boolean sameProcess = needed.contains(a);
        Handoff.Moved[] handoff = {null};
        LabContext.Instance[] live = needed.toArray(LabContext.Instance[]::new);
        ctx.kafka().ops().awaitOwnerChange(group, watched, aIds, timeout, s -> { // a rejoined A is added to aIds before the look is judged
            for (LabContext.Instance i : live) { // A, held or frozen, is the barrier's: its exit ends the wait (no restart)
                if (i == a) {
                    ctx.subjects().checkpointHeld(i);
                } else {
                    ctx.subjects().checkpoint(i);
                }
            }
            s.members().stream().filter(m -> aMembers.contains(m.memberId())).forEach(m -> aClientIds.add(m.clientId()));
            for (GroupMember m : s.members()) {
                if (sameProcess && !aIds.contains(m.memberId()) && m.clientId().equals(a.name())) {
                    aIds.add(m.memberId());
                    e.record(Source.of(a.name(), a.pid(), "group description"), new LabEvent.Rejoined(a.name(), m.memberId(), m.clientId()));
                }
                List<String> parts = m.assignment().stream().map(PartitionRef::toString).toList();
                if (!parts.equals(last.get(m.memberId()))) {
                    last.put(m.memberId(), parts);
                    boolean isA = aIds.contains(m.memberId());
                    LabContext.Instance who = isA ? a : needed.stream().filter(i -> i != a && i.name().equals(m.clientId())).findFirst()
                            .orElse(needed.get(needed.size() - 1));
                    String name = isA ? a.name() : m.clientId();
                    Event ev = e.record(Source.of(who.name(), who.pid(), "group description"),
                            new OffsetsEvent.AssignmentChanged(name, "owns", parts,
                                    m.memberEpoch() == null ? null : m.memberEpoch().toString(),
                                    "group description (" + s.state().display() + ", member " + m.memberId() + ")"));
                    Optional<PartitionRef> moved = isA ? Optional.empty() : m.assignment().stream().filter(watched::contains).findFirst();
                    if (moved.isPresent()) {
                        handoff[0] = new Handoff.Moved(ev, moved.get());
                        if (sameProcess && aClientIds.contains(m.clientId())) { // the look that ends the wait: once
                            e.record(Source.here("harness"), new Payload.Note("the new owner " + m.memberId() + " uses A's client.id " + m.clientId()
                                    + ": it is told apart from an A that joined again only by its member id (give each instance its own"
                                    + " client.id, e.g. {instance}, to make this certain)"));
                        }
                    }
                }
            }
        });
        return handoff[0];
    }

    private static String show(long committed) {
        return committed < 0 ? "none" : Long.toString(committed);
    }
}
