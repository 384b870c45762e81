package io.replaylab.harness.barrier;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.MethodPoint;
import io.replaylab.barrier.NativePoint;
import io.replaylab.barrier.PgPoint;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.process.Platform;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.InstanceSpec;
import io.replaylab.harness.lab.LabContext;

/**
 * Which technology holds instance A at a point, why, and how it is armed: a JVM debugger
 * breakpoint, the Kafka protocol proxy, or gdb in a program that is not a JVM (the wire cannot see a
 * DB commit). This class alone chooses, for every point, share acknowledgements and fallbacks
 * included; experiments talk to the plan and the {@link Held} point it arms and never name a
 * technology (an architecture test holds them to it). A new technology is a {@link Technology} of
 * this package and the line here that chooses it.
 *
 * <pre>{@code
 * BarrierPlan plan = BarrierPlan.of(ctx, CommitPoint.BEFORE_OFFSET_COMMIT);
 * try (Held at = plan.arm(ctx, e, "offset-commit", ctx.subjects().consumer("A", topic, group, inbox), group, HoldMode.THREAD, options)) {
 *     Arrival arrival = at.awaitArrival();
 *     ...
 * }
 * }</pre>
 */
public final class BarrierPlan {
    /** Why a plan holds A the way it does. */
    public enum Why {
        /** The run's barrier, for its own reason ({@link BarrierKind.Choice}). */
        THE_RUNS_CHOICE,
        /** A DB commit of a program the run holds on the wire, which sees only the Kafka protocol: gdb holds it. */
        DB_POINT_OFF_THE_WIRE,
        /** A DB commit of a program the run holds on the wire, on a PostgreSQL target: the PostgreSQL proxy holds it. */
        DB_POINT_ON_THE_DATABASE_WIRE,
        /** The debugger held A's commit but could not read its offsets; the wire reads every request. */
        OFFSETS_UNREADABLE_BY_THE_DEBUGGER,
        /** A commits its offsets without KafkaConsumer#commitSync (commitAsync, an auto-commit timer); the wire holds every OffsetCommit. */
        COMMITS_PAST_THE_DEBUGGER,
        /**
         * A's client gave up its OffsetCommit held on the wire (its own request timeout ran out before the partition moved), so no
         * stale commit could follow: the wire holds the commit again with A frozen, whose clock stops with it.
         */
        CLIENT_GAVE_UP_THE_HELD_COMMIT,
        /**
         * A's database work commits without {@code java.sql.Connection#commit} (statements that commit themselves, a connection
         * in autocommit mode): its group's offsets moved on while A never reached it; the debugger holds the statement instead.
         */
        DB_COMMITS_PAST_THE_DEBUGGER,
        /** A share consumer that is not a JVM: only the wire reaches its acknowledgement. */
        SHARE_CONSUMER_NOT_A_JVM,
        /** A method of a JVM that the experiment names. */
        THE_EXPERIMENTS_METHOD
    }

    /** Why a program that is not a JVM, on SQLite, has no after-db-commit point. */
    static final String AFTER_SQLITE_COMMIT = "not reachable for a subject that is not a JVM on a SQLite target: gdb holds the SQLite commit where "
            + "it starts (sqlite3_step of a COMMIT), not where it returns; on a PostgreSQL target the PostgreSQL proxy holds the answer to any "
            + "client's COMMIT";

    /** Where a JVM whose statements commit themselves (a JDBC connection in autocommit mode) commits its database work. */
    public static final MethodPoint STATEMENT_UPDATE = MethodPoint.parse("java.sql.PreparedStatement#executeUpdate");

    /** Where a JVM's share consumer acknowledges a record explicitly. */
    public static final MethodPoint SHARE_ACKNOWLEDGE = MethodPoint.parse("org.apache.kafka.clients.consumer.KafkaShareConsumer#acknowledge");

    private final Technology technology;
    private final Why why;
    private final String display;
    private final Optional<String> unavailable;
    private final Fallback fallback;

