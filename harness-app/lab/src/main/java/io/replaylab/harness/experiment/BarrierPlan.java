package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.gdb.NativeAttachException;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.barrier.gdb.NativePoint;
import io.replaylab.barrier.jdi.DebuggerBarrier;
import io.replaylab.barrier.jdi.MethodPoint;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Platform;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.experiment.ScheduleCell.Point;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.LabContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which technology holds instance A at a point of the commit protocol, and how it is armed: a JVM
 * debugger breakpoint, the Kafka protocol proxy, or gdb in a program that is not a JVM (the wire
 * cannot see a DB commit). Chosen once from the run's barrier choice and the point; the experiments
 * talk to the {@link Held} point it arms and never branch on the technology. A new technology is a
 * new {@link Technology} constant: its arming, its freeze and its words are its own methods, so a
 * missing one does not compile.
 */
final class BarrierPlan {
    private static final Logger log = LoggerFactory.getLogger(BarrierPlan.class);

    /** How A is held. */
    enum Technology {
        /** A JDWP breakpoint in A's JVM. */
        DEBUGGER {
            @Override
            Held arm(Arming a) throws InterruptedException {
                a.ctx.step("instance " + a.instance + " starts under the debugger barrier (" + holdMode(a.mode) + " hold)");
                LabContext.Instance inst = a.ctx.start(a.e, a.instance, a.topic, a.group, a.inbox, true);
                Held h = new Held(this, a, inst);
                try {
                    return armDebugger(a, h, inst);
                } catch (RuntimeException | InterruptedException | Error x) {
                    h.close(); // nothing of a try that did not arm stays: A stopped, the debugger gone
                    throw x;
                }
            }

            private Held armDebugger(Arming a, Held h, LabContext.Instance inst) throws InterruptedException {
                h.debugger = DebuggerBarrier.attach(inst.process().debugPort().orElseThrow(), Duration.ofSeconds(20));
                BarrierEvidence evidence = BarrierEvidence.into(a.e, a.instance, inst::pid, a.mode.name().toLowerCase(Locale.ROOT));
                MethodPoint at = switch (a.point) {
                    case BEFORE_DB_COMMIT -> a.ctx.settings().dbCommitPoint();
                    case BEFORE_OFFSET_COMMIT -> MethodPoint.kafkaCommitSync();
                    case AFTER_OFFSET_COMMIT -> MethodPoint.kafkaCommitSync().onReturn();
                };
                h.heldBy = "a debugger breakpoint at " + at;
                h.unreached = "reach " + at;
                h.evidence = evidence;
                if (!a.warmUp()) {
                    h.barrier = h.debugger.arm(a.pointName, at, a.mode, evidence, a.options);
                    h.debugger.resumeProgram(); // A was launched suspended: it runs only now that its first call will be held
                    return h;
                }
                // a warm-up hold at A's first commitSync, then the point: the DB point skips the transactions A ran while starting
                // (its schema), and the return point is armed only now because watching returns slows the whole JVM down
                Barrier warmUp = h.debugger.arm("warm-up", MethodPoint.kafkaCommitSync(), a.mode, evidence, a.options);
                h.debugger.resumeProgram();
                try {
                    RebalanceExperiment.awaitArrival(a.ctx, warmUp, inst);
                } catch (BarrierTimeoutException t) {
                    throw new PointNotReached("call KafkaConsumer#commitSync (the warm-up: its first offset commit)");
                }
                h.barrier = h.debugger.arm(a.pointName, at, a.mode, evidence, a.options);
                warmUp.release();
                return h;
            }

            @Override
            String holdMode(HoldMode mode) {
                return mode.name().toLowerCase(Locale.ROOT);
            }
        },
        /** A's OffsetCommit request (or the broker's answer to it) held in the proxy. */
        WIRE {
            @Override
            Held arm(Arming a) {
                WireProxy proxy = a.ctx.proxy().orElseThrow(() -> new IllegalStateException("the run has no wire proxy"));
                long[] pid = {0};
                BarrierEvidence evidence = BarrierEvidence.into(a.e, a.instance, () -> pid[0], "wire");
                boolean request = a.point != Point.AFTER_OFFSET_COMMIT;
                Barrier barrier = request ? proxy.arm(a.pointName, a.group, evidence, a.options) // armed before A exists: its first commit cannot slip by
                        : proxy.armAnswer(a.pointName, a.group, evidence, a.options);
                a.ctx.step("wire barrier armed on group " + a.group + "'s OffsetCommit; instance " + a.instance + " starts through the proxy at "
                        + proxy.bootstrapServers());
                LabContext.Instance inst = a.ctx.start(a.e, a.instance, a.topic, a.group, a.inbox, false);
                pid[0] = inst.pid();
                Held h = new Held(this, a, inst);
                h.barrier = barrier;
                h.evidence = evidence;
                h.heldBy = request ? "A's OffsetCommit request on the wire" : "the broker's answer to A's OffsetCommit on the wire";
                h.unreached = (request ? "send an OffsetCommit" : "get an OffsetCommit accepted") + " for group " + a.group;
                return h;
            }

            @Override
            String holdMode(HoldMode mode) {
                return "connection";
            }
        },
        /** A gdb breakpoint at SQLite's commit in a program that is not a JVM, armed while A's first OffsetCommit is held on the wire. */
        NATIVE {
            @Override
            Held arm(Arming a) throws InterruptedException {
                NativePoint at = NativePoint.sqliteCommit();
                // the warm-up, as for a JVM: A's first OffsetCommit is held on the wire while the DB point is armed, so that the
                // transactions A runs while it starts (its schema) do not count and its next record's COMMIT cannot slip by
                WireProxy proxy = a.ctx.proxy().orElseThrow(() -> new IllegalStateException("the run has no wire proxy"));
                long[] pid = {0};
                Barrier warmUp = proxy.arm("warm-up", a.group, BarrierEvidence.into(a.e, a.instance, () -> pid[0], "wire"), a.options);
                LabContext.Instance inst = a.ctx.start(a.e, a.instance, a.topic, a.group, a.inbox, false);
                pid[0] = inst.pid();
                Held h = new Held(this, a, inst);
                h.heldBy = "a native debugger (gdb) breakpoint at " + at;
                h.unreached = "reach " + at + " (" + at.unreached() + ")";
                boolean armed = false;
                try {
                    h.gdb = a.ctx.attachNative(inst, at);
                    a.e.record(Source.here("harness"), new Payload.Note("gdb attached to " + a.instance + " (pid " + h.gdb.pid() + ": "
                            + (h.gdb.pid() == inst.pid() ? "the subject itself" : "a descendant of the subject's pid " + inst.pid())
                            + "); the point is in " + h.gdb.library() + "; it stood still for " + h.gdb.attachPause().toMillis()
                            + " ms while gdb attached"));
                    try {
                        RebalanceExperiment.awaitArrival(a.ctx, warmUp, inst);
                    } catch (BarrierTimeoutException t) {
                        throw new PointNotReached("send an OffsetCommit for group " + a.group + " (the warm-up: the DB point is armed while it is held)");
                    }
                    h.evidence = BarrierEvidence.into(a.e, a.instance, inst::pid, "native-thread");
                    h.barrier = h.gdb.arm(a.pointName, at, HoldMode.THREAD, h.evidence, a.options);
                    armed = true;
                    return h;
                } catch (NativeAttachException x) {
                    if (x.reason() == NativeAttachException.Reason.GONE) {
                        // gdb can see the pid gone before this JVM has reaped it: wait for the exit code, so the cell says it
                        Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(2)).until(() -> !inst.process().isAlive());
                    }
                    a.ctx.checkpoint(inst); // a subject that exited says so, with its exit code
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
            Optional<String> unavailableOn(Platform platform) {
                return platform.procfs() ? Optional.empty() : Optional.of("not available on " + platform.describe()
                        + ": the native barrier (gdb) needs /proc to find the program and confirm its threads' states");
            }
        };

        /** Starts A and arms the point (see {@link BarrierPlan#arm}). */
        abstract Held arm(Arming a) throws InterruptedException;

        /** The hold mode as the evidence names it. */
        abstract String holdMode(HoldMode mode);

        /** Why this machine cannot hold A this way, or empty. */
        Optional<String> unavailableOn(Platform platform) {
            return Optional.empty();
        }
    }

