package io.replaylab.harness.experiment;

import io.replaylab.evidence.process.Platform;
import io.replaylab.evidence.process.Poll;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
import io.replaylab.harness.barrier.CommitsAnotherWay;
import io.replaylab.harness.barrier.Held;
import io.replaylab.harness.barrier.PointNotReached;
import io.replaylab.harness.barrier.PointUnreachable;
import io.replaylab.harness.lab.InstanceSpec;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabKafka;
import io.replaylab.kafka.GroupMember;
import io.replaylab.kafka.GroupState;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.kafka.PartitionRef;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Oracle;

/**
 * Experiment {@code schedules}: every single fault (hold, freeze, crash) at every point of the
 * commit protocol (before the DB commit, before the offset commit, after it), and the sequences of
 * two that catch what those do not ({@code before-db-commit:hold-then-crash}), one cell after
 * another, each on a fresh child namespace and recorded as an experiment of its own; the matrix
 * and the worst cell are this experiment's outcome. A cell PASSes when its fault was confirmed at
 * its point (a sequence: each of its steps, in order), the group recovered and drained, and every
 * effect is in the target exactly once.
 */
final class SchedulesExperiment {
    static final String NAME = "schedules";
    static final String[] REQUIREMENTS = {"R7", "R8", "R10", "R11", "R12", "R13", "R14", "R15"};

    private SchedulesExperiment() {
    }

    static Outcome run(List<ScheduleCell> selected, LabContext ctx, LabNamespace ns, ExperimentRecorder e) {
        Experiments.onTheRunsBroker(ctx, e, ns);
        e.environment("barrier", BarrierPlan.overview(ctx));
        e.environment("cells", selected.stream().map(ScheduleCell::toString).collect(Collectors.joining(", ")));
        e.limitation("One fault per cell, or one sequence of two (the second after the contention window, "
                + ctx.settings().timeouts().contentionWindow() + "), at the first record A processes at that point; a fault between other "
                + "instructions, or two faults at once, is not shown.");
        Map<ScheduleCell, Outcome> outcomes = Cells.run(ctx, ns, REQUIREMENTS, selected, ScheduleCell::id, SchedulesExperiment::partName,
                SchedulesExperiment::runCell);
        List<Payload.MatrixCell> cells = new ArrayList<>();
        for (ScheduleCell cell : ScheduleCell.every()) {
            Outcome o = outcomes.get(cell);
            if (o != null) {
                cells.add(new Payload.MatrixCell(cell.point().id(), cell.fault().id(), o.status().name(), partName(cell), cell.meaning(), o.reason()));
            } else if (ScheduleCell.all(ctx.target().wire().isPresent()).contains(cell)) { // a cell of the default matrix says it was left out; one named only on demand is absent
                cells.add(new Payload.MatrixCell(cell.point().id(), cell.fault().id(), "NOT_SELECTED", null, cell.meaning(), "not among the cells asked for"));
            }
        }
        List<String> columns = Arrays.stream(Fault.values()).map(Fault::id).filter(f -> cells.stream().anyMatch(c -> c.column().equals(f))).toList();
        e.record(Source.here("harness"), new Payload.Matrix("Schedule: point × fault", "point",
                Arrays.stream(CommitPoint.values()).map(CommitPoint::id).filter(p -> cells.stream().anyMatch(c -> c.row().equals(p))).toList(), columns,
                cells));
        return Verdicts.worstCell(e, outcomes, "every cell's fault was confirmed at its point");
    }

    static String partName(ScheduleCell cell) {
        return NAME + "." + cell.id();
    }

