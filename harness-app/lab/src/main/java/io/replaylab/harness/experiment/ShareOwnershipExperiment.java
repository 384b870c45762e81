package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.MethodPoint;
import io.replaylab.barrier.wire.ShareWitness;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.barrier.BarrierPlan;
import io.replaylab.harness.barrier.Held;
import io.replaylab.harness.barrier.PointNotReached;
import io.replaylab.harness.barrier.PointUnreachable;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.ProcessingLine;
import io.replaylab.kafka.GroupMember;
import io.replaylab.kafka.GroupType;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.oracle.Comparison;

/**
 * Ownership in a share group (KIP-932), the rebalance experiment's question without a rebalance: a
 * record is ACQUIRED by one member under a lock; A applies it to the DB and is held before its
 * acknowledgement; the lock expires, B gets the record again (delivery count 2) and must not apply it
 * again; A resumes, and the broker refuses its stale acknowledgement. The DB must hold one effect per
 * message. The topic has one partition, so that both members fetch from it.
 */
final class ShareOwnershipExperiment {
    static final String NAME = "share-ownership";

    static final String[] REQUIREMENTS = {"R7", "R8", "R9", "R11", "R12", "R13", "R14"};

    /** Where A is held: its acknowledgement of the record it applied, before the acknowledgement goes to the broker. */
    static final MethodPoint ACKNOWLEDGE = BarrierPlan.SHARE_ACKNOWLEDGE;

    /** A frozen A's lock outlasts the share session timeout by this much: its removal, not the lock, gives the record back. */
    static final Duration REMOVAL_MARGIN = Duration.ofSeconds(15);

    /** The longest record lock a broker allows by default ({@code group.share.max.record.lock.duration.ms}). */
    private static final Duration MAX_LOCK = Duration.ofSeconds(60);

    /** After the lock's end, before B starts: the broker's lock timer and its next fetch answer may take a moment. */
    private static final Duration LOCK_MARGIN = Duration.ofMillis(1500);

    /** How long A's stale acknowledgement may take to come back refused once A is released. */
    private static final Duration ACK_ANSWER = Duration.ofSeconds(10);

    private static final Source HARNESS = Source.here("harness");

    private ShareOwnershipExperiment() {
    }

