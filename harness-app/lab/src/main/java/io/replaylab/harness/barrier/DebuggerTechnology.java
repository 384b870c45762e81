package io.replaylab.harness.barrier;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.IllegalBarrierMoveException;
import io.replaylab.barrier.MethodPoint;
import io.replaylab.barrier.jdi.DebuggerBarrier;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.lab.LabContext;

/**
 * A JDWP breakpoint in A's JVM at {@code at}. Some points are armed after a warm-up hold: the
 * calls A makes while it starts (its schema's DB commits) pass, and a return point, which slows
 * the whole JVM down while it is watched, is armed only then.
 */
record DebuggerTechnology(MethodPoint at, WarmUp warmUp, MethodPoint warmUpAt, String unreached, String limitation) implements Technology {
    /** When the point is armed. */
    enum WarmUp {
        /** At once: A's first call is held. */
        NONE,
        /** After A's first offset commit: held at {@code KafkaConsumer#commitSync}, or seen in the group for a timer's commit. */
        FIRST_OFFSET_COMMIT,
        /** After A's first call of {@code warmUpAt}. */
        AT_METHOD
    }

    /**
     * A point of the commit protocol, resolved to a method ({@code warmUp}: whether it comes after A's first offset commit); the
     * default DB point says, when never reached, that a consumer in autocommit mode does not call it.
     */
    static DebuggerTechnology atCommitPoint(MethodPoint at, boolean warmUp) {
        boolean jdbc = jdbcCommit(at);
        return new DebuggerTechnology(at, warmUp ? WarmUp.FIRST_OFFSET_COMMIT : WarmUp.NONE, null, "reach " + at + (jdbc ? " (a JDBC connection "
                + "in autocommit mode never calls it, each statement commits itself: hold that, e.g. java.sql.PreparedStatement#executeUpdate, "
                + "LabSettings.dbCommitPoint)" : ""),
                "The in-flight point is a debugger breakpoint at KafkaConsumer#commitSync; a subject that commits offsets another way "
                        + "(commitAsync, auto-commit) is not held there: its group's first committed offset hands its offset points to the wire "
                        + "(unless the debugger was asked for), and its DB point is armed after that commit.");
    }

    /** A method of the experiment's choosing, at its first call, or after the first call of {@code warmUpAt} (null: none). */
    static DebuggerTechnology atMethod(MethodPoint at, MethodPoint warmUpAt, String limitation) {
        return new DebuggerTechnology(at, warmUpAt == null ? WarmUp.NONE : WarmUp.AT_METHOD, warmUpAt, "call " + at, limitation);
    }

    @Override
    public Held arm(Arming a) throws InterruptedException {
        a.ctx().step("instance " + a.spec().name() + " starts under the debugger barrier (" + holdMode(a.mode()) + " hold)");
        LabContext.Instance inst = a.ctx().subjects().start(a.e(), a.spec().underDebugger());
        DebuggerBarrier debugger = null;
        try {
            debugger = DebuggerBarrier.attach(inst.process().debugPort().orElseThrow(), Duration.ofSeconds(20));
            BarrierEvidence evidence = BarrierEvidence.into(a.e(), a.spec().name(), inst::pid, a.mode().name().toLowerCase(Locale.ROOT));
            Barrier barrier = armAfterWarmUp(a, debugger, inst, evidence);
            // an offset point armed at once is passed by a consumer that commits another way: its group's first offset says so; the
            // JDBC commit point of the commit protocol by one whose statements commit themselves: its group's offsets move on while it
            // never gets there (a method an experiment names, e.g. share-crash's, is held where it was named)
            Held.PastThePoint watch = warmUp == WarmUp.NONE && offsetPoint() ? Held.PastThePoint.offsets(a.group())
                    : warmUp == WarmUp.FIRST_OFFSET_COMMIT && jdbcCommit(at)
                            ? Held.PastThePoint.dbCommits(a.group(), at.describe(), Held.committed(a.ctx(), a.group()).orElse("")) : null;
            // a DB point is watched too (a consumer that hangs after its warm-up never reaches its next DB commit); a method an
            // experiment names is not a point of the commit protocol
            Uncommitted where = Uncommitted.of(a);
            return new Held("debugger", a, inst, barrier, evidence, "a debugger breakpoint at " + at, unreached, Hold.process(inst, debugger),
                    watch, offsetPoint() ? where : null, offsetPoint() || warmUp == WarmUp.FIRST_OFFSET_COMMIT ? where : null, false);
        } catch (RuntimeException | InterruptedException | Error x) {
            try {
                if (debugger != null) {
                    debugger.close();
                }
            } catch (RuntimeException closing) {
                x.addSuppressed(closing);
            } finally {
                Held.stop(a.ctx(), a.e(), List.of(inst)); // nothing of a try that did not arm stays running
            }
            throw x;
        }
    }

    private Barrier armAfterWarmUp(Arming a, DebuggerBarrier debugger, LabContext.Instance inst, BarrierEvidence evidence)
            throws InterruptedException {
        return switch (warmUp) {
            case NONE -> {
                Barrier barrier = debugger.arm(a.pointName(), at, a.mode(), evidence, a.options());
                debugger.resumeProgram(); // A was launched suspended: it runs only now that its first call will be held
                yield barrier;
            }
            case AT_METHOD -> afterMethod(a, debugger, inst, evidence);
            case FIRST_OFFSET_COMMIT -> afterFirstOffsetCommit(a, debugger, inst, evidence);
        };
    }