    /** One cell: A reaches the point, the fault hits it there, B takes over (and A restarts after a crash), drain, oracle. */
    static Outcome runCell(LabContext ctx, LabNamespace ns, ExperimentRecorder e, ScheduleCell cell) throws Exception {
        Experiments.onTheRunsBroker(ctx, e, ns);
        BarrierPlan plan = BarrierPlan.of(ctx, cell.point());
        e.environment("barrier", plan.display());
        e.environment("point", cell.point().id() + ": " + cell.point().description());
        e.environment("fault", cell.fault().id() + ": " + cell.fault().description());
        e.limitation("This cell: " + cell.meaning() + ".");
        Platform platform = ctx.settings().platform();
        Optional<String> unavailable = cell.fault().unavailableOn(platform).or(plan::unavailable);
        if (unavailable.isPresent()) {
            return e.finish(Outcome.notRun(unavailable.get()));
        }
        // in two steps: a consumer that commits on a timer or a batch's end must still have records to process once A's point is armed
        StagedSource source = StagedSource.produce(ctx, e, ns, "once A's point is armed");

        // a sequence keeps A held for the contention window too: the barrier's safety release must not come first
        BarrierOptions options = BarrierOptions.ofDefaults().holdTimeout(Handoff.longest(ctx).plus(ctx.settings().timeouts().drain())
                .plus(cell.fault().isSequence() ? ctx.settings().timeouts().contentionWindow() : Duration.ZERO));
        try {
            return attempt(ctx, ns, e, cell, plan, source, options, ns.group(), ns.inbox(1));
        } catch (RebalanceExperiment.FallBack f) {
            BarrierPlan next = plan.fallback(f.why()).orElseThrow();
            e.environment("barrier", next.display());
            e.limitation(next.limitation());
            ctx.step("falling back to " + next.display() + ": a new group and inbox namespace on the same topic and target");
            try {
                return attempt(ctx, ns, e, cell, next, source, options, ns.group(f.why() == BarrierPlan.Why.DB_COMMITS_PAST_THE_DEBUGGER
                        ? "statement" : "wire"), ns.inbox(2));
            } catch (RebalanceExperiment.FallBack again) {
                throw new IllegalStateException("a fallback has no fallback", again);
            }
        }
    }