    static Outcome run(LabContext ctx, ExperimentRecorder e, Shares.Share s) throws Exception {
        BarrierPlan plan = BarrierPlan.shareAcknowledgement(ctx, s.subject().jvm());
        if (plan.unavailable().isPresent()) {
            return e.finish(Outcome.notRun(plan.unavailable().get()));
        }
        e.environment("barrier", plan.display());
        e.limitation(plan.limitation());
        e.limitation("One partition: both members fetch from it, so the record whose lock expires can go to B.");

        // a frozen A (the debugger's whole-JVM hold) stops heartbeating: the broker removes it after the share session timeout,
        // which must come before the lock's end for the evidence to show the redelivery by removal, not by expiry
        HoldMode holdA = plan.mode(ctx.settings().barrier().holdMode());
        boolean frozen = holdA == HoldMode.PROCESS;
        ctx.kafka().ops().createTopic(ctx.kafka().namespace(), s.topic(), 1);
        Duration session = frozen ? Duration.ofMillis(Long.parseLong(ctx.kafka().ops().groupConfigs(s.group())
                .getOrDefault("share.session.timeout.ms", "45000"))) : Duration.ZERO;
        if (frozen) {
            Optional<Outcome> untellable = removalUntellable(session);
            if (untellable.isPresent()) {
                return e.finish(untellable.get());
            }
        }
        Duration lock = Shares.configureGroup(ctx, e, s.group(), frozen ? session.plus(REMOVAL_MARGIN) : Shares.LOCK);
        Optional<Outcome> shortLock = frozen ? lockTooShort(session, lock) : Optional.empty();
        if (shortLock.isPresent()) {
            return e.finish(shortLock.get());
        }
        e.environment("hold mode", frozen ? "process: A's whole JVM frozen (its heartbeats stop; the broker removes it after the share session "
                + "timeout of " + session.toMillis() + " ms, before its " + lock.toMillis() + " ms lock runs out)" : plan.holdMode(holdA));
        Experiments.produce(ctx, e, s.ns());

        BarrierOptions options = BarrierOptions.ofDefaults().holdTimeout(lock.plus(ctx.settings().timeouts().handoffOrDefault()).plus(ctx.settings().timeouts().drain()));
        Held at;
        try {
            at = plan.arm(ctx, e, "before-acknowledge", ctx.subjects().shareConsumer(NAME + "-A", s.topic(), s.group(), s.inbox()),
                    s.group(), holdA, options);
        } catch (PointNotReached | PointUnreachable x) {
            return e.finish(Outcome.notRun(x.getMessage()));
        }
        try (at) {
            LabContext.Instance a = at.instance();
            Arrival arrival;
            try {
                arrival = at.awaitArrival();
            } catch (BarrierTimeoutException t) {
                return e.finish(Outcome.notRun(at.neverReached() + " (does it acknowledge explicitly: share.acknowledgement.mode=explicit?)"));
            }
            // a request held on the wire names the records it acknowledges; a debugger's arrival does not, A's processing log does
            boolean onTheWire = arrival.facts().requester().isPresent();
            Optional<ProcessingLine> applied = onTheWire ? acknowledged(ctx, arrival, a, s.topic()) : ctx.subjects().processingLines(a.name())
                    .flatMap(lines -> lines.stream().filter(ProcessingLine::applied).max(Comparator.comparingLong(ProcessingLine::offset)));
            if (applied.isEmpty()) {
                at.barrier().release();
                return e.finish(Outcome.notRun("A is held at " + ACKNOWLEDGE + " but its processing log ({logdir}/{instance}.processing.jsonl) names "
                        + "no record it applied: the lab cannot tell which record's lock to watch"));
            }
            ProcessingLine held = applied.get();
            OffsetSnapshot atHold = ctx.kafka().ops().describe(s.group(), GroupType.SHARE);
            e.record(HARNESS, atHold.toPayload("while A is held"));
            Event heldEvent = e.record(Source.of(a.name(), a.pid(), onTheWire ? "wire barrier" : "processing log"), new Payload.Note("A "
                    + held.result() + " " + held.id() + " ("
                    + s.topic() + "-" + held.partition() + "@" + held.offset() + ", delivery " + held.delivery().map(String::valueOf).orElse("?")
                    + ") and is held before acknowledging it (" + (onTheWire ? "its acknowledgement request on the wire" : "thread " + arrival.thread()) + ")"));
            e.check(Check.pass("A held after its DB transaction, before its acknowledgement", "R8", "an applied record not yet acknowledged",
                    held.id() + " at offset " + held.offset()));

            // B starts once A's lock has run out: the expired record is then the lowest one available, B's first
            Turn turn = bsTurn(ctx, e, plan, s, at, held, arrival, frozen, session, lock, options);
            if (turn.ended().isPresent()) {
                return turn.ended().get();
            }
            Optional<String> atRemoval = turn.atRemoval(); // frozen A: what gave the record back, as a probe at A's removal showed
            // B is held at its own acknowledgement of the record, so that A's late one meets the record acquired by B
            Held atB;
            try {
                atB = plan.arm(ctx, e, "B-before-acknowledge", ctx.subjects().shareConsumer(NAME + "-B", s.topic(), s.group(), s.inbox()),
                        s.group(), HoldMode.THREAD, options);
            } catch (PointNotReached | PointUnreachable x) {
                at.barrier().release();
                return e.finish(Outcome.notRun("B: " + x.getMessage()));
            }
            try (atB) {
                LabContext.Instance b = atB.instance();
                at.alsoStop(b);
                e.check(Check.of("two instances with different process ids", "R7", "pid A != pid B", a.pid() + " vs " + b.pid(), a.pid() != b.pid()));
                Arrival arrivalB;
                try {
                    arrivalB = atB.awaitArrival();
                } catch (BarrierTimeoutException t) {
                    at.barrier().release();
                    e.check(Check.fail("the record went to B after A's lock expired", "R8", held.id() + " delivered to B with delivery count >= 2",
                            "B acknowledged nothing within " + ctx.settings().timeouts().barrier()));
                    return e.finish(Outcome.faultNotObserved("no redelivery: B did not acknowledge any record within " + ctx.settings().timeouts().barrier()
                            + " after A's lock on " + held.id() + " had run out"));
                }
                Optional<ProcessingLine> first = onTheWire ? acknowledged(ctx, arrivalB, b, s.topic()) : ctx.subjects().processingLines(b.name())
                        .flatMap(lines -> lines.stream().filter(ProcessingLine::handling).findFirst());
                if (first.isEmpty() || !first.get().isAbout(held.partition(), held.offset()) || first.get().deliveryCount() == null
                        || first.get().deliveryCount() < 2) {
                    at.barrier().release();
                    String got = first.map(l -> l.id() + " (offset " + l.offset() + ", delivery " + l.delivery().map(String::valueOf).orElse("?") + ")")
                            .orElse("nothing its processing log names");
                    e.check(Check.fail("the record went to B after A's lock expired", "R8", held.id() + " delivered to B with delivery count >= 2",
                            "B's first record: " + got));
                    return e.finish(Outcome.faultNotObserved("no redelivery: B's first record was " + got + ", not " + held.id() + " again, after A "
                            + "held it unacknowledged past its " + lock.toMillis() + " ms lock" + lockNow(ctx, s.group(), lock)));
                }
                ProcessingLine again = first.get();
                OffsetSnapshot atRedelivery = ctx.kafka().ops().describe(s.group(), GroupType.SHARE);
                boolean aStillIn = atRedelivery.members().stream().map(GroupMember::clientId).anyMatch(a.name()::equals);
                e.record(HARNESS, atRedelivery.toPayload("when B got the record again"));
                Event redelivered = e.record(Source.of(b.name(), b.pid(), onTheWire ? "wire witness" : "processing log"), new Payload.Note("B got "
                        + held.id() + " again, delivery "
                        + again.deliveryCount() + ", and handled it as " + again.result() + "; A was "
                        + (aStillIn ? "still a member (its heartbeats go on while its thread is held): the lock expired"
                                : "no longer a member (removed after the share session timeout)" + atRemoval.map(how -> ", " + how).orElse(""))));
                e.check(Check.pass("the record went to B after A's lock expired", "R8", held.id() + " delivered to B with delivery count >= 2",
                        "delivery " + again.deliveryCount() + " to B, " + again.result()));

                wireDelivery(ctx, s.group(), s.topic(), held, b).ifPresent(d -> e.record(HARNESS, new Payload.Note("on the wire: " + d.summary())));

                ctx.step("releasing A: its acknowledgement of " + held.id() + " is stale (B holds the record now)");
                StaleAcknowledgement stale = staleAcknowledgement(ctx, e, s, held, again, at, atB, a, b);
                if (stale.ended().isPresent()) {
                    return stale.ended().get();
                }
                Event refused = stale.refused();

                ctx.step("the share group drains");
                Optional<Comparison> compared = Shares.drainAndCompare(ctx, e, s, 1, at.running(), b);
                if (compared.isEmpty()) {
                    return Experiments.notDrained(ctx, e);
                }
                Comparison c = compared.get();
                pastTheirLock(ctx, a, held).ifPresent(n -> e.record(Source.of(a.name(), a.pid(), "processing log"), n));
                Outcome judged = Outcome.judge(e.confirmFault("A held before acknowledging " + held.id() + " (event " + heldEvent.seq() + "), its lock "
                        + "expired and B got it again (event " + redelivered.seq() + "), A's acknowledgement refused", refused), e.checks());
                return e.finish(Verdicts.naming(judged, c));
            }
        }
    }

