package io.replaylab.harness.experiment;

import io.replaylab.evidence.process.Platform;
import io.replaylab.evidence.process.Poll;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.CommitOffset;
import io.replaylab.barrier.gdb.NativeAttachException;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.barrier.gdb.NativePoint;
import io.replaylab.barrier.jdi.DebuggerBarrier;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.jdi.MethodPoint;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Limitations;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.experiment.ScheduleCell.Fault;
import io.replaylab.harness.experiment.ScheduleCell.Point;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.kafka.GroupMember;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionRef;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Oracle;
import io.replaylab.oracle.SourceSpec;

/**
 * Experiment {@code schedules}: every single fault (hold, freeze, crash) at every point of the
 * commit protocol (before the DB commit, before the offset commit, after it), one cell after
 * another, each on a fresh child namespace and recorded as an experiment of its own; the matrix
 * and the worst cell are this experiment's outcome. A cell PASSes when its fault was confirmed at
 * its point, the group recovered and drained, and every effect is in the target exactly once.
 */
final class SchedulesExperiment {
    static final String NAME = "schedules";
    static final String[] REQUIREMENTS = {"R7", "R8", "R10", "R11", "R12", "R13", "R14", "R15"};

    private SchedulesExperiment() {
    }

    static Outcome run(List<ScheduleCell> selected, LabContext ctx, LabNamespace ns, ExperimentRecorder e) {
        Experiments.environment(ctx, e, ns);
        BarrierKind.Choice choice = ctx.settings().barrierChoice();
        e.environment("barrier", choice.display() + (choice.kind() == BarrierKind.WIRE
                ? "; before-db-commit: native (gdb at the SQLite commit), which the wire barrier cannot see" : ""));
        e.environment("cells", selected.stream().map(ScheduleCell::toString).collect(Collectors.joining(", ")));
        e.limitation(Limitations.singleBrokerAndDatabase(ctx.targetKind()));
        e.limitation("One fault per cell, at the first record A processes at that point; a fault between other instructions, or two faults "
                + "at once, is not shown.");
        ctx.step(selected.size() + " cell(s), up to " + ctx.settings().parallel() + " at a time");
        List<LabContext.Part> parts = selected.stream().map(cell -> new LabContext.Part(partName(cell), List.of(REQUIREMENTS),
                LabNamespace.of(ns.prefix() + "." + cell.id()), (c, cellNs, x) -> runCell(c, cellNs, x, cell, choice))).toList();
        List<Outcome> done = ctx.parts(parts);
        Map<ScheduleCell, Outcome> outcomes = new LinkedHashMap<>();
        for (int i = 0; i < selected.size(); i++) {
            outcomes.put(selected.get(i), done.get(i));
        }
        List<Payload.MatrixCell> cells = new ArrayList<>();
        for (ScheduleCell cell : ScheduleCell.all()) {
            Outcome o = outcomes.get(cell);
            cells.add(o == null ? new Payload.MatrixCell(cell.point().id(), cell.fault().id(), "NOT_SELECTED", null, cell.meaning(),
                    "not among the cells asked for")
                    : new Payload.MatrixCell(cell.point().id(), cell.fault().id(), o.status().name(), partName(cell), cell.meaning(), o.reason()));
        }
        e.record(Source.here("harness"), new Payload.Matrix("Schedule: point × fault", "point",
                Arrays.stream(Point.values()).map(Point::id).toList(), Arrays.stream(Fault.values()).map(Fault::id).toList(), cells));
        Map<String, Outcome> byName = new LinkedHashMap<>();
        outcomes.forEach((cell, o) -> byName.put(cell.toString(), o));
        return Verdicts.worstCell(e, byName, "every cell's fault was confirmed at its point");
    }

    static String partName(ScheduleCell cell) {
        return NAME + "." + cell.id();
    }