    /**
     * One try of a cell with one barrier, on {@code group} and {@code inbox}.
     *
     * @throws RebalanceExperiment.FallBack A goes past the debugger's point another way (its offsets, its DB work), and the plan
     *     has a fallback: everything of the try is stopped
     */
    private static Outcome attempt(LabContext ctx, LabNamespace ns, ExperimentRecorder e, ScheduleCell cell, BarrierPlan plan, StagedSource source,
            BarrierOptions options, String group, String inbox) throws Exception, RebalanceExperiment.FallBack {
        String topic = ns.topic();
        String aName = cell.id() + "-A";
        Held at;
        try {
            at = plan.arm(ctx, e, cell.point().id(), ctx.subjects().consumer(aName, topic, group, inbox), group, HoldMode.THREAD, options);
        } catch (PointNotReached x) {
            return e.finish(neverReached(ctx, cell.point(), x.getMessage()));
        } catch (PointUnreachable x) {
            return e.finish(Outcome.notRun(x.getMessage()));
        } catch (CommitsAnotherWay x) {
            return RebalanceExperiment.offTheDebugger(e, plan, x);
        }
        try (at) {
            source.publishRest();
            LabContext.Instance a = at.instance();
            Arrival arrival;
            try {
                arrival = at.awaitArrival();
            } catch (BarrierTimeoutException t) {
                return e.finish(neverReached(ctx, cell.point(), at.unreached()));
            } catch (PointUnreachable x) {
                return e.finish(Outcome.notRun("the injection point " + cell.point().id() + " cannot be reached: " + x.getMessage()));
            } catch (CommitsAnotherWay x) {
                return RebalanceExperiment.offTheDebugger(e, plan, x);
            }
            // a point before any offset is known (before-db-commit) names its partition only through the group's
            // assignment, which a describe taken while the group settles may not show yet (seen once on a 4.1 broker)
            // and which is gone once A's held thread outlasted its poll interval (seen in a loaded CI run)
            OffsetSnapshot atPoint = arrival.offsets().isEmpty()
                    ? Poll.every(Duration.ofMillis(200)).upTo(Duration.ofSeconds(10)).until(() -> ctx.kafka().ops().describe(group),
                            d -> d.members().isEmpty() || d.members().stream().anyMatch(m -> !m.assignment().isEmpty()))
                    : ctx.kafka().ops().describe(group);
            e.record(Source.here("harness"), atPoint.toPayload("A at " + cell.point().id()));
            recordInFlight(ctx, e, topic, inbox, arrival, atPoint);
            Optional<Outcome> standalone = Handoff.standalone(ctx, group, atPoint);
            if (standalone.isPresent()) {
                // a crash needs no other member: A's restart takes its records over, as a supervisor's would
                return cell.fault() == Fault.CRASH ? restartedAlone(ctx, e, cell, at, arrival, ctx.subjects().consumer(aName, topic, group, inbox),
                        group, topic, inbox) : e.finish(standalone.get());
            }
            Set<String> aMembers = atPoint.members().stream().map(GroupMember::memberId).collect(Collectors.toSet());
            // every partition A's held commit carries: the hazard is any of them moving to B, and a commit that carries several
            // (a timer's, a batch's) may keep the first with A while another moves; a point before any offset watches A's first
            Set<PartitionRef> watched = arrival.offsets().isEmpty()
                    ? Set.of(atPoint.members().stream().flatMap(m -> m.assignment().stream()).findFirst()
                            .or(() -> aAloneAndDropped(e, cell, atPoint, topic))
                            .orElseThrow(() -> new IllegalStateException("A reached " + cell.point().id() + " owning no partition of " + topic)))
                    : arrival.offsets().stream().map(o -> new PartitionRef(o.topic(), o.partition()))
                            .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
            String watching = named(watched);

            Event fault = cell.fault().inject(at, arrival, e, cell.point().id());
            Handoff wait = Handoff.of(ctx, e, group, aMembers);
            List<LabContext.Instance> live = new ArrayList<>();
            if (cell.fault().leavesARunning()) {
                live.add(a);
            }
            ctx.step("A " + cell.fault().id() + " at " + cell.point().id() + "; starting B");
            LabContext.Instance b = ctx.subjects().start(e, ctx.subjects().consumer(cell.id() + "-B", topic, group, inbox));
            at.alsoStop(b);
            live.add(b);
            Steps then = new Steps(ctx, e, cell, at, arrival, b, group, ctx.subjects().consumer(aName, topic, group, inbox));
            if (!cell.fault().leavesARunning()) {
                live.add(then.restartA()); // the same instance name, a new process
            }
            ctx.step("waiting for " + (watched.size() == 1 ? "" : "one of ") + watching + " to move to another member (" + wait.says() + ")");
            Handoff.Moved moved;
            try (wait) {
                moved = RebalanceExperiment.awaitHandoff(ctx, e, group, watched, aMembers, a, live, wait.waitFor());
            }
            if (moved == null) {
                Optional<String> stayed = cell.fault().leavesARunning()
                        ? described(ctx, group).flatMap(now -> keptTakingPart(now, watched, aMembers, a.name(), cell.fault().done() + " at "
                                + cell.point().id(), wait.waitFor()))
                        : Optional.empty();
                if (stayed.isPresent()) {
                    return e.finish(Outcome.notRun(stayed.get()));
                }
                return e.finish(wait.none("no handoff: " + watching + " stayed with A's member for " + wait.waitFor()
                        + " after A was " + cell.fault().done()
                        + (cell.point() == CommitPoint.BEFORE_DB_COMMIT && cell.fault().leavesARunning()
                                ? " (A holds its DB transaction open: does a new instance wait for that lock before it joins the group?)" : "")));
            }
            Event handoff = moved.event();
            then.moved(moved.partition());
            Optional<Event> second;
            try {
                second = cell.fault().afterHandoff(then);
            } catch (AfterHandoff.StepNotConfirmed x) {
                return e.finish(Outcome.notRun(x.getMessage()));
            }
            at.untrace();

            ctx.step("the group recovers and drains");
            OffsetSnapshot settled = Experiments.settle(ctx, e, group, topic, inbox, at.running(), b);
            if (settled == null) {
                return Experiments.notDrained(ctx, e);
            }
            e.record(Source.here("harness"), settled.toPayload("after recovery"));
            Comparison c = ctx.target().judge(e, topic, inbox, group);
            String firstStep = cell.fault().id() + " at " + cell.point().id() + (cell.fault().isSequence() ? ": " + cell.fault().done() : "")
                    + " (event " + fault.seq() + "), then " + moved.partition() + " moved to another member";
            return e.finish(Verdicts.naming(Outcome.judge(second.map(last -> e.confirmFault(firstStep + " (event " + handoff.seq() + ")"
                    + then.trail(), last)).orElseGet(() -> e.confirmFault(firstStep, handoff)), e.checks()), c));
        }
    }