    /** How B's turn came: the outcome when the experiment ended waiting for it, and for a frozen A what gave the record back. */
    private record Turn(Optional<Outcome> ended, Optional<String> atRemoval) {
    }

    /**
     * Waits until B may start: A's lock has run out (a held thread's A stays a member), or, for a frozen A, the broker has
     * removed it and its lock has run out too (a probe member at the removal tells which of the two gave the record back).
     */
    private static Turn bsTurn(LabContext ctx, ExperimentRecorder e, BarrierPlan plan, Shares.Share s, Held at, ProcessingLine held, Arrival arrival,
            boolean frozen, Duration session, Duration lock, BarrierOptions options) throws Exception {
        LabContext.Instance a = at.instance();
        Optional<String> atRemoval = Optional.empty();
        if (frozen) {
            ctx.step("A is frozen holding " + held.id() + " unacknowledged; B starts once the broker has removed A");
            Duration removalWait = session.plus(REMOVAL_MARGIN.dividedBy(2));
            OffsetSnapshot gone = Poll.every(Duration.ofMillis(250)).upTo(removalWait)
                    .until(() -> ctx.kafka().ops().describe(s.group(), GroupType.SHARE), g -> removalNotSeen(g, a.name(), removalWait, session).isEmpty());
            Optional<Outcome> notSeen = removalNotSeen(gone, a.name(), removalWait, session);
            if (notSeen.isPresent()) {
                at.barrier().release();
                return new Turn(Optional.of(e.finish(notSeen.get())), Optional.empty());
            }
            e.record(HARNESS, new Payload.Note("the broker removed frozen A from the share group " + Duration.between(arrival.time(),
                    java.time.Instant.now()).toMillis() + " ms after its hold (its lock: " + lock.toMillis() + " ms)"));
            atRemoval = Optional.of(probe(ctx, e, plan, s, held, options, arrival.time().plus(lock)));
            Duration left = lock.plus(LOCK_MARGIN).minus(Duration.between(arrival.time(), java.time.Instant.now()));
            ctx.step("B starts once A's " + lock.toMillis() + " ms lock has run out too");
            if (!left.isNegative()) {
                Thread.sleep(left.toMillis());
            }
        } else {
            Duration sinceArrival = Duration.between(arrival.time(), java.time.Instant.now());
            Duration expiry = lock.plus(LOCK_MARGIN).minus(sinceArrival);
            ctx.step("A holds " + held.id() + " unacknowledged; B starts once its " + lock.toMillis() + " ms lock has run out");
            if (!expiry.isNegative()) {
                Thread.sleep(expiry.toMillis());
            }
        }
        return new Turn(Optional.empty(), atRemoval);
    }

