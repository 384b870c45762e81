package io.replaylab.harness.barrier;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.MethodPoint;
import io.replaylab.barrier.NativePoint;
import io.replaylab.barrier.WirePoint;
import io.replaylab.barrier.gdb.NativeAttachException;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.barrier.jdi.DebuggerBarrier;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Platform;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.InstanceSpec;
import io.replaylab.harness.lab.LabContext;

/**
 * Which technology holds instance A at a point, and how it is armed: a JVM debugger breakpoint, the
 * Kafka protocol proxy, or gdb in a program that is not a JVM (the wire cannot see a DB commit).
 * Chosen once from the run's barrier choice and the point; experiments talk to the {@link Held}
 * point it arms and never name a technology (an architecture test holds them to it). A new
 * technology is a new {@code Technology} constant: its arming, its hold mode and its words are its
 * own methods, so a missing one does not compile.
 *
 * <pre>{@code
 * BarrierPlan plan = BarrierPlan.of(ctx.settings().barrier().choice(), CommitPoint.BEFORE_OFFSET_COMMIT);
 * try (Held at = plan.arm(ctx, e, "offset-commit", ctx.subjects().consumer("A", topic, group, inbox), group, HoldMode.THREAD, options)) {
 *     Arrival arrival = at.awaitArrival();
 *     ...
 * }
 * }</pre>
 */