    /**
     * A crash cell of an A that is no member of its group at its point (it assigns its partitions itself, or, with no witness to
     * tell, its group dropped it): no rebalance can hand its partitions to B, and none is needed: A is killed at the point and restarted alone, reading on from the group's committed offsets, and
     * the cell is judged on what the restart applied.
     */
    private static Outcome restartedAlone(LabContext ctx, ExperimentRecorder e, ScheduleCell cell, Held at, Arrival arrival, InstanceSpec aAgain,
            String group, String topic, String inbox) throws InterruptedException {
        Event fault = cell.fault().inject(at, arrival, e, cell.point().id());
        e.limitation("A is no member of group " + group + " at its point: no B joins; A's restart alone takes its records over from the "
                + "group's committed offsets.");
        LabContext.Instance again = ctx.subjects().start(e, aAgain);
        at.alsoStop(again);
        Event restarted = e.record(Source.here("harness"), new Payload.Note(again.name() + " restarted alone as a new process (pid " + again.pid()
                + "), with no B: A was no member of group " + group + " at its point"));
        ctx.step("A crashed at " + cell.point().id() + " and restarted alone; it drains");
        OffsetSnapshot settled = Experiments.settle(ctx, e, group, topic, inbox, List.of(again), again);
        if (settled == null) {
            return Experiments.notDrained(ctx, e);
        }
        e.record(Source.here("harness"), settled.toPayload("after recovery"));
        Comparison c = ctx.target().judge(e, topic, inbox, group);
        return e.finish(Verdicts.naming(Outcome.judge(e.confirmFault(cell.fault().id() + " at " + cell.point().id() + " (event " + fault.seq()
                + "), then A restarted alone", restarted), e.checks()), c));
    }

    /**
     * Why a partition did not move from a held A, when the group shows it: A kept taking part (the group settled with
     * another member in it and p still A's, by member id or by A's client id), so the hold did not take A out of the group:
     * the held step is not one A needs to stay a member, or A's process joined again as a new member that was given p back.
     * No handoff then says nothing about the consumer's duplicate safety: the cell could not make its hazard, which is
     * NOT_RUN, not a FAIL.
     */
    static Optional<String> keptTakingPart(OffsetSnapshot now, Set<PartitionRef> watched, Set<String> aMembers, String aName, String how,
            Duration waited) {
        boolean ownerIsA = watched.stream().allMatch(p -> now.members().stream().filter(m -> m.assignment().contains(p)).findFirst()
                .filter(m -> aMembers.contains(m.memberId()) || m.clientId().equals(aName)).isPresent());
        long others = now.members().stream().filter(m -> !aMembers.contains(m.memberId()) && !m.clientId().equals(aName)).count();
        if (now.state() != GroupState.STABLE || !ownerIsA || others == 0) {
            return Optional.empty();
        }
        return Optional.of("A kept taking part in the group while " + how + ": the group settled (" + now.state().display() + ", "
                + now.members().size() + " members, the new one(s) in it) with " + named(watched) + " still A's for " + waited
                + "; holding this step did not take A out of the group (A stayed a member, or its process joined again as a new one and "
                + "was given " + (watched.size() == 1 ? "it" : "them") + " back), so it cannot move " + (watched.size() == 1 ? "it" : "them")
                + ": this fault needs a consumer whose membership waits for the held step");
    }

    /** The group as the broker describes it now; empty when it cannot say (a describe that failed says nothing about A). */
    private static Optional<OffsetSnapshot> described(LabContext ctx, String group) {
        try {
            return Optional.of(ctx.kafka().ops().describe(group));
        } catch (RuntimeException x) {
            return Optional.empty();
        }
    }

    /** The steps a fault makes after the handoff, on one cell's A and B; what a sequence's later steps did, for its confirmation. */
    private static final class Steps implements AfterHandoff {
        private final LabContext ctx;
        private final ExperimentRecorder e;
        private final ScheduleCell cell;
        private final Held at;
        private final Arrival arrival;
        private final LabContext.Instance b;
        private final String group;
        private final InstanceSpec aAgain;
        private final StringBuilder trail = new StringBuilder();
        /** The watched partition that moved to another member: set once the handoff is seen, before any step after it. */
        private PartitionRef watched;

        Steps(LabContext ctx, ExperimentRecorder e, ScheduleCell cell, Held at, Arrival arrival, LabContext.Instance b, String group,
                InstanceSpec aAgain) {
            this.ctx = ctx;
            this.e = e;
            this.cell = cell;
            this.at = at;
            this.arrival = arrival;
            this.b = b;
            this.group = group;
            this.aAgain = aAgain;
        }