    /** A's stale acknowledgement after its release: the event of its refusal, or the outcome when it was not refused. */
    private record StaleAcknowledgement(Optional<Outcome> ended, Event refused) {
    }

    /** Releases A and reads the broker's answer to its acknowledgement of {@code held} on the wire, and what its client reported. */
    private static StaleAcknowledgement staleAcknowledgement(LabContext ctx, ExperimentRecorder e, Shares.Share s, ProcessingLine held,
            ProcessingLine again, Held at, Held atB, LabContext.Instance a, LabContext.Instance b) throws InterruptedException {
        at.barrier().release();
        // the broker's answer on the wire, and what the client reported (a client without a callback tells nobody)
        AtomicReference<Optional<ShareWitness.Acknowledgement>> wire = new AtomicReference<>(Optional.empty());
        Optional<ProcessingLine> logged = Poll.every(Duration.ofMillis(100)).upTo(ACK_ANSWER).until(() -> {
            wire.set(wireAnswer(ctx, s.group(), s.topic(), held, a));
            ctx.subjects().checkpointHeld(a); // the released A's answer is awaited: a restart would not give it
            ctx.subjects().checkpoint(b);
            return ackLine(ctx, a, held);
        }, l -> l.isPresent() || wire.get().isPresent());
        Optional<ShareWitness.Acknowledgement> onWire = wire.get();
        Optional<ProcessingLine> answer = logged.isEmpty() && onWire.isPresent()
                ? Poll.every(Duration.ofMillis(100)).upTo(Duration.ofSeconds(3)).until(() -> ackLine(ctx, a, held), Optional::isPresent)
                : logged;
        atB.barrier().release();
        boolean refusedOnWire = onWire.filter(ShareWitness.Acknowledgement::refused).isPresent();
        boolean refusedInLog = answer.filter(ProcessingLine::acknowledgementRefused).isPresent();
        onWire.ifPresent(w -> e.record(Source.here("wire witness"), new Payload.Note("A's acknowledgement on the wire: " + w.summary())));
        if (!refusedOnWire && !refusedInLog) {
            String what = onWire.map(w -> "the broker answered " + (w.error() == null ? "NONE" : w.error()) + " on the wire")
                    .or(() -> answer.map(l -> "A's acknowledgement came back " + l.result()))
                    .orElse("no answer to A's acknowledgement within " + ACK_ANSWER + " (wire or processing log)");
            e.check(Check.fail("A's stale acknowledgement refused by the broker", "R9", "refused", what));
            return new StaleAcknowledgement(Optional.of(e.finish(Outcome.faultNotObserved("the stale acknowledgement was not refused: " + what
                    + " (B held the record, delivery " + again.deliveryCount() + ")"))), null);
        }
        String client = answer.map(l -> l.acknowledgementRefused() ? "A's client reported " + l.exception() + ": " + l.message()
                : "A's client reported " + l.result()).orElse("A's client reported nothing in its processing log");
        String broker = onWire.map(w -> "the broker answered " + w.error() + " on the wire").orElse("no wire witness");
        Event refused = e.record(refusedOnWire ? Source.here("wire witness") : Source.of(a.name(), a.pid(), "processing log"),
                new Payload.Note("A's late acknowledgement of " + held.id() + " refused: " + broker + "; " + client));
        e.check(Check.pass("A's stale acknowledgement refused by the broker", "R9", "refused", broker + "; " + client));
        return new StaleAcknowledgement(Optional.empty(), refused);
    }