    /** A warm-up, or the point itself, that A never reached: the caller's NOT_RUN ("A did not " + what). */
    static final class PointNotReached extends RuntimeException {
        PointNotReached(String what) {
            super(what);
        }
    }

    /** The point cannot be armed on this subject at all: the caller's NOT_RUN with this reason. */
    static final class PointUnreachable extends RuntimeException {
        PointUnreachable(String why) {
            super(why);
        }
    }

    private final Technology technology;
    private final Point point;
    private final String display;

    private BarrierPlan(Technology technology, Point point, String display) {
        this.technology = technology;
        this.point = point;
        this.display = display;
    }

    /**
     * The technology for {@code point}: the run's choice, except that a program held on the wire is
     * held at its DB commit by gdb (the wire sees only the Kafka protocol).
     */
    static BarrierPlan of(BarrierKind.Choice choice, Point point) {
        if (choice.kind() == BarrierKind.WIRE && point == Point.BEFORE_DB_COMMIT) {
            return new BarrierPlan(Technology.NATIVE, point, "native (gdb at " + NativePoint.sqliteCommit()
                    + ": the DB point of a subject that is not a JVM, which the wire barrier cannot see)");
        }
        return new BarrierPlan(choice.kind() == BarrierKind.WIRE ? Technology.WIRE : Technology.DEBUGGER, point, choice.display());
    }