    /** One cell: A reaches the point, the fault hits it there, B takes over (and A restarts after a crash), drain, oracle. */
    static Outcome runCell(LabContext ctx, LabNamespace ns, ExperimentRecorder e, ScheduleCell cell, BarrierKind.Choice choice) throws Exception {
        Experiments.environment(ctx, e, ns);
        boolean wire = choice.kind() == BarrierKind.WIRE;
        e.environment("barrier", choice.display());
        e.environment("point", cell.point().id() + ": " + cell.point().description());
        e.environment("fault", cell.fault().id() + ": " + cell.fault().description());
        e.limitation(Limitations.singleBrokerAndDatabase(ctx.targetKind()));
        e.limitation("This cell: " + cell.meaning() + ".");
        // the wire barrier sees only the Kafka protocol: a program that is not a JVM is held at its DB commit by a native debugger
        boolean nativeDb = wire && cell.point() == Point.BEFORE_DB_COMMIT;
        String topic = ns.topic();
        String group = ns.group();
        String inbox = ns.inbox(1);
        String aName = cell.id() + "-A";
        Platform platform = ctx.settings().platform();
        if (cell.fault() == Fault.FREEZE && !platform.canFreeze()) {
            return e.finish(Outcome.notRun("not available on " + platform.describe() + ": a freeze needs POSIX signals (SIGSTOP, SIGCONT) and "
                    + "/proc to confirm every thread stopped"));
        }
        if (nativeDb && !platform.procfs()) {
            return e.finish(Outcome.notRun("not available on " + platform.describe() + ": the native barrier (gdb) needs /proc to find the "
                    + "program and confirm its threads' states"));
        }
        Experiments.produce(ctx, e, ns);

        BarrierOptions options = BarrierOptions.ofDefaults().holdTimeout(ctx.settings().handoffTimeout().plus(ctx.settings().drainTimeout()));
        List<LabContext.Instance> running = new ArrayList<>();
        DebuggerBarrier debugger = null;
        NativeDebugger gdb = null;
        Barrier barrier;
        LabContext.Instance a;
        String held;
        if (nativeDb) {
            NativePoint at = NativePoint.sqliteCommit();
            e.environment("barrier", "native (gdb at " + at + ": the DB point of a subject that is not a JVM, which the wire barrier cannot see)");
            // the warm-up, as for a JVM: A's first OffsetCommit is held on the wire while the DB point is armed, so that the
            // transactions A runs while it starts (its schema) do not count and its next record's COMMIT cannot slip by
            WireProxy proxy = ctx.proxy().orElseThrow(() -> new IllegalStateException("the run has no wire proxy"));
            long[] pidA = {0};
            Barrier warmUp = proxy.arm("warm-up", group, BarrierEvidence.into(e, aName, () -> pidA[0], "wire"), options);
            a = ctx.start(e, aName, topic, group, inbox, false);
            pidA[0] = a.pid();
            running.add(a);
            boolean armed = false;
            try {
                gdb = ctx.attachNative(a, at);
                e.record(Source.here("harness"), new Payload.Note("gdb attached to " + aName + " (pid " + gdb.pid() + ": "
                        + (gdb.pid() == a.pid() ? "the subject itself" : "a descendant of the subject's pid " + a.pid()) + "); the point is in "
                        + gdb.library() + "; it stood still for " + gdb.attachPause().toMillis() + " ms while gdb attached"));
                try {
                    RebalanceExperiment.awaitArrival(ctx, warmUp, a);
                } catch (BarrierTimeoutException t) {
                    return e.finish(neverReached(ctx, cell.point(), "send an OffsetCommit for group " + group
                            + " (the warm-up: the DB point is armed while it is held)"));
                }
                barrier = gdb.arm(cell.point().id(), at, HoldMode.THREAD, BarrierEvidence.into(e, aName, a::pid, "native-thread"), options);
                armed = true;
            } catch (NativeAttachException x) {
                if (x.reason() == NativeAttachException.Reason.GONE) {
                    // gdb can see the pid gone before this JVM has reaped it: wait for the exit code, so the cell says it
                    Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(2)).until(() -> !a.process().isAlive());
                }
                ctx.checkpoint(a); // a subject that exited says so, with its exit code
                return e.finish(Outcome.notRun("not reachable for this subject: the native barrier could not attach (" + x.getMessage() + ")"));
            } finally {
                if (warmUp.state() == BarrierState.HELD) {
                    warmUp.release();
                } else if (warmUp.state() == BarrierState.ARMED) {
                    warmUp.expire();
                }
                if (!armed && gdb != null) {
                    gdb.close(); // no barrier: nothing left attached
                }
            }
            held = "a native debugger (gdb) breakpoint at " + at;
        } else if (wire) {
            WireProxy proxy = ctx.proxy().orElseThrow(() -> new IllegalStateException("the run has no wire proxy"));
            long[] pidA = {0};
            BarrierEvidence evidence = BarrierEvidence.into(e, aName, () -> pidA[0], "wire");
            barrier = cell.point() == Point.BEFORE_OFFSET_COMMIT ? proxy.arm(cell.point().id(), group, evidence, options)
                    : proxy.armAnswer(cell.point().id(), group, evidence, options);
            held = cell.point() == Point.BEFORE_OFFSET_COMMIT ? "A's OffsetCommit request on the wire" : "the broker's answer to A's OffsetCommit on the wire";
            a = ctx.start(e, aName, topic, group, inbox, false);
            pidA[0] = a.pid();
            running.add(a);
        } else {
            a = ctx.start(e, aName, topic, group, inbox, true);
            running.add(a);
            debugger = DebuggerBarrier.attach(a.process().debugPort().orElseThrow(), Duration.ofSeconds(20));
            BarrierEvidence evidence = BarrierEvidence.into(e, aName, a::pid, "thread");
            MethodPoint at = switch (cell.point()) {
                case BEFORE_DB_COMMIT -> ctx.settings().dbCommitPoint();
                case BEFORE_OFFSET_COMMIT -> MethodPoint.kafkaCommitSync();
                case AFTER_OFFSET_COMMIT -> MethodPoint.kafkaCommitSync().onReturn();
            };
            held = "a debugger breakpoint at " + at;
            if (cell.point() == Point.BEFORE_OFFSET_COMMIT) {
                barrier = debugger.arm(cell.point().id(), at, HoldMode.THREAD, evidence, options);
                debugger.resumeProgram();
            } else {
                // a warm-up hold at A's first commitSync, then the point: the DB point skips the transactions A ran while starting
                // (its schema), and the return point is armed only now because watching returns slows the whole JVM down
                Barrier warmUp = debugger.arm("warm-up", MethodPoint.kafkaCommitSync(), HoldMode.THREAD, evidence, options);
                debugger.resumeProgram();
                try {
                    RebalanceExperiment.awaitArrival(ctx, warmUp, a);
                } catch (BarrierTimeoutException t) {
                    return e.finish(neverReached(ctx, cell.point(), "call KafkaConsumer#commitSync (the warm-up: its first offset commit)"));
                }
                barrier = debugger.arm(cell.point().id(), at, HoldMode.THREAD, evidence, options);
                warmUp.release();
            }
        }
        try {
            Arrival arrival;
            try {
                arrival = RebalanceExperiment.awaitArrival(ctx, barrier, a);
            } catch (BarrierTimeoutException t) {
                return e.finish(neverReached(ctx, cell.point(), nativeDb ? "reach " + NativePoint.sqliteCommit() + " ("
                        + NativePoint.sqliteCommit().unreached() + ")" : wire ? (cell.point() == Point.BEFORE_OFFSET_COMMIT ? "send an OffsetCommit"
                        : "get an OffsetCommit accepted") + " for group " + group : "reach " + held.substring("a debugger breakpoint at ".length())));
            }
            OffsetSnapshot atPoint = ctx.ops().describe(group);
            e.record(Source.here("harness"), atPoint.toPayload("A at " + cell.point().id()));
            recordInFlight(ctx, e, topic, inbox, arrival, atPoint);
            Set<String> aMembers = atPoint.members().stream().map(GroupMember::memberId).collect(Collectors.toSet());
            PartitionRef watched = arrival.offsets().stream().map(o -> new PartitionRef(o.topic(), o.partition())).findFirst()
                    .or(() -> atPoint.members().stream().flatMap(m -> m.assignment().stream()).findFirst())
                    .orElseThrow(() -> new IllegalStateException("A reached " + cell.point().id() + " owning no partition of " + topic));

            Event fault;
            List<LabContext.Instance> live = new ArrayList<>();
            switch (cell.fault()) {
                case HOLD -> fault = e.record(Source.here("harness"), new Payload.Note(aName + " (pid " + a.pid() + ") held at "
                        + cell.point().id() + " by " + held + "; " + arrival.context().getOrDefault("threads", "its other threads run")));
                case FREEZE -> {
                    if (gdb != null) {
                        // under ptrace a SIGSTOP only reaches the debugger: it stops every thread itself, confirmed in /proc (state t)
                        Map<Long, Character> states = gdb.freeze();
                        fault = e.record(Source.here("harness"), new Payload.Note(aName + " (pid " + gdb.pid() + ") frozen through the debugger at "
                                + cell.point().id() + " (held there by " + held + "): all " + states.size() + " of its threads stopped, /proc/"
                                + gdb.pid() + "/task/*/stat shows state t for each"));
                        break;
                    }
                    a.process().freeze(); // returns once /proc shows the process stopped (state T)
                    fault = e.record(Source.here("harness"), new Payload.Note(aName + " (pid " + a.pid() + ") frozen with SIGSTOP at "
                            + cell.point().id() + " (held there by " + held + "); /proc/" + a.pid() + "/stat shows state T"));
                }
                case CRASH -> {
                    if (gdb != null) {
                        gdb.killProgram(); // the program gdb holds, a wrapper's descendant too: gone in /proc before the crash is recorded
                    }
                    fault = ctx.crash(e, a);
                    running.remove(a);
                }
                default -> throw new IllegalStateException(cell.fault().name());
            }
            if (cell.fault() != Fault.CRASH) {
                live.add(a);
            }
            ctx.step("A " + cell.fault().id() + " at " + cell.point().id() + "; starting B");
            LabContext.Instance b = ctx.start(e, cell.id() + "-B", topic, group, inbox, false);
            running.add(b);
            live.add(b);
            if (cell.fault() == Fault.CRASH) {
                LabContext.Instance again = ctx.start(e, aName, topic, group, inbox, false); // the same instance name, a new process
                running.add(again);
                live.add(again);
            }
            Event handoff = RebalanceExperiment.awaitHandoff(ctx, e, group, watched, aMembers, a, live, ctx.settings().handoffTimeout());
            if (handoff == null) {
                return e.finish(Outcome.faultNotObserved("no handoff: " + watched + " stayed with A's member for " + ctx.settings().handoffTimeout()
                        + " after A was " + (cell.fault() == Fault.HOLD ? "held" : cell.fault() == Fault.FREEZE ? "frozen" : "killed")
                        + (cell.point() == Point.BEFORE_DB_COMMIT && cell.fault() != Fault.CRASH
                                ? " (A holds its DB transaction open: does a new instance wait for that lock before it joins the group?)" : "")));
            }
            if (cell.fault() != Fault.CRASH) {
                thaw(a, cell, gdb);
                barrier.release();
                Optional<CallOutcome> seen = barrier.awaitOutcome(Duration.ofSeconds(10));
                e.record(Source.here("harness"), new Payload.Note("A resumed at " + cell.point().id() + "; its call "
                        + seen.map(o -> o.verdict() + (o.message() == null ? "" : ": " + o.message())).orElse("had no outcome within 10 s")));
            }
            if (gdb != null) {
                gdb.close(); // its work is done: the program runs on untraced (and stops on SIGTERM as it would without a debugger)
            }

            ctx.step("the group recovers and drains");
            OffsetSnapshot settled = Experiments.settle(ctx, e, group, topic, running, b);
            if (settled == null) {
                return Experiments.notDrained(ctx, e);
            }
            e.record(Source.here("harness"), settled.toPayload("after recovery"));
            Comparison c = ctx.compare(topic, inbox, group);
            e.record(Source.here("harness"), c.toPayload());
            c.toChecks().forEach(e::check);
            return e.finish(Outcome.judge(e.confirmFault(cell.fault().id() + " at " + cell.point().id() + " (event " + fault.seq()
                    + "), then " + watched + " moved to another member", handoff), e.checks()));
        } finally {
            thaw(a, cell, gdb);
            NativeDebugger detach = gdb;
            Experiments.release(ctx, e, barrier, detach != null ? detach::close : debugger != null ? debugger::close : null, running);
        }
    }

    /** A frozen A runs again (a program never stays frozen; the debugger cannot talk to a stopped JVM). */
    private static void thaw(LabContext.Instance a, ScheduleCell cell, NativeDebugger gdb) {
        if (gdb != null && gdb.isFrozen()) {
            try {
                gdb.thaw();
            } catch (RuntimeException x) { // gdb gone: its end let the program run; the instances must still be stopped
                org.slf4j.LoggerFactory.getLogger(SchedulesExperiment.class).warn("cannot thaw {} through gdb: {}", a.name(), x.getMessage());
            }
        } else if (cell.fault() == Fault.FREEZE && a.process().isFrozen()) {
            a.process().thaw();
        }
    }

    private static Outcome neverReached(LabContext ctx, Point point, String what) {
        return Outcome.notRun("the injection point " + point.id() + " was never reached: A did not " + what + " within " + ctx.settings().barrierTimeout());
    }

    /** What the target and the group say about the record(s) A holds at the point: the evidence of where the fault hit. */
    private static void recordInFlight(LabContext ctx, ExperimentRecorder e, String topic, String inbox, Arrival arrival, OffsetSnapshot atPoint) {
        if (arrival.offsets().isEmpty()) {
            e.record(Source.here("harness"), new Payload.Note("A is at the point with no offsets in hand (a DB commit: the record is the one A "
                    + "fetched next); its transaction has not committed"));
            return;
        }
        for (CommitOffset o : arrival.offsets()) {
            Oracle.RecordEffects r = Oracle.effectsBefore(ctx.source(topic), ctx.target(inbox), o.partition(), o.offset())
                    .orElse(new Oracle.RecordEffects(o.partition(), o.offset() - 1, null, 0));
            e.record(Source.here("harness"), new Payload.Note("in flight: " + o.topic() + "-" + o.partition() + "@" + r.offset() + " ("
                    + r.messageId() + "): " + r.effects() + " effect(s) in the target; the group has committed "
                    + LabContext.committed(atPoint, topic, o.partition()) + ", A is committing " + o.offset()));
        }
    }
}