    private Barrier afterMethod(Arming a, DebuggerBarrier debugger, LabContext.Instance inst, BarrierEvidence evidence) throws InterruptedException {
        Barrier first = debugger.arm("warm-up", warmUpAt, a.mode(), evidence, a.options());
        debugger.resumeProgram();
        try {
            Held.awaitArrival(a.ctx(), first, inst, null);
        } catch (BarrierTimeoutException t) {
            throw new PointNotReached("call " + warmUpAt + " (the warm-up)");
        }
        Barrier barrier = debugger.arm(a.pointName(), at, a.mode(), evidence, a.options());
        first.release();
        return barrier;
    }

    private Barrier afterFirstOffsetCommit(Arming a, DebuggerBarrier debugger, LabContext.Instance inst, BarrierEvidence evidence)
            throws InterruptedException {
        Barrier first = debugger.arm("warm-up", MethodPoint.kafkaCommitSync(), a.mode(), evidence, a.options());
        debugger.resumeProgram();
        boolean heldAtCommitSync;
        try {
            heldAtCommitSync = awaitWarmUpOrCommit(a.ctx(), first, inst, a.group(), Uncommitted.of(a));
        } catch (BarrierTimeoutException t) {
            throw new PointNotReached("commit an offset of group " + a.group() + " (the warm-up: its first commit, held at "
                    + "KafkaConsumer#commitSync or seen in the group)");
        } catch (PointUnreachable noOffsetCommit) {
            if (offsetPoint()) {
                throw noOffsetCommit;
            }
            Barrier barrier = debugger.arm(a.pointName(), at, a.mode(), evidence, a.options());
            a.e().record(Source.here("harness"), new Payload.Note("the warm-up: " + noOffsetCommit.getMessage() + "; A's start-up is behind it, so "
                    + a.pointName() + " is armed now"));
            return barrier;
        }
        if (!heldAtCommitSync && offsetPoint()) {
            throw new CommitsAnotherWay(BarrierPlan.Why.COMMITS_PAST_THE_DEBUGGER, "A committed offsets of group " + a.group() + " (" + Held.committed(a.ctx(), a.group()).orElse("seen in the group")
                    + ") without reaching KafkaConsumer#commitSync: it commits another way (commitAsync, its client's auto-commit timer), which "
                    + "a debugger breakpoint at " + at + " does not hold");
        }
        Barrier barrier = debugger.arm(a.pointName(), at, a.mode(), evidence, a.options());
        if (heldAtCommitSync) {
            first.release();
        } else {
            // an auto-committing consumer never calls commitSync: its timer's first commit ends the warm-up instead
            a.e().record(Source.here("harness"), new Payload.Note("the warm-up: group " + a.group() + " got its first committed offset "
                    + "without A calling KafkaConsumer#commitSync (a timer's or an async commit); " + a.pointName() + " is armed while A runs"));
        }
        return barrier;
    }

    /**
     * A warm-up's wait: true when A arrived at the warm-up hold, false when the group got a committed
     * offset without it (A commits another way: its client's timer, commitAsync): then the warm-up is
     * given up, since A's start-up is behind it either way.
     *
     * @throws PointUnreachable A applied every record's effect and committed no offset: the warm-up is given up too
     */
    private static boolean awaitWarmUpOrCommit(LabContext ctx, Barrier warmUp, LabContext.Instance a, String group, Uncommitted uncommitted)
            throws InterruptedException {
        boolean[] committed = {false};
        boolean[] over = {false};
        Uncommitted.Looks looks = uncommitted.looks(ctx);
        Stall stall = new Stall(ctx, uncommitted, a, "its first offset commit (the warm-up)");
        Optional<Arrival> arrived = Poll.every(Duration.ZERO).upTo(Stall.longest(ctx)).until(() -> {
            Optional<Arrival> got = warmUp.tryAwaitArrival(Duration.ofMillis(250));
            if (got.isPresent()) {
                return got;
            }
            ctx.subjects().checkpointHeld(a);
            Uncommitted.Seen seen = Held.stallAt(warmUp, stall); // one reading for both: the stall's
            Optional<String> never = looks.look(seen);
            if (never.isPresent()) {
                try {
                    warmUp.expire();
                    throw new PointUnreachable(never.get() + ", so there is no offset commit to hold");
                } catch (IllegalBarrierMoveException arrivedAtTheLastMoment) {
                    return warmUp.tryAwaitArrival(Duration.ZERO);
                }
            }
            if (Held.carriesARecord(ctx.kafka().ops().describe(group))) { // a commit of 0 the warm-up passed shows nothing
                try {
                    warmUp.expire();
                    committed[0] = true;
                    return Optional.<Arrival>empty();
                } catch (IllegalBarrierMoveException arrivedAtTheLastMoment) {
                    return warmUp.tryAwaitArrival(Duration.ZERO);
                }
            }
            over[0] = stall.over();
            return warmUp.tryAwaitArrival(Duration.ZERO);
        }, got -> got.isPresent() || committed[0] || over[0]);
        if (committed[0]) {
            return false;
        }
        if (arrived.isPresent()) {
            return true;
        }
        warmUp.awaitArrival(Duration.ofNanos(1)); // throws the barrier's timeout
        return true;
    }

    /** Whether {@code at} is the JDBC commit (its entry or return), which statements that commit themselves never reach. */
    static boolean jdbcCommit(MethodPoint at) {
        return at.equals(MethodPoint.jdbcCommit()) || at.equals(MethodPoint.jdbcCommit().onReturn());
    }

    /** Whether the point is KafkaConsumer#commitSync or its return, which a consumer that commits another way never reaches. */
    private boolean offsetPoint() {
        return at.equals(MethodPoint.kafkaCommitSync()) || at.equals(MethodPoint.kafkaCommitSync().onReturn());
    }

    @Override
    public String holdMode(HoldMode asked) {
        return asked.name().toLowerCase(Locale.ROOT);
    }
}