    /**
     * What else A handled after its release whose acknowledgement came back refused: records it had acquired with the held one
     * (a client that acquires a whole batch, as librdkafka's ShareFetch v1 does), their locks run out while A was held and
     * theirs B's by then. Harmless with an inbox, doubled without one; the oracle judges either way, this says why.
     */
    private static Optional<Payload.Note> pastTheirLock(LabContext ctx, LabContext.Instance a, ProcessingLine held) {
        List<ProcessingLine> refused = ctx.subjects().processingLines(a.name()).map(lines -> lines.stream()
                .filter(l -> l.acknowledgementRefused() && !l.isAbout(held.partition(), held.offset())).toList()).orElse(List.of());
        if (refused.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Payload.Note("after its release A went on with " + refused.size() + " more record(s) it had acquired with "
                + held.id() + " (offsets " + refused.get(0).offset() + ".." + refused.get(refused.size() - 1).offset() + "): their locks had run out "
                + "while A was held, and each acknowledgement was refused; what A did with them is in the target, judged by the oracle"));
    }

    /** NOT_RUN when no record lock (at most 60 s) outlasts the share session timeout by the margin: removal and expiry would look alike. */
    static Optional<Outcome> removalUntellable(Duration session) {
        if (session.plus(REMOVAL_MARGIN).compareTo(MAX_LOCK) <= 0) {
            return Optional.empty();
        }
        return Optional.of(Outcome.notRun("A frozen would be removed only after the share session timeout of " + session.toMillis() + " ms, and "
                + "no record lock (at most " + MAX_LOCK.toMillis() + " ms) outlasts it by " + REMOVAL_MARGIN.toSeconds() + " s: lock expiry "
                + "and removal cannot be told apart on this broker (lower its group.share.session.timeout.ms)"));
    }

