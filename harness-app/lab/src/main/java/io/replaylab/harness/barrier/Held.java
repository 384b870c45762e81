package io.replaylab.harness.barrier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.IllegalBarrierMoveException;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.LabStoppedException;
import io.replaylab.harness.lab.SubjectExitedException;
import io.replaylab.harness.lab.SubjectFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Instance A with its point armed ({@link BarrierPlan#arm}): one shape whatever holds it, what
 * differs kept in the technology's {@link Hold}. Closing it releases a held point (a program never
 * stays held), detaches any debugger and stops the instances it was given (A and those
 * {@link #alsoStop started beside it}).
 */
public final class Held implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Held.class);

    private final String technology;
    private final LabContext ctx;
    private final ExperimentRecorder e;
    private final String pointName;
    private final LabContext.Instance instance;
    private final Barrier barrier;
    private final BarrierEvidence evidence;
    private final String heldBy;
    private final String unreached;
    private final Hold hold;
    /** The group whose committed offsets show A going past a debugger's point without reaching it, and what that means; or null. */
    private final PastThePoint watch;
    /** What shows A will never commit an offset of its group, for a point that waits for one; or null. */
    private final Uncommitted uncommitted;
    /** Where A's progress is read while it is waited for (its group, topic and inbox); null: not watched. */
    private final Uncommitted progress;
    /** A is frozen once it arrives, and stays so until {@link #thaw}: held whole where the technology holds only a request. */
    private final boolean freezeAtArrival;
    /** The instances to stop when this ends: a registry, not the point's state. */
    private final List<LabContext.Instance> running = new CopyOnWriteArrayList<>();

    Held(String technology, Technology.Arming a, LabContext.Instance instance, Barrier barrier, BarrierEvidence evidence, String heldBy,
            String unreached, Hold hold) {
        this(technology, a, instance, barrier, evidence, heldBy, unreached, hold, null, null, Uncommitted.of(a), false);
    }

    /**
     * What A's group shows when A goes past a debugger's point without reaching it: for the offset point ({@code offsets}), a
     * committed offset past 0 ({@link #carriesARecord}); for the DB point, its committed offsets moving on with A not at the point {@link #DB_POINT_GRACE} later (a
     * record's offset is committed after its DB work, so a consumer whose DB work went through the point would be held there).
     */
    record PastThePoint(String group, BarrierPlan.Why why, String point, String armedAt) {
        /**
         * How long after A's group committed offsets again A must have reached the DB point: a consumer that commits its offset first
         * reaches its DB commit within milliseconds after; one whose DB work went past the point never does.
         */
        static final Duration DB_POINT_GRACE = Duration.ofSeconds(2);

        static PastThePoint offsets(String group) {
            return new PastThePoint(group, BarrierPlan.Why.COMMITS_PAST_THE_DEBUGGER, "KafkaConsumer#commitSync", "");
        }

        /** {@code armedAt}: the group's committed offsets when the point was armed ({@link #committed}; empty: none). */
        static PastThePoint dbCommits(String group, String point, String armedAt) {
            return new PastThePoint(group, BarrierPlan.Why.DB_COMMITS_PAST_THE_DEBUGGER, point, armedAt);
        }
    }

    /**
     * {@code watch}: what shows A going past the point (null: nothing watched); {@code uncommitted}: what shows A never commits an
     * offset, for a point that waits for one (null: not watched); {@code progress}: where A's progress is read while it is waited
     * for, at a point of the commit protocol (null: not watched); {@code freezeAtArrival}: A is frozen the moment it arrives.
     */
    Held(String technology, Technology.Arming a, LabContext.Instance instance, Barrier barrier, BarrierEvidence evidence, String heldBy,
            String unreached, Hold hold, PastThePoint watch, Uncommitted uncommitted, Uncommitted progress, boolean freezeAtArrival) {
        this.technology = technology;
        this.ctx = a.ctx();
        this.e = a.e();
        this.pointName = a.pointName();
        this.instance = instance;
        this.barrier = barrier;
        this.evidence = evidence;
        this.heldBy = heldBy;
        this.unreached = unreached;
        this.hold = hold;
        this.watch = watch;
        this.uncommitted = uncommitted;
        this.progress = progress;
        this.freezeAtArrival = freezeAtArrival;
        running.add(instance);
    }

    public LabContext.Instance instance() {
        return instance;
    }

    public Barrier barrier() {
        return barrier;
    }

    /** The point's evidence: its arrival and the held call's outcome as events. */
    public BarrierEvidence evidence() {
        return evidence;
    }

    /** What holds A, e.g. "a debugger breakpoint at …". */
    public String heldBy() {
        return heldBy;
    }

    /** What A did not do when the point was never reached ("A did not " + this). */
    public String unreached() {
        return unreached;
    }

    /** Why A was not held: it did not reach the point within the run's barrier timeout (a NOT_RUN's reason; a caller may add a hint). */
    public String neverReached() {
        return neverReached(ctx, "", unreached);
    }

    /**
     * The NOT_RUN reason of a point A did not reach within the run's barrier timeout: "the injection point [point] was never
     * reached: A did not {@code what} within …" ({@code point} empty: the experiment has one).
     */
    public static String neverReached(LabContext ctx, String point, String what) {
        return "the injection point " + (point.isEmpty() ? "" : point + " ") + "was never reached: A did not " + what + " within "
                + ctx.settings().timeouts().barrier();
    }

    /** Stops {@code other} too when this ends (e.g. B, started beside A). */
    public void alsoStop(LabContext.Instance other) {
        running.add(other);
    }

    /** The instances stopped when this ends: A (unless it crashed) and those {@link #alsoStop started beside it}. */
    public List<LabContext.Instance> running() {
        return List.copyOf(running);
    }

    /**
     * Waits for A at the point, up to the run's barrier timeout, checking A on the way: an A that
     * exited, or a run stopped, ends the wait (the barrier expires, so the evidence shows the point
     * was never reached). An A whose timeouts were read on the wire and that applies and commits
     * nothing is waited for past the barrier timeout, until its own timeouts judge it ({@link Stall}).
     *
     * @throws io.replaylab.barrier.BarrierTimeoutException A did not arrive in time
     * @throws SubjectFailedException A stalled on its way to the point, effects missing, longer than its timeouts allow
     * @throws CommitsAnotherWay A's group got a committed offset while A had not reached a debugger's offset point, or its
     *     offsets moved on while A did not reach the JDBC commit ({@link CommitsAnotherWay#why()} says which)
     * @throws PointUnreachable the point waits for an offset commit, and A applied every record's effect without one; or, held on the
     *     wire, A's group has committed offsets that no OffsetCommit through the proxy made (A was given another address)
     */
    public Arrival awaitArrival() throws InterruptedException {
        Arrival arrival = awaitArrival(ctx, barrier, instance, watch, uncommitted, progress);
        if (freezeAtArrival) {
            freeze();
        }
        return arrival;
    }

    /**
     * A warm-up's wait, as {@link #awaitArrival()}.
     *
     * @throws PointUnreachable {@code uncommitted} (when not null) saw A apply every record's effect without an offset commit
     */
    static Arrival awaitArrival(LabContext ctx, Barrier barrier, LabContext.Instance a, Uncommitted uncommitted) throws InterruptedException {
        return awaitArrival(ctx, barrier, a, null, uncommitted, uncommitted);
    }

    /** {@code progress}: where A's progress is read for its stall watch (null: none; with {@code uncommitted}, the same). */
    private static Arrival awaitArrival(LabContext ctx, Barrier barrier, LabContext.Instance a, PastThePoint watch, Uncommitted uncommitted,
            Uncommitted progress) throws InterruptedException {
        Uncommitted.Looks looks = uncommitted == null ? null : uncommitted.looks(ctx);
        List<String> seen = new ArrayList<>(); // the group's committed offsets, each time they moved since the point was armed
        if (watch != null && !watch.armedAt().isEmpty()) {
            seen.add(watch.armedAt());
        }
        long[] movedAt = {0};
        // past the barrier timeout only while A, its own timeouts known, makes no progress: its stall is judged at their end
        Stall stall = progress == null ? null : new Stall(ctx, progress, a, barrier.point());
        boolean[] over = {false};
        Optional<Arrival> arrived = Poll.every(Duration.ZERO).upTo(stall == null ? ctx.settings().timeouts().barrier() : Stall.longest(ctx)).until(() -> {
            Optional<Arrival> got = barrier.tryAwaitArrival(Duration.ofMillis(250));
            if (got.isEmpty() && watch != null) {
                Optional<String> committed;
                boolean carried; // some partition's committed offset is past 0
                try {
                    io.replaylab.kafka.OffsetSnapshot group = ctx.kafka().ops().describe(watch.group());
                    committed = committed(group);
                    carried = carriesARecord(group);
                } catch (RuntimeException unreadable) { // a describe that failed says nothing of A: look again at the next turn
                    committed = Optional.empty();
                    carried = false;
                }
                committed.filter(c -> seen.isEmpty() || !seen.get(seen.size() - 1).equals(c)).ifPresent(c -> {
                    seen.add(c);
                    if (seen.size() == 2) {
                        movedAt[0] = System.nanoTime(); // the first move since the point was armed
                    }
                });
                boolean past = watch.why() == BarrierPlan.Why.COMMITS_PAST_THE_DEBUGGER ? carried
                        : seen.size() > 1 && System.nanoTime() - movedAt[0] >= PastThePoint.DB_POINT_GRACE.toNanos();
                if (past && expired(barrier)) {
                    throw new CommitsAnotherWay(watch.why(), watch.why() == BarrierPlan.Why.COMMITS_PAST_THE_DEBUGGER
                            ? "A committed offsets of group " + watch.group() + " (" + committed.get() + ") without reaching "
                                    + watch.point() + ": it commits another way (commitAsync, its client's auto-commit timer), which a "
                                    + "debugger breakpoint there does not hold"
                            : "A's group " + watch.group() + " committed offsets again (" + String.join(", then ", seen) + ") and A had not "
                                    + "reached " + watch.point() + " " + PastThePoint.DB_POINT_GRACE.toSeconds() + " s later: its database work commits another "
                                    + "way (statements that commit themselves, a JDBC connection in autocommit mode), which a debugger breakpoint "
                                    + "there does not hold");
                }
                got = barrier.tryAwaitArrival(Duration.ZERO);
            }
            if (got.isEmpty()) {
                try {
                    ctx.subjects().checkpointHeld(a);
                } catch (SubjectExitedException | SubjectFailedException | LabStoppedException ended) {
                    try {
                        barrier.expire(); // the evidence shows the point was never reached
                    } catch (IllegalBarrierMoveException arrivedAtTheLastMoment) {
                        // held just before: the state says so
                    }
                    throw ended;
                }
            }
            if (got.isEmpty() && stall != null) {
                Uncommitted.Seen reading = stallAt(barrier, stall); // one reading for all: the stall's
                Optional<String> round = looks == null ? Optional.empty() : looks.roundTheWire(reading);
                if (round.isPresent() && expired(barrier)) {
                    throw new PointUnreachable(round.get());
                }
                Optional<String> never = looks == null ? Optional.empty() : looks.look(reading);
                if (never.isPresent() && expired(barrier)) {
                    throw new PointUnreachable(never.get() + ", so there is no offset commit to hold");
                }
                got = barrier.tryAwaitArrival(Duration.ZERO);
            }
            over[0] = stall != null && stall.over();
            return got;
        }, got -> got.isPresent() || over[0]);
        if (arrived.isPresent()) {
            return arrived.get();
        }
        return barrier.awaitArrival(Duration.ofNanos(1));
    }

    /**
     * For a wait outside a barrier that needs A's offset commit (a wire fault's on an OffsetCommit): each call looks at most every
     * 2 s, and gives why A will never send one once A applied every record's effect without one for twice its commit interval.
     */
    public static java.util.function.Supplier<Optional<String>> neverCommits(LabContext ctx, String group, String topic, String inbox) {
        return new Uncommitted(group, topic, inbox, false).looks(ctx)::look;
    }

    /** The group's committed offsets, as {@code t-0=5, t-1=3}, when it has any. */
    static Optional<String> committed(LabContext ctx, String group) {
        return committed(ctx.kafka().ops().describe(group));
    }

    /**
     * Whether some partition of the group has a committed offset past 0, so that a commit carried a record. One of 0 everywhere
     * carries none: the debugger lets such a call of commitSync pass ({@link io.replaylab.barrier.CommitFrontier}, e.g. the
     * first commit of a consumer that commits the record it handled, not the next), so it shows nothing of how A commits.
     */
    static boolean carriesARecord(io.replaylab.kafka.OffsetSnapshot group) {
        return group.partitions().stream().anyMatch(p -> p.committed() > 0);
    }

    /** A snapshot's committed offsets, as {@code t-0=5, t-1=3}, when it has any. */
    static Optional<String> committed(io.replaylab.kafka.OffsetSnapshot group) {
        String offsets = group.partitions().stream().filter(io.replaylab.kafka.PartitionOffsets::hasCommitted)
                .map(p -> p.ref() + "=" + p.committed()).collect(java.util.stream.Collectors.joining(", "));
        return offsets.isEmpty() ? Optional.empty() : Optional.of(offsets);
    }

    /** One look at A's progress (its reading, or null); once A stalled, the barrier expires (the evidence shows the point was never reached) and the stall is thrown. */
    static Uncommitted.Seen stallAt(Barrier barrier, Stall stall) {
        try {
            return stall.look();
        } catch (SubjectFailedException stalled) {
            if (expired(barrier)) {
                throw stalled;
            }
            return null;
        }
    }

    /** Expires a barrier not reached yet: false when A arrived at the last moment (then it holds A). */
    private static boolean expired(Barrier barrier) {
        try {
            barrier.expire();
            return true;
        } catch (IllegalBarrierMoveException arrivedAtTheLastMoment) {
            return false;
        }
    }

    /** Stops every thread of A at the point and records it (through gdb where gdb holds A, else SIGSTOP), confirmed in /proc. */
    public Event freeze() {
        Hold.Freeze f = hold.freeze();
        return e.record(Source.here("harness"), new LabEvent.Frozen(instance.name(), f.pid(), pointName, heldBy, f.by(), f.confirmed()));
    }

    /** SIGKILL to A (and first the program gdb holds, a wrapper's descendant too), recorded; A is no longer running. */
    public Event crash() {
        hold.beforeCrash();
        running.remove(instance);
        return ctx.subjects().crash(e, instance);
    }

    /** A frozen A runs again (a program never stays frozen; a debugger cannot talk to a stopped JVM). */
    public void thaw() {
        hold.thaw();
    }

    /**
     * The point's work is done: a native debugger lets the program go, untraced (it stops on SIGTERM
     * as it would without one). A JVM's debugger holds nothing now and stays attached until {@link #close}.
     */
    public void untrace() {
        hold.untrace();
    }

    /** Every debugger gone (a JVM's resumes whatever it still suspends). */
    public void detach() {
        hold.detach();
    }

    @Override
    public void close() {
        try {
            thaw();
        } catch (RuntimeException x) { // still stopped: it is stopped (SIGTERM, then SIGKILL) all the same below
            log.warn("cannot thaw {}: {}", instance.name(), x.getMessage());
        } finally {
            if (barrier.state() == BarrierState.HELD) {
                barrier.release();
            }
            detach();
            stop(ctx, e, running);
        }
    }

    /** Stops what a try that did not arm left running. */
    static void stop(LabContext ctx, ExperimentRecorder e, List<LabContext.Instance> instances) {
        for (LabContext.Instance i : instances) {
            if (i.process().isAlive()) {
                ctx.subjects().stop(e, i);
            }
        }
    }

    @Override
    public String toString() {
        return technology + " at " + pointName + " on " + instance.name();
    }
}
