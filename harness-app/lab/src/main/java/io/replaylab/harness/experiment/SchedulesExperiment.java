package io.replaylab.harness.experiment;

import io.replaylab.evidence.process.Platform;

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
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.CommitOffset;
import io.replaylab.barrier.HoldMode;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.experiment.ScheduleCell.Fault;
import io.replaylab.harness.barrier.BarrierPlan;
import io.replaylab.harness.barrier.CommitPoint;
import io.replaylab.harness.barrier.Held;
import io.replaylab.harness.barrier.PointNotReached;
import io.replaylab.harness.barrier.PointUnreachable;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabKafka;
import io.replaylab.kafka.GroupMember;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionRef;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Oracle;

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
        BarrierKind.Choice choice = ctx.settings().barrier().choice();
        e.environment("barrier", choice.display() + (choice.kind() == BarrierKind.WIRE
                ? "; before-db-commit: native (gdb at the SQLite commit), which the wire barrier cannot see" : ""));
        e.environment("cells", selected.stream().map(ScheduleCell::toString).collect(Collectors.joining(", ")));
        e.limitation(Limitations.singleBrokerAndDatabase(ctx.target().kind()));
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
                Arrays.stream(CommitPoint.values()).map(CommitPoint::id).toList(), Arrays.stream(Fault.values()).map(Fault::id).toList(), cells));
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
        BarrierPlan plan = BarrierPlan.of(choice, cell.point());
        e.environment("barrier", plan.display());
        e.environment("point", cell.point().id() + ": " + cell.point().description());
        e.environment("fault", cell.fault().id() + ": " + cell.fault().description());
        e.limitation(Limitations.singleBrokerAndDatabase(ctx.target().kind()));
        e.limitation("This cell: " + cell.meaning() + ".");
        String topic = ns.topic();
        String group = ns.group();
        String inbox = ns.inbox(1);
        String aName = cell.id() + "-A";
        Platform platform = ctx.settings().platform();
        Optional<String> unavailable = cell.fault().unavailableOn(platform).or(() -> plan.unavailableOn(platform));
        if (unavailable.isPresent()) {
            return e.finish(Outcome.notRun(unavailable.get()));
        }
        Experiments.produce(ctx, e, ns);

        BarrierOptions options = BarrierOptions.ofDefaults().holdTimeout(ctx.settings().timeouts().handoff().plus(ctx.settings().timeouts().drain()));
        Held at;
        try {
            at = plan.arm(ctx, e, cell.point().id(), ctx.subjects().consumer(aName, topic, group, inbox), group, HoldMode.THREAD, options);
        } catch (PointNotReached x) {
            return e.finish(neverReached(ctx, cell.point(), x.getMessage()));
        } catch (PointUnreachable x) {
            return e.finish(Outcome.notRun(x.getMessage()));
        }
        try (at) {
            LabContext.Instance a = at.instance();
            Arrival arrival;
            try {
                arrival = at.awaitArrival();
            } catch (BarrierTimeoutException t) {
                return e.finish(neverReached(ctx, cell.point(), at.unreached()));
            }
            OffsetSnapshot atPoint = ctx.kafka().ops().describe(group);
            e.record(Source.here("harness"), atPoint.toPayload("A at " + cell.point().id()));
            recordInFlight(ctx, e, topic, inbox, arrival, atPoint);
            Set<String> aMembers = atPoint.members().stream().map(GroupMember::memberId).collect(Collectors.toSet());
            PartitionRef watched = arrival.offsets().stream().map(o -> new PartitionRef(o.topic(), o.partition())).findFirst()
                    .or(() -> atPoint.members().stream().flatMap(m -> m.assignment().stream()).findFirst())
                    .orElseThrow(() -> new IllegalStateException("A reached " + cell.point().id() + " owning no partition of " + topic));

            Event fault = cell.fault().inject(at, arrival, e, cell.point().id());
            List<LabContext.Instance> live = new ArrayList<>();
            if (cell.fault().leavesARunning()) {
                live.add(a);
            }
            ctx.step("A " + cell.fault().id() + " at " + cell.point().id() + "; starting B");
            LabContext.Instance b = ctx.subjects().start(e, ctx.subjects().consumer(cell.id() + "-B", topic, group, inbox));
            at.running().add(b);
            live.add(b);
            if (!cell.fault().leavesARunning()) {
                LabContext.Instance again = ctx.subjects().start(e, ctx.subjects().consumer(aName, topic, group, inbox)); // the same instance name, a new process
                at.running().add(again);
                live.add(again);
            }
            Event handoff = RebalanceExperiment.awaitHandoff(ctx, e, group, watched, aMembers, a, live, ctx.settings().timeouts().handoff());
            if (handoff == null) {
                return e.finish(Outcome.faultNotObserved("no handoff: " + watched + " stayed with A's member for " + ctx.settings().timeouts().handoff()
                        + " after A was " + cell.fault().done()
                        + (cell.point() == CommitPoint.BEFORE_DB_COMMIT && cell.fault().leavesARunning()
                                ? " (A holds its DB transaction open: does a new instance wait for that lock before it joins the group?)" : "")));
            }
            if (cell.fault().leavesARunning()) {
                at.thaw();
                at.barrier().release();
                Optional<CallOutcome> seen = at.barrier().awaitOutcome(Duration.ofSeconds(10));
                e.record(Source.here("harness"), new Payload.Note("A resumed at " + cell.point().id() + "; its call "
                        + seen.map(o -> o.verdict() + (o.message() == null ? "" : ": " + o.message())).orElse("had no outcome within 10 s")));
            }
            at.untrace();

            ctx.step("the group recovers and drains");
            OffsetSnapshot settled = Experiments.settle(ctx, e, group, topic, at.running(), b);
            if (settled == null) {
                return Experiments.notDrained(ctx, e);
            }
            e.record(Source.here("harness"), settled.toPayload("after recovery"));
            Comparison c = ctx.target().compare(topic, inbox, group);
            e.record(Source.here("harness"), c.toPayload());
            c.toChecks().forEach(e::check);
            return e.finish(Outcome.judge(e.confirmFault(cell.fault().id() + " at " + cell.point().id() + " (event " + fault.seq()
                    + "), then " + watched + " moved to another member", handoff), e.checks()));
        }
    }

    private static Outcome neverReached(LabContext ctx, CommitPoint point, String what) {
        return Outcome.notRun("the injection point " + point.id() + " was never reached: A did not " + what + " within " + ctx.settings().timeouts().barrier());
    }

    /** What the target and the group say about the record(s) A holds at the point: the evidence of where the fault hit. */
    private static void recordInFlight(LabContext ctx, ExperimentRecorder e, String topic, String inbox, Arrival arrival, OffsetSnapshot atPoint) {
        if (arrival.offsets().isEmpty()) {
            e.record(Source.here("harness"), new Payload.Note("A is at the point with no offsets in hand (a DB commit: the record is the one A "
                    + "fetched next); its transaction has not committed"));
            return;
        }
        for (CommitOffset o : arrival.offsets()) {
            PartitionRef p = PartitionRef.of(topic, o.partition()); // the source topic's partition, as the oracle reads it
            Oracle.RecordEffects r = Oracle.of(ctx.kafka().source(topic), ctx.target().inbox(inbox)).effectsBefore(p, o.offset())
                    .orElse(new Oracle.RecordEffects(p, o.offset() - 1, null, 0));
            e.record(Source.here("harness"), new Payload.Note("in flight: " + o.topic() + "-" + o.partition() + "@" + r.offset() + " ("
                    + r.messageId() + "): " + r.effects() + " effect(s) in the target; the group has committed "
                    + LabKafka.committed(atPoint, topic, o.partition()) + ", A is committing " + o.offset()));
        }
    }
}