    /** NOT_RUN when the group's lock (the broker refused the one asked for) does not outlast the session timeout by the margin. */
    static Optional<Outcome> lockTooShort(Duration session, Duration lock) {
        if (lock.compareTo(session.plus(REMOVAL_MARGIN)) >= 0) {
            return Optional.empty();
        }
        return Optional.of(Outcome.notRun("A frozen would be removed after the share session timeout of " + session.toMillis() + " ms, but the "
                + "group's record lock is " + lock.toMillis() + " ms (the broker refused " + session.plus(REMOVAL_MARGIN).toMillis()
                + " ms): the lock would run out first, and lock expiry and removal could not be told apart"));
    }

    /** NOT_RUN when frozen A is still a member of the share group in {@code group} after {@code waited}: its removal was not seen. */
    static Optional<Outcome> removalNotSeen(OffsetSnapshot group, String a, Duration waited, Duration session) {
        if (group.members().stream().map(GroupMember::clientId).noneMatch(a::equals)) {
            return Optional.empty();
        }
        return Optional.of(Outcome.notRun("A, frozen, was still a member of the share group " + waited.toMillis() + " ms after its hold (its share "
                + "session timeout: " + session.toMillis() + " ms): the removal was not seen"));
    }

    /**
     * What gave a frozen A's record back, as a probe member shows right after A's removal while A's lock still runs: the held
     * record itself, before the lock's end (the removal gave it back), or another one (the held one stays A's until its lock
     * runs out; measured so on Kafka 4.4: the removed member's connection is still open), or nothing that tells. A clause for
     * the redelivery's note. The probe is killed (SIGKILL) at its first acknowledgement, before it sends it: what it had
     * acquired goes back to the group as its connection closes, so B can get the held record whichever way it came back.
     */
    private static String probe(LabContext ctx, ExperimentRecorder e, BarrierPlan plan, Shares.Share s, ProcessingLine held,
            BarrierOptions options, java.time.Instant lockEnd) throws Exception {
        ctx.step("a probe member fetches at A's removal: does the broker give " + held.id() + " back now?");
        try (Held p = plan.arm(ctx, e, "probe-before-acknowledge", ctx.subjects().shareConsumer(NAME + "-P", s.topic(), s.group(), s.inbox()),
                s.group(), HoldMode.THREAD, options)) {
            Arrival at;
            try {
                at = p.awaitArrival();
            } catch (BarrierTimeoutException t) {
                e.record(HARNESS, new Payload.Note("the probe member acknowledged nothing within " + ctx.settings().timeouts().barrier()
                        + " of A's removal"));
                return "whether its removal or its lock's end gave the record back is not known (a probe member at the removal acknowledged "
                        + "nothing)";
            }
            Optional<ProcessingLine> first = ctx.subjects().processingLines(p.instance().name())
                    .flatMap(lines -> lines.stream().filter(ProcessingLine::handling).findFirst());
            p.crash();
            boolean same = first.filter(l -> l.isAbout(held.partition(), held.offset())).isPresent();
            String got = first.map(l -> l.id() + " (offset " + l.offset() + ", delivery " + l.delivery().map(String::valueOf).orElse("?") + ")")
                    .orElse("nothing its processing log names");
            boolean inTime = at.time().isBefore(lockEnd);
            e.record(Source.of(p.instance().name(), p.instance().pid(), "processing log"), new Payload.Note("at A's removal a probe member got "
                    + got + (!inTime ? ", but only after A's lock had run out: it tells removal and expiry not apart"
                            : same ? ": the removal gave " + held.id() + " back" : ": " + held.id() + " is still A's, locked")
                    + "; the probe killed before its acknowledgement"));
            if (!inTime) {
                return "whether its removal or its lock's end gave the record back is not known (a probe member got " + got + " only after the "
                        + "lock's end)";
            }
            return same ? "the record came back at A's removal (a probe member got it then)"
                    : "yet the record came back only when its lock ran out: at A's removal it was still A's (a probe member got " + got + " first)";
        } catch (PointNotReached | PointUnreachable x) {
            return "whether its removal or its lock's end gave the record back is not known (the probe: " + x.getMessage() + ")";
        }
    }