    /**
     * What replaces this plan where it cannot make its hazard: {@code wire}, aimed at the same offset point, when it may replace
     * the debugger (else null, and {@code noWire} says why), with why the run chose the debugger first (for the display);
     * {@code statement}, the debugger at the statement, for the JDBC commit (else null); and the machine A runs on, which says
     * whether A can be held whole on the wire ({@link Why#CLIENT_GAVE_UP_THE_HELD_COMMIT}).
     */
    private record Fallback(WireTechnology wire, String firstChoice, String noWire, DebuggerTechnology statement, Platform platform) {
        static Fallback none(Platform platform) {
            return new Fallback(null, null, "the only one", null, platform);
        }
    }

    private BarrierPlan(Technology technology, Why why, String display, Optional<String> unavailable, Fallback fallback) {
        this.technology = technology;
        this.why = why;
        this.display = display;
        this.unavailable = unavailable;
        this.fallback = fallback;
    }

    private static BarrierPlan plain(Technology technology, Why why, String display, LabContext ctx) {
        return new BarrierPlan(technology, why, display, unavailable(technology, ctx), Fallback.none(ctx.settings().platform()));
    }

    /**
     * The technology for {@code point} in this run: its choice, except that a program held on the wire
     * is held at its DB commit by gdb; a JVM whose offset commit the debugger cannot read falls back to
     * the wire ({@link #fallback}) unless the debugger was asked for or the run has no proxy.
     */
    public static BarrierPlan of(LabContext ctx, CommitPoint point) {
        Objects.requireNonNull(point, "point");
        BarrierKind.Choice choice = ctx.settings().barrier().choice();
        boolean dbPoint = point == CommitPoint.BEFORE_DB_COMMIT || point == CommitPoint.AFTER_DB_COMMIT;
        if (choice.kind() == BarrierKind.WIRE) {
            if (dbPoint && ctx.target().wire().isPresent()) {
                return plain(new PgTechnology(point == CommitPoint.BEFORE_DB_COMMIT ? PgPoint.Edge.REQUEST : PgPoint.Edge.ANSWER),
                        Why.DB_POINT_ON_THE_DATABASE_WIRE, "postgresql (A's COMMIT" + (point == CommitPoint.AFTER_DB_COMMIT ? "'s answer" : "")
                        + " held in the PostgreSQL proxy: the DB point of a subject held on the wire, any client)", ctx);
            }
            if (point == CommitPoint.AFTER_DB_COMMIT) {
                return new BarrierPlan(new NativeTechnology(NativePoint.sqliteCommit()), Why.DB_POINT_OFF_THE_WIRE, "none", Optional.of(AFTER_SQLITE_COMMIT),
                        Fallback.none(ctx.settings().platform()));
            }
            if (point == CommitPoint.BEFORE_DB_COMMIT) {
                return plain(new NativeTechnology(NativePoint.sqliteCommit()), Why.DB_POINT_OFF_THE_WIRE, "native (gdb at " + NativePoint.sqliteCommit()
                        + ": the DB point of a subject that is not a JVM, which the wire barrier cannot see)", ctx);
            }
            return plain(onTheWire(point), Why.THE_RUNS_CHOICE, choice.display(), ctx);
        }
        DebuggerTechnology debugger = switch (point) {
            case BEFORE_DB_COMMIT -> DebuggerTechnology.atCommitPoint(ctx.settings().barrier().dbCommitPoint(), true);
            case AFTER_DB_COMMIT -> DebuggerTechnology.atCommitPoint(ctx.settings().barrier().dbCommitPoint().onReturn(), true);
            case BEFORE_OFFSET_COMMIT -> DebuggerTechnology.atCommitPoint(MethodPoint.kafkaCommitSync(), false);
            case AFTER_OFFSET_COMMIT -> DebuggerTechnology.atCommitPoint(MethodPoint.kafkaCommitSync().onReturn(), true);
        };
        boolean proxy = ctx.kafka().wire().isPresent();
        boolean offsets = !dbPoint;
        boolean wire = offsets && proxy && choice.reason() != BarrierKind.Reason.ASKED_FOR;
        // warmed up at its own first call: by the time a try falls back here, A may have read every record before an offset commit
        DebuggerTechnology statement = dbPoint && DebuggerTechnology.jdbcCommit(debugger.at()) ? DebuggerTechnology.atMethod(
                point == CommitPoint.BEFORE_DB_COMMIT ? STATEMENT_UPDATE : STATEMENT_UPDATE.onReturn(), STATEMENT_UPDATE, "The in-flight point is "
                        + "a debugger breakpoint at " + STATEMENT_UPDATE + (point == CommitPoint.AFTER_DB_COMMIT ? " (on return)" : "") + ", armed "
                        + "after A's first call of it: a statement that commits itself in autocommit mode.") : null;
        Fallback fallback = new Fallback(wire ? onTheWire(point) : null, choice.why(), proxy ? "asked for"
                : "the only one: the run has no wire proxy (LabSettings.witness false)", statement, ctx.settings().platform());
        return new BarrierPlan(debugger, Why.THE_RUNS_CHOICE, choice.display(), unavailable(debugger, ctx), fallback);
    }