public final class BarrierPlan {
    /** How A is held. */
    enum Technology {
        /** A JDWP breakpoint in A's JVM. */
        DEBUGGER {
            @Override
            Held arm(Arming a) throws InterruptedException {
                a.ctx.step("instance " + a.spec.name() + " starts under the debugger barrier (" + holdMode(a.mode) + " hold)");
                LabContext.Instance inst = a.ctx.subjects().start(a.e, a.spec.underDebugger());
                Held h = new Held(this, a.ctx, a.e, a.pointName, a.spec.name(), inst);
                try {
                    return armDebugger(a, h, inst);
                } catch (RuntimeException | InterruptedException | Error x) {
                    h.close(); // nothing of a try that did not arm stays: A stopped, the debugger gone
                    throw x;
                }
            }

            private Held armDebugger(Arming a, Held h, LabContext.Instance inst) throws InterruptedException {
                DebuggerBarrier debugger = DebuggerBarrier.attach(inst.process().debugPort().orElseThrow(), Duration.ofSeconds(20));
                h.source = debugger;
                BarrierEvidence evidence = BarrierEvidence.into(a.e, a.spec.name(), inst::pid, a.mode.name().toLowerCase(Locale.ROOT));
                MethodPoint at = a.method;
                h.heldBy = "a debugger breakpoint at " + at;
                h.unreached = "reach " + at;
                h.evidence = evidence;
                if (!a.warmUp()) {
                    h.barrier = debugger.arm(a.pointName, at, a.mode, evidence, a.options);
                    debugger.resumeProgram(); // A was launched suspended: it runs only now that its first call will be held
                    return h;
                }
                // a warm-up hold at A's first commitSync, then the point: the DB point skips the transactions A ran while starting
                // (its schema), and the return point is armed only now because watching returns slows the whole JVM down
                if (a.warmUpAt != null) { // a warm-up of the experiment's choosing: A's first call there
                    Barrier warmUp = debugger.arm("warm-up", a.warmUpAt, a.mode, evidence, a.options);
                    debugger.resumeProgram();
                    try {
                        Held.awaitArrival(a.ctx, warmUp, inst);
                    } catch (BarrierTimeoutException t) {
                        throw new PointNotReached("call " + a.warmUpAt + " (the warm-up)");
                    }
                    h.barrier = debugger.arm(a.pointName, at, a.mode, evidence, a.options);
                    warmUp.release();
                    return h;
                }
                Barrier warmUp = debugger.arm("warm-up", MethodPoint.kafkaCommitSync(), a.mode, evidence, a.options);
                debugger.resumeProgram();
                boolean heldAtCommitSync;
                try {
                    heldAtCommitSync = Held.awaitWarmUpOrCommit(a.ctx, warmUp, inst, a.group);
                } catch (BarrierTimeoutException t) {
                    throw new PointNotReached("commit an offset of group " + a.group + " (the warm-up: its first commit, held at "
                            + "KafkaConsumer#commitSync or seen in the group)");
                }
                h.barrier = debugger.arm(a.pointName, at, a.mode, evidence, a.options);
                if (heldAtCommitSync) {
                    warmUp.release();
                } else {
                    // an auto-committing consumer never calls commitSync: its timer's first commit ends the warm-up instead
                    a.e.record(Source.here("harness"), new Payload.Note("the warm-up: group " + a.group + " got its first committed offset "
                            + "without A calling KafkaConsumer#commitSync (a timer's or an async commit); " + a.pointName
                            + " is armed while A runs"));
                }
                return h;
            }

            @Override
            String holdMode(HoldMode mode) {
                return mode.name().toLowerCase(Locale.ROOT);
            }

            @Override
            String limitation() {
                return "The in-flight point is a debugger breakpoint at KafkaConsumer#commitSync; a subject that commits offsets "
                        + "another way (commitAsync, auto-commit) is not held there (its DB point is: the warm-up ends at its group's first "
                        + "committed offset).";
            }
        },
        /** A's OffsetCommit request (or the broker's answer to it) held in the proxy. */
        WIRE {
            @Override
            Held arm(Arming a) {
                WireProxy proxy = a.ctx.kafka().proxy().orElseThrow(() -> new IllegalStateException("the run has no wire proxy"));
                long[] pid = {0};
                BarrierEvidence evidence = BarrierEvidence.into(a.e, a.spec.name(), () -> pid[0], "wire");
                boolean share = a.point == null; // a share group's acknowledgement (shareAcknowledgement())
                boolean request = a.point != CommitPoint.AFTER_OFFSET_COMMIT;
                WirePoint at = share ? WirePoint.shareAcknowledgement(a.group) : request ? WirePoint.offsetCommit(a.group)
                        : WirePoint.offsetCommitAnswer(a.group);
                // armed before A exists: its first commit cannot slip by
                Barrier barrier = proxy.arm(a.pointName, at, a.mode, evidence, a.options);
                a.ctx.step("wire barrier armed on group " + a.group + "'s " + (share ? "share acknowledgements" : "OffsetCommit") + "; instance "
                        + a.spec.name() + " starts through the proxy at " + proxy.bootstrapServers());
                LabContext.Instance inst = a.ctx.subjects().start(a.e, a.spec);
                pid[0] = inst.pid();
                Held h = new Held(this, a.ctx, a.e, a.pointName, a.spec.name(), inst);
                h.barrier = barrier;
                h.evidence = evidence;
                h.heldBy = share ? "A's acknowledgement request (ShareAcknowledge, or a ShareFetch carrying one) on the wire"
                        : request ? "A's OffsetCommit request on the wire" : "the broker's answer to A's OffsetCommit on the wire";
                h.unreached = (share ? "send an acknowledgement" : request ? "send an OffsetCommit" : "get an OffsetCommit accepted") + " for group "
                        + a.group;
                return h;
            }

            @Override
            String holdMode(HoldMode mode) {
                return "connection";
            }

            @Override
            String limitation() {
                return "The in-flight point is A's OffsetCommit request on the wire (a proxy between A and the broker holds the connection that "
                        + "carries it, and every resend of it); A's heartbeats on that connection wait behind it, as a stalled coordinator "
                        + "connection would. A commit that never leaves the client is not held.";
            }
        },
        /** A gdb breakpoint at SQLite's commit in a program that is not a JVM, armed while A's first OffsetCommit is held on the wire. */
        NATIVE {
            @Override
            Held arm(Arming a) throws InterruptedException {
                NativePoint at = NativePoint.sqliteCommit();
                // the warm-up, as for a JVM: A's first OffsetCommit is held on the wire while the DB point is armed, so that the
                // transactions A runs while it starts (its schema) do not count and its next record's COMMIT cannot slip by
                WireProxy proxy = a.ctx.kafka().proxy().orElseThrow(() -> new IllegalStateException("the run has no wire proxy"));
                long[] pid = {0};
                Barrier warmUp = proxy.arm("warm-up", WirePoint.offsetCommit(a.group), HoldMode.THREAD,
                        BarrierEvidence.into(a.e, a.spec.name(), () -> pid[0], "wire"), a.options);
                LabContext.Instance inst = a.ctx.subjects().start(a.e, a.spec);
                pid[0] = inst.pid();
                Held h = new Held(this, a.ctx, a.e, a.pointName, a.spec.name(), inst);
                h.heldBy = "a native debugger (gdb) breakpoint at " + at;
                h.unreached = "reach " + at + " (" + at.unreached() + ")";
                boolean armed = false;
                try {
                    NativeDebugger gdb = a.ctx.subjects().attachNative(inst, at);
                    h.source = gdb;
                    h.gdb = gdb;
                    a.e.record(Source.here("harness"), new Payload.Note("gdb attached to " + a.spec.name() + " (pid " + gdb.pid() + ": "
                            + (gdb.pid() == inst.pid() ? "the subject itself" : "a descendant of the subject's pid " + inst.pid())
                            + "); the point is in " + gdb.library() + "; it stood still for " + gdb.attachPause().toMillis()
                            + " ms while gdb attached"));
                    try {
                        Held.awaitArrival(a.ctx, warmUp, inst);
                    } catch (BarrierTimeoutException t) {
                        throw new PointNotReached("send an OffsetCommit for group " + a.group + " (the warm-up: the DB point is armed while it is held)");
                    }
                    h.evidence = BarrierEvidence.into(a.e, a.spec.name(), inst::pid, "native-thread");
                    h.barrier = gdb.arm(a.pointName, at, HoldMode.THREAD, h.evidence, a.options);
                    armed = true;
                    return h;
                } catch (NativeAttachException x) {
                    if (x.reason() == NativeAttachException.Reason.GONE) {
                        // gdb can see the pid gone before this JVM has reaped it: wait for the exit code, so the cell says it
                        Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(2)).until(() -> !inst.process().isAlive());
                    }
                    a.ctx.subjects().checkpointHeld(inst); // a subject that exited says so, with its exit code
                    throw new PointUnreachable("not reachable for this subject: the native barrier could not attach (" + x.getMessage() + ")");
                } finally {
                    if (warmUp.state() == BarrierState.HELD) {
                        warmUp.release();
                    } else if (warmUp.state() == BarrierState.ARMED) {
                        warmUp.expire();
                    }
                    if (!armed) {
                        h.close(); // no barrier: nothing left attached, A stopped
                    }
                }
            }