    /**
     * The group's record lock as the broker has it now, when it is not the lab's: a consumer (or its operator) that
     * configures its own group lengthens the lock the lab chose, and the held record is still A's when B starts.
     */
    private static String lockNow(LabContext ctx, String group, Duration lock) {
        String now = ctx.kafka().ops().groupConfigs(group).get("share.record.lock.duration.ms");
        return now == null || now.equals(Long.toString(lock.toMillis())) ? ""
                : "; the group's share.record.lock.duration.ms is now " + now + " ms, not the lab's " + lock.toMillis() + " ms: something else set it";
    }

    /** B's delivery of the held record as the wire saw it (delivery count 2 or more), if a witness runs. */
    private static Optional<ShareWitness.Delivery> wireDelivery(LabContext ctx, String group, String topic, ProcessingLine held, LabContext.Instance b) {
        return ctx.kafka().witness().flatMap(w -> w.share().deliveries(group, topic, held.partition(), held.offset()).stream()
                .filter(d -> b.name().equals(d.clientId()) && d.deliveryCount() >= 2).findFirst());
    }

    /** The broker's answer to A's acknowledgement of the held record, on the wire, so far; empty without a witness or an answer. */
    private static Optional<ShareWitness.Acknowledgement> wireAnswer(LabContext ctx, String group, String topic, ProcessingLine held,
            LabContext.Instance a) {
        return ctx.kafka().witness().flatMap(w -> w.share().acknowledgements(group, topic, held.partition(), held.offset()).stream()
                .filter(ack -> a.name().equals(ack.clientId()) && ack.answered() != null).findFirst());
    }

    /** A's processing-log line with its acknowledgement's outcome for the held record, so far. */
    private static Optional<ProcessingLine> ackLine(LabContext ctx, LabContext.Instance a, ProcessingLine held) {
        return ctx.subjects().processingLines(a.name()).flatMap(lines -> lines.stream()
                .filter(l -> l.isAbout(held.partition(), held.offset()) && l.acknowledgement()).findFirst());
    }

    /**
     * The record an instance held on the wire is acknowledging: the held request's first acknowledged offset, its delivery
     * count to that instance on the wire, and its id and outcome from the instance's processing log when it keeps one.
     */
    private static Optional<ProcessingLine> acknowledged(LabContext ctx, Arrival arrival, LabContext.Instance i, String topic) {
        Optional<io.replaylab.barrier.CommitOffset> acked = arrival.offsets().stream().filter(o -> o.topic().equals(topic)).findFirst();
        if (acked.isEmpty()) {
            return Optional.empty();
        }
        int partition = acked.get().partition();
        long offset = acked.get().offset();
        String group = arrival.facts().requester().map(Arrival.Requester::group).orElse("");
        Integer count = ctx.kafka().witness().flatMap(w -> w.share().deliveries(group, topic, partition, offset).stream()
                .filter(d -> i.name().equals(d.clientId())).map(ShareWitness.Delivery::deliveryCount).max(Integer::compare)).orElse(null);
        Optional<ProcessingLine> logged = ctx.subjects().processingLines(i.name()).flatMap(lines -> lines.stream()
                .filter(l -> l.isAbout(partition, offset) && l.handling()).reduce((x, y) -> y));
        return Optional.of(new ProcessingLine(i.name(), topic, partition, offset, count, logged.map(ProcessingLine::id).orElse(topic + "-" + partition
                + "@" + offset), logged.map(ProcessingLine::result).orElse("acknowledging"), null, null));
    }
}