    private static WireTechnology onTheWire(CommitPoint point) {
        return new WireTechnology(point == CommitPoint.AFTER_OFFSET_COMMIT ? WireTechnology.Aim.OFFSET_COMMIT_ANSWER : WireTechnology.Aim.OFFSET_COMMIT);
    }

    /** Every point's plan in one line for the evidence: the run's barrier, and each point another technology holds, and why. */
    public static String overview(LabContext ctx) {
        return ctx.settings().barrier().choice().display() + Arrays.stream(CommitPoint.values()).map(p -> Map.entry(p, of(ctx, p)))
                // a point no technology reaches here is left out: its cell, if one is named, says why
                .filter(p -> (p.getValue().why == Why.DB_POINT_OFF_THE_WIRE || p.getValue().why == Why.DB_POINT_ON_THE_DATABASE_WIRE)
                        && p.getValue().unavailable.isEmpty())
                .map(p -> "; " + p.getKey().id() + ": " + (p.getValue().why == Why.DB_POINT_OFF_THE_WIRE
                        ? "native (gdb at the SQLite commit), which the wire barrier cannot see"
                        : "the PostgreSQL proxy (the COMMIT" + (p.getKey() == CommitPoint.AFTER_DB_COMMIT ? "'s answer" : "") + " on its connection)"))
                .collect(Collectors.joining());
    }

    /** A debugger breakpoint at any method of a JVM subject (e.g. a transactional producer's commit), held at the first call. */
    public static BarrierPlan debuggerAt(MethodPoint method) {
        Objects.requireNonNull(method, "method");
        return new BarrierPlan(DebuggerTechnology.atMethod(method, null, "The in-flight point is a debugger breakpoint at " + method + "."),
                Why.THE_EXPERIMENTS_METHOD, "debugger at " + method, Optional.empty(), Fallback.none(Platform.host()));
    }