            @Override
            String holdMode(HoldMode mode) {
                return "native-thread";
            }

            @Override
            String limitation() {
                return "The in-flight point is a native debugger (gdb) breakpoint at " + NativePoint.sqliteCommit() + ".";
            }

            @Override
            Optional<String> unavailableOn(Platform platform) {
                return platform.procfs() ? Optional.empty() : Optional.of("not available on " + platform.describe()
                        + ": the native barrier (gdb) needs /proc to find the program and confirm its threads' states");
            }
        };

        /** What the evidence says of the offset-commit point held this way. */
        abstract String limitation();

        /** Starts A and arms the point (see {@link BarrierPlan#arm}). */
        abstract Held arm(Arming a) throws InterruptedException;

        /** The hold mode as the evidence names it. */
        abstract String holdMode(HoldMode mode);

        /** Why this machine cannot hold A this way, or empty. */
        Optional<String> unavailableOn(Platform platform) {
            return Optional.empty();
        }
    }

    private final Technology technology;
    private final CommitPoint point;
    private final MethodPoint method;
    private final MethodPoint warmUpAt;
    private final String display;

    private BarrierPlan(Technology technology, CommitPoint point, MethodPoint method, String display) {
        this(technology, point, method, null, display);
    }

    private BarrierPlan(Technology technology, CommitPoint point, MethodPoint method, MethodPoint warmUpAt, String display) {
        this.technology = technology;
        this.point = point;
        this.method = method;
        this.warmUpAt = warmUpAt;
        this.display = display;
    }

    /**
     * The technology for {@code point}: the run's choice, except that a program held on the wire is
     * held at its DB commit by gdb (the wire sees only the Kafka protocol).
     */
    public static BarrierPlan of(BarrierKind.Choice choice, CommitPoint point) {
        Objects.requireNonNull(point, "point");
        if (choice.kind() == BarrierKind.WIRE && point == CommitPoint.BEFORE_DB_COMMIT) {
            return new BarrierPlan(Technology.NATIVE, point, null, "native (gdb at " + NativePoint.sqliteCommit()
                    + ": the DB point of a subject that is not a JVM, which the wire barrier cannot see)");
        }
        return new BarrierPlan(choice.kind() == BarrierKind.WIRE ? Technology.WIRE : Technology.DEBUGGER, point, null, choice.display());
    }

    /** A debugger breakpoint at any method of a JVM subject (e.g. a transactional producer's commit), held at the first call. */
    public static BarrierPlan debuggerAt(MethodPoint method) {
        return new BarrierPlan(Technology.DEBUGGER, null, Objects.requireNonNull(method, "method"), "debugger at " + method);
    }

    /**
     * A debugger breakpoint at {@code method}, armed only once A has been held at {@code warmUpAt} (and let go): the calls
     * A makes while it starts (e.g. a DB commit that creates its schema) pass, its next one is held.
     */
    public static BarrierPlan debuggerAt(MethodPoint method, MethodPoint warmUpAt) {
        return new BarrierPlan(Technology.DEBUGGER, null, Objects.requireNonNull(method, "method"), Objects.requireNonNull(warmUpAt, "warmUpAt"),
                "debugger at " + method + " (after a warm-up at " + warmUpAt + ")");
    }

    /**
     * A share group's acknowledgement (KIP-932), before it reaches the broker: for {@link BarrierKind#DEBUGGER} a
     * breakpoint at {@code KafkaShareConsumer#acknowledge} (a JVM's explicit acknowledgement, after what it did with the
     * record), for {@link BarrierKind#WIRE} the request that carries it held on the wire (any client), at the first call.
     */
    public static BarrierPlan shareAcknowledgement(BarrierKind kind) {
        return kind == BarrierKind.WIRE ? new BarrierPlan(Technology.WIRE, null, null, "wire (a share group's acknowledgement request)")
                : debuggerAt(SHARE_ACKNOWLEDGE);
    }

    /** Where a JVM's share consumer acknowledges a record explicitly. */
    public static final MethodPoint SHARE_ACKNOWLEDGE = MethodPoint.parse("org.apache.kafka.clients.consumer.KafkaShareConsumer#acknowledge");

    /** The wire instead of the debugger, for a commit the debugger could not read ({@code why} goes into the display). */
    public BarrierPlan onTheWire(String why) {
        return new BarrierPlan(Technology.WIRE, point, null, "wire (" + why + ")");
    }

    /** What the evidence's environment calls the barrier. */
    public String display() {
        return display;
    }

    /** The hold mode as the evidence names it (a wire hold is the connection's whatever was asked). */
    public String holdMode(HoldMode mode) {
        return technology.holdMode(mode);
    }

    /** What the evidence says of an offset-commit point held this way. */
    public String limitation() {
        return technology.limitation();
    }

    /** Why this machine cannot hold A this way, or empty. */
    public Optional<String> unavailableOn(Platform platform) {
        return technology.unavailableOn(platform);
    }

    /** Whether A's arrival is read by a debugger, which may fail to read what A commits (the wire reads every request). */
    public boolean readsArguments() {
        return technology == Technology.DEBUGGER;
    }

    /**
     * Starts instance {@code spec} and arms the point, named {@code pointName} in the evidence
     * ({@code group}: the group whose commits a wire point holds). The DB point and the return point
     * get a warm-up first (a hold at A's first offset commit): the transactions A runs while starting
     * do not count, and a return point is armed only then, since watching returns slows a JVM down.
     *
     * @throws PointNotReached A never reached a warm-up (everything of the try is stopped)
     * @throws PointUnreachable the point cannot be armed on this subject
     */
    public Held arm(LabContext ctx, ExperimentRecorder e, String pointName, InstanceSpec spec, String group, HoldMode mode, BarrierOptions options)
            throws InterruptedException {
        MethodPoint at = method != null || point == null ? method : switch (point) {
            case BEFORE_DB_COMMIT -> ctx.settings().barrier().dbCommitPoint();
            case BEFORE_OFFSET_COMMIT -> MethodPoint.kafkaCommitSync();
            case AFTER_OFFSET_COMMIT -> MethodPoint.kafkaCommitSync().onReturn();
        };
        return technology.arm(new Arming(ctx, e, point, at, warmUpAt, pointName, spec, group, mode, options));
    }

    /** What arming needs ({@code point} null: a method of the subject's own, {@code method}). */
    record Arming(LabContext ctx, ExperimentRecorder e, CommitPoint point, MethodPoint method, MethodPoint warmUpAt, String pointName, InstanceSpec spec, String group,
            HoldMode mode, BarrierOptions options) {
        /** The DB point and the return point are armed after a warm-up hold; the offset commit's own point, and a method's, are the first call. */
        boolean warmUp() {
            return warmUpAt != null || point != null && point != CommitPoint.BEFORE_OFFSET_COMMIT;
        }
    }

    @Override
    public String toString() {
        return technology + " at " + (point != null ? point.id() : method != null ? method.describe() : "a share group's acknowledgement");
    }
}