    /** The wire instead of the debugger, for a commit the debugger could not read ({@code why} goes into the display). */
    BarrierPlan onTheWire(String why) {
        return new BarrierPlan(Technology.WIRE, point, "wire (" + why + ")");
    }

    Technology technology() {
        return technology;
    }

    /** What the evidence's environment calls the barrier. */
    String display() {
        return display;
    }

    /** Why this machine cannot hold A this way, or empty. */
    Optional<String> unavailableOn(Platform platform) {
        return technology.unavailableOn(platform);
    }

    /** Whether A's arrival is read by a debugger, which may fail to read what A commits (the wire reads every request). */
    boolean readsArguments() {
        return technology == Technology.DEBUGGER;
    }

    /**
     * Starts instance {@code instance} and arms the point, named {@code pointName} in the evidence.
     * The DB point and the return point get a warm-up first (a hold at A's first offset commit): the
     * transactions A runs while starting do not count, and a return point is armed only then, since
     * watching returns slows a JVM down.
     *
     * @throws PointNotReached A never reached a warm-up (everything of the try is stopped)
     * @throws PointUnreachable the point cannot be armed on this subject
     */
    Held arm(LabContext ctx, ExperimentRecorder e, String pointName, String instance, String topic, String group, String inbox, HoldMode mode,
            BarrierOptions options) throws InterruptedException {
        return technology.arm(new Arming(ctx, e, point, pointName, instance, topic, group, inbox, mode, options));
    }

    /** What arming needs. */
    record Arming(LabContext ctx, ExperimentRecorder e, Point point, String pointName, String instance, String topic, String group, String inbox,
            HoldMode mode, BarrierOptions options) {
        /** The DB point and the return point are armed after a warm-up hold; the offset commit's own point is the first commit. */
        boolean warmUp() {
            return point != Point.BEFORE_OFFSET_COMMIT;
        }
    }

    /**
     * Instance A with its point armed: one shape whatever holds it. Closing it releases a held point (a
     * program never stays held), detaches any debugger and stops the instances it was given.
     */
    static final class Held implements AutoCloseable {
        private final Technology technology;
        private final Arming arming;
        private final LabContext.Instance instance;
        private final List<LabContext.Instance> running = new ArrayList<>();
        private Barrier barrier;
        private BarrierEvidence evidence;
        private DebuggerBarrier debugger;
        private NativeDebugger gdb;
        private String heldBy;
        private String unreached;
        private boolean frozen;