    /**
     * A debugger breakpoint at {@code method}, armed only once A has been held at {@code warmUpAt} (and let go): the calls
     * A makes while it starts (e.g. a DB commit that creates its schema) pass, its next one is held.
     */
    public static BarrierPlan debuggerAt(MethodPoint method, MethodPoint warmUpAt) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(warmUpAt, "warmUpAt");
        return new BarrierPlan(DebuggerTechnology.atMethod(method, warmUpAt, "The in-flight point is a debugger breakpoint at " + method
                + ", armed after A's first call of " + warmUpAt + "."), Why.THE_EXPERIMENTS_METHOD, "debugger at " + method + " (after a warm-up at "
                + warmUpAt + ")", Optional.empty(), Fallback.none(Platform.host()));
    }

    /**
     * A share group's acknowledgement (KIP-932), before it reaches the broker: for a JVM on the debugger barrier a
     * breakpoint at {@code KafkaShareConsumer#acknowledge} (its explicit acknowledgement, after what it did with the
     * record), for any other client, or a run on the wire barrier, the request that carries it held on the wire.
     */
    public static BarrierPlan shareAcknowledgement(LabContext ctx, boolean jvm) {
        BarrierKind.Choice choice = ctx.settings().barrier().choice();
        if (jvm && choice.kind() == BarrierKind.DEBUGGER) {
            boolean whole = ctx.settings().barrier().holdMode() == HoldMode.PROCESS;
            return new BarrierPlan(DebuggerTechnology.atMethod(SHARE_ACKNOWLEDGE, null, "The in-flight point is the entry of KafkaShareConsumer#acknowledge "
                    + "in A (after its DB transaction, before the acknowledgement reaches the broker); a share consumer that acknowledges implicitly "
                    + "(by its next poll) is not held there."), Why.THE_RUNS_CHOICE, "debugger at " + SHARE_ACKNOWLEDGE + (whole
                    ? " (whole-JVM hold: A frozen, its heartbeats too)" : " (thread hold: A's other threads, its heartbeats too, run on)"),
                    Optional.empty(), Fallback.none(ctx.settings().platform()));
        }
        Technology wire = new WireTechnology(WireTechnology.Aim.SHARE_ACKNOWLEDGEMENT);
        Optional<String> unavailable = ctx.kafka().wire().isPresent() ? Optional.empty() : Optional.of("the share consumer " + (jvm
                ? "is to be held on the wire" : "is not a JVM (no debugger can hold it)") + ", and this run has no wire proxy to hold its "
                + "acknowledgement (LabSettings.witness(false))");
        return new BarrierPlan(wire, jvm ? Why.THE_RUNS_CHOICE : Why.SHARE_CONSUMER_NOT_A_JVM,
                "wire: A's acknowledgement request (ShareAcknowledge, or a ShareFetch carrying one) held in the proxy", unavailable,
                Fallback.none(ctx.settings().platform()));
    }

    private static Optional<String> unavailable(Technology technology, LabContext ctx) {
        return technology.unavailableOn(ctx.settings().platform());
    }

    /** What the evidence's environment calls the barrier. */
    public String display() {
        return display;
    }

    /** Why A is held this way. */
    public Why why() {
        return why;
    }

    /** The hold mode as the evidence names it (a wire hold is the connection's whatever was asked). */
    public String holdMode(HoldMode asked) {
        return technology.holdMode(asked);
    }

    /** The hold mode this plan uses when {@code asked} was asked for: the wire and gdb hold one thread (or connection) only. */
    public HoldMode mode(HoldMode asked) {
        return technology.mode(asked);
    }

    /** What the evidence says of the point held this way; a fallback's first says why it replaced the plan before it. */
    public String limitation() {
        String instead = switch (why) {
            case OFFSETS_UNREADABLE_BY_THE_DEBUGGER -> "The debugger could not read what A commits, so the wire barrier replaced it: the "
                    + "limitation about commitSync holds for that first try only. ";
            case COMMITS_PAST_THE_DEBUGGER -> "A commits its offsets without KafkaConsumer#commitSync, so the wire barrier replaced the "
                    + "debugger: the limitation about commitSync holds for that first try only. ";
            case CLIENT_GAVE_UP_THE_HELD_COMMIT -> "A's client gave up its commit held on the wire before the partition moved (its own "
                    + "request timeout), so no stale commit could follow; the next try held the commit with A frozen, as a GC pause would. ";
            case DB_COMMITS_PAST_THE_DEBUGGER -> "A's statements commit themselves (a JDBC connection in autocommit mode): it never "
                    + "reached java.sql.Connection#commit while its group's offsets moved on, so the debugger holds its statement instead. ";
            case THE_RUNS_CHOICE, DB_POINT_OFF_THE_WIRE, DB_POINT_ON_THE_DATABASE_WIRE, SHARE_CONSUMER_NOT_A_JVM, THE_EXPERIMENTS_METHOD -> "";
        };
        return instead + technology.limitation();
    }

    /** Why this run cannot hold A this way (the machine, a missing proxy), or empty. */
    public Optional<String> unavailable() {
        return unavailable;
    }

    /**
     * The plan that takes over when this one cannot make its hazard ({@code why}): the wire when the debugger held A's commit
     * but could not read its offsets, or A commits past it ({@link CommitsAnotherWay}), unless the debugger was asked for or the
     * run has no proxy; the wire with A frozen when A's client gave up its commit held there, unless the machine cannot
     * freeze. Empty, and {@link #noFallback} says why, otherwise.
     */
    public Optional<BarrierPlan> fallback(Why why) {
        return switch (why) {
            case OFFSETS_UNREADABLE_BY_THE_DEBUGGER, COMMITS_PAST_THE_DEBUGGER -> Optional.ofNullable(fallback.wire()).map(w -> new BarrierPlan(w, why,
                    "wire (fallback: " + (why == Why.OFFSETS_UNREADABLE_BY_THE_DEBUGGER ? "the debugger could not read the offsets A commits"
                            : "A commits its offsets without KafkaConsumer#commitSync, where the debugger holds them") + "; " + fallback.firstChoice()
                            + ")", Optional.empty(), Fallback.none(fallback.platform())));
            case DB_COMMITS_PAST_THE_DEBUGGER -> Optional.ofNullable(fallback.statement()).map(d -> new BarrierPlan(d, why, "debugger at "
                    + d.at() + " (fallback: A's statements commit themselves, it never reached java.sql.Connection#commit; "
                    + fallback.firstChoice() + ")", Optional.empty(), Fallback.none(fallback.platform())));
            case CLIENT_GAVE_UP_THE_HELD_COMMIT -> wholeOnTheWire().filter(w -> w.unavailableOn(fallback.platform()).isEmpty()).map(w -> new BarrierPlan(w, why,
                    "wire, A frozen at the hold (fallback: A's client gave up its commit held on the wire, its own request timeout; "
                            + display + " before)", Optional.empty(), Fallback.none(fallback.platform())));
            case THE_RUNS_CHOICE, DB_POINT_OFF_THE_WIRE, DB_POINT_ON_THE_DATABASE_WIRE, SHARE_CONSUMER_NOT_A_JVM, THE_EXPERIMENTS_METHOD ->
                    throw new IllegalArgumentException("not a reason to fall back: " + why);
        };
    }

    /** This plan's wire technology holding A's OffsetCommit with A frozen, where it holds the request alone now. */
    private Optional<WireTechnology> wholeOnTheWire() {
        return technology instanceof WireTechnology w && w.aim() == WireTechnology.Aim.OFFSET_COMMIT && !w.whole()
                ? Optional.of(new WireTechnology(w.aim(), true)) : Optional.empty();
    }

    /** Why there is no {@link #fallback} for {@code why}: "asked for", "the only one: …", or why A cannot be frozen. */
    public String noFallback(Why why) {
        if (why == Why.DB_COMMITS_PAST_THE_DEBUGGER) {
            return "the only one: the statement fallback is for the default JDBC commit point";
        }
        if (why != Why.CLIENT_GAVE_UP_THE_HELD_COMMIT) {
            return fallback.noWire();
        }
        if (technology instanceof WireTechnology w && w.whole()) {
            return "A was held whole already";
        }
        return wholeOnTheWire().flatMap(w -> w.unavailableOn(fallback.platform())).orElse("the barrier holds no request of A on the wire");
    }

    /**
     * Starts instance {@code spec} and arms the point, named {@code pointName} in the evidence
     * ({@code group}: the group whose requests a wire point holds). The DB point and the return point
     * get a warm-up first (a hold at A's first offset commit): the transactions A runs while starting
     * do not count, and a return point is armed only then, since watching returns slows a JVM down.
     *
     * @throws PointNotReached A never reached a warm-up (everything of the try is stopped)
     * @throws PointUnreachable the point cannot be armed on this subject
     */
    public Held arm(LabContext ctx, ExperimentRecorder e, String pointName, InstanceSpec spec, String group, HoldMode mode, BarrierOptions options)
            throws InterruptedException {
        return technology.arm(new Technology.Arming(ctx, e, pointName, spec, group, mode, options));
    }

    @Override
    public String toString() {
        return display;
    }
}