        void moved(PartitionRef p) {
            this.watched = p;
        }

        @Override
        public Event contend() throws InterruptedException {
            Duration window = ctx.settings().timeouts().contentionWindow();
            LabContext.Instance a = at.instance();
            ctx.step("A stays held at " + cell.point().id() + " for the contention window (" + window + ") while B works on its records");
            long before = LabKafka.committed(ctx.kafka().ops().describe(group), watched.topic(), watched.partition());
            long end = System.nanoTime() + window.toNanos();
            while (System.nanoTime() < end && a.process().isAlive()) {
                ctx.subjects().checkpoint(b); // B must work on through the window: one that exits is restarted, or ends the cell, saying why
                Thread.sleep(Math.max(1, Math.min(200, (end - System.nanoTime()) / 1_000_000)));
            }
            Optional<String> notHeld = AfterHandoff.notHeld(cell, window, a.pid(), a.process().isAlive(), a.process().exitCode(), at.barrier().state());
            if (notHeld.isPresent()) {
                throw new StepNotConfirmed(notHeld.get());
            }
            long after = LabKafka.committed(ctx.kafka().ops().describe(group), watched.topic(), watched.partition());
            Event held = e.record(Source.here("harness"), new Payload.Note(a.name() + " (pid " + a.pid() + ") still held at " + cell.point().id()
                    + " after the contention window (" + window + ") with " + watched + " on B: the group's committed offset of " + watched
                    + " went from " + offset(before) + " to " + offset(after) + " meanwhile"));
            trail.append(", then A held for the contention window ").append(window).append(" (event ").append(held.seq()).append(")");
            return held;
        }

        @Override
        public Event resume() throws InterruptedException {
            at.thaw();
            at.barrier().release();
            Optional<CallOutcome> seen = at.barrier().awaitOutcome(Duration.ofSeconds(10));
            Event resumed = e.record(Source.here("harness"), new Payload.Note("A resumed at " + cell.point().id() + "; its call "
                    + seen.map(o -> o.verdict() + (o.message() == null ? "" : ": " + o.message())).orElse("had no outcome within 10 s")));
            trail.append(", then released (event ").append(resumed.seq()).append(")");
            return resumed;
        }

        @Override
        public Event inject(Fault single) {
            Event hit = single.inject(at, arrival, e, cell.point().id());
            if (!single.leavesARunning()) {
                restartA();
            }
            trail.append(", then ").append(single.id()).append(" (event ").append(hit.seq()).append(")");
            return hit;
        }

        /** A crashed A comes back as a new process with the same instance name, as a crash's restart does. */
        LabContext.Instance restartA() {
            LabContext.Instance again = ctx.subjects().start(e, aAgain);
            at.alsoStop(again);
            return again;
        }

        /** What the later steps did, in order, each with its event: the end of a sequence's confirmation. */
        String trail() {
            return trail.toString();
        }

        private static String offset(long committed) {
            return committed == PartitionOffsets.NONE ? "none" : Long.toString(committed);
        }
    }

    /** The watched partitions as the evidence names them: {@code t-0}, or {@code t-0, t-1}. */
    private static String named(Set<PartitionRef> watched) {
        return watched.stream().map(PartitionRef::toString).collect(Collectors.joining(", "));
    }

    private static Outcome neverReached(LabContext ctx, CommitPoint point, String what) {
        return Outcome.notRun(Held.neverReached(ctx, point.id(), what));
    }

    /**
     * A was the group's only member when it reached the point, so every partition was A's; a group with no member left
     * means A's held thread outlasted its poll interval before the harness looked: B must still take the partition over.
     */
    private static Optional<PartitionRef> aAloneAndDropped(ExperimentRecorder e, ScheduleCell cell, OffsetSnapshot atPoint, String topic) {
        if (!atPoint.members().isEmpty()) {
            return Optional.empty();
        }
        PartitionRef first = PartitionRef.of(topic, 0);
        e.record(Source.here("harness"), new Payload.Note("A's member had already left the group when the harness looked at "
                + cell.point().id() + " (its held thread outlasted the poll interval); A was the only member, so it owned every "
                + "partition: watching " + first));
        return Optional.of(first);
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