        private Held(Technology technology, Arming arming, LabContext.Instance instance) {
            this.technology = technology;
            this.arming = arming;
            this.instance = instance;
            running.add(instance);
        }

        LabContext.Instance instance() {
            return instance;
        }

        Barrier barrier() {
            return barrier;
        }

        /** The point's evidence: its arrival and the held call's outcome as events. */
        BarrierEvidence evidence() {
            return evidence;
        }

        /** What holds A, e.g. "a debugger breakpoint at …". */
        String heldBy() {
            return heldBy;
        }

        /** What A did not do when the point was never reached ("A did not " + this). */
        String unreached() {
            return unreached;
        }

        /** The instances to stop when this ends (A and those started beside it). */
        List<LabContext.Instance> running() {
            return running;
        }

        /** Waits for A at the point (see {@link RebalanceExperiment#awaitArrival}). */
        Arrival awaitArrival() throws InterruptedException {
            return RebalanceExperiment.awaitArrival(arming.ctx, barrier, instance);
        }

        /**
         * Stops every thread of A at the point and records it: through gdb where gdb holds A (under
         * ptrace a SIGSTOP only reaches the debugger), else SIGSTOP to A's process group; confirmed in /proc.
         */
        Event freeze() {
            frozen = true;
            if (gdb != null) {
                Map<Long, Character> states = gdb.freeze();
                return arming.e.record(Source.here("harness"), new Payload.Note(arming.instance + " (pid " + gdb.pid()
                        + ") frozen through the debugger at " + arming.pointName + " (held there by " + heldBy + "): all " + states.size()
                        + " of its threads stopped, /proc/" + gdb.pid() + "/task/*/stat shows state t for each"));
            }
            instance.process().freeze(); // returns once /proc shows the process stopped (state T)
            return arming.e.record(Source.here("harness"), new Payload.Note(arming.instance + " (pid " + instance.pid() + ") frozen with SIGSTOP at "
                    + arming.pointName + " (held there by " + heldBy + "); /proc/" + instance.pid() + "/stat shows state T"));
        }

        /** SIGKILL to A (and first the program gdb holds, a wrapper's descendant too), recorded; A is no longer running. */
        Event crash() {
            if (gdb != null) {
                gdb.killProgram(); // gone in /proc before the crash is recorded
            }
            running.remove(instance);
            return arming.ctx.crash(arming.e, instance);
        }

        /** A frozen A runs again (a program never stays frozen; a debugger cannot talk to a stopped JVM). */
        void thaw() {
            if (gdb != null && gdb.isFrozen()) {
                try {
                    gdb.thaw();
                } catch (RuntimeException x) { // gdb gone: its end let the program run; the instances must still be stopped
                    log.warn("cannot thaw {} through gdb: {}", arming.instance, x.getMessage());
                }
            } else if (gdb == null && frozen && instance.process().isAlive() && instance.process().isFrozen()) {
                instance.process().thaw();
            }
        }

        /**
         * The point's work is done: a native debugger lets the program go, untraced (it stops on SIGTERM
         * as it would without one). A JVM's debugger holds nothing now and stays attached until {@link #close}.
         */
        void untrace() {
            if (gdb != null) {
                gdb.close();
            }
        }

        /** Every debugger gone (a JVM's resumes whatever it still suspends). */
        void detach() {
            if (gdb != null) {
                gdb.close();
            }
            if (debugger != null) {
                debugger.close();
            }
        }

        @Override
        public void close() {
            try {
                thaw();
            } catch (RuntimeException x) { // still stopped: it is stopped (SIGTERM, then SIGKILL) all the same below
                log.warn("cannot thaw {}: {}", arming.instance, x.getMessage());
            } finally {
                Experiments.release(arming.ctx, arming.e, barrier, this::detach, running);
            }
        }

        @Override
        public String toString() {
            return technology + " at " + arming.pointName + " on " + arming.instance;
        }
    }
}
