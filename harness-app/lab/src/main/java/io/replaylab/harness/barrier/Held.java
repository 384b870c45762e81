package io.replaylab.harness.barrier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.BarrierSource;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.IllegalBarrierMoveException;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabStoppedException;
import io.replaylab.harness.lab.SubjectExitedException;
import io.replaylab.harness.lab.SubjectFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Instance A with its point armed ({@link BarrierPlan#arm}): one shape whatever holds it. Closing it
 * releases a held point (a program never stays held), detaches any debugger and stops the instances
 * it was given ({@link #running()}: A and those started beside it).
 */
public final class Held implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Held.class);

    private final BarrierPlan.Technology technology;
    private final LabContext ctx;
    private final ExperimentRecorder e;
    private final String pointName;
    private final String name;
    private final LabContext.Instance instance;
    private final List<LabContext.Instance> running = new ArrayList<>();
    Barrier barrier;
    BarrierEvidence evidence;
    /** The debugger that holds A, when one does (the wire proxy is the run's: it outlives the point). */
    BarrierSource<?> source;
    /** gdb, when it holds A: a freeze and a crash go through it. */
    NativeDebugger gdb;
    String heldBy;
    String unreached;
    private boolean frozen;

    Held(BarrierPlan.Technology technology, LabContext ctx, ExperimentRecorder e, String pointName, String name, LabContext.Instance instance) {
        this.technology = technology;
        this.ctx = ctx;
        this.e = e;
        this.pointName = pointName;
        this.name = name;
        this.instance = instance;
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

    /** The instances to stop when this ends (A and those started beside it): add B here. */
    public List<LabContext.Instance> running() {
        return running;
    }

    /**
     * Waits for A at the point, up to the run's barrier timeout, checking A on the way: an A that
     * exited, or a run stopped, ends the wait (the barrier expires, so the evidence shows the point
     * was never reached).
     *
     * @throws io.replaylab.barrier.BarrierTimeoutException A did not arrive in time
     */
    public Arrival awaitArrival() throws InterruptedException {
        return awaitArrival(ctx, barrier, instance);
    }

    static Arrival awaitArrival(LabContext ctx, Barrier barrier, LabContext.Instance a) throws InterruptedException {
        Optional<Arrival> arrived = Poll.every(Duration.ZERO).upTo(ctx.settings().timeouts().barrier()).until(() -> {
            Optional<Arrival> got = barrier.tryAwaitArrival(Duration.ofMillis(250));
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
            return got;
        }, Optional::isPresent);
        if (arrived.isPresent()) {
            return arrived.get();
        }
        return barrier.awaitArrival(Duration.ofNanos(1));
    }

    /**
     * A warm-up's wait: true when A arrived at the warm-up hold, false when the group got a committed
     * offset without it (A commits another way: its client's timer, commitAsync): then the warm-up is
     * given up, since A's start-up is behind it either way.
     */
    static boolean awaitWarmUpOrCommit(LabContext ctx, Barrier warmUp, LabContext.Instance a, String group) throws InterruptedException {
        boolean[] committed = {false};
        Optional<Arrival> arrived = Poll.every(Duration.ZERO).upTo(ctx.settings().timeouts().barrier()).until(() -> {
            Optional<Arrival> got = warmUp.tryAwaitArrival(Duration.ofMillis(250));
            if (got.isPresent()) {
                return got;
            }
            ctx.subjects().checkpointHeld(a);
            if (ctx.kafka().ops().describe(group).partitions().stream().anyMatch(p -> p.committed() >= 0)) {
                try {
                    warmUp.expire();
                    committed[0] = true;
                    return Optional.<Arrival>empty();
                } catch (IllegalBarrierMoveException arrivedAtTheLastMoment) {
                    return warmUp.tryAwaitArrival(Duration.ZERO);
                }
            }
            return got;
        }, got -> got.isPresent() || committed[0]);
        if (committed[0]) {
            return false;
        }
        if (arrived.isPresent()) {
            return true;
        }
        warmUp.awaitArrival(Duration.ofNanos(1)); // throws the barrier's timeout
        return true;
    }

    /**
     * Stops every thread of A at the point and records it: through gdb where gdb holds A (under
     * ptrace a SIGSTOP only reaches the debugger), else SIGSTOP to A's process group; confirmed in /proc.
     */
    public Event freeze() {
        frozen = true;
        if (gdb != null) {
            Map<Long, Character> states = gdb.freeze();
            return e.record(Source.here("harness"), new Payload.Note(name + " (pid " + gdb.pid() + ") frozen through the debugger at "
                    + pointName + " (held there by " + heldBy + "): all " + states.size() + " of its threads stopped, /proc/" + gdb.pid()
                    + "/task/*/stat shows state t for each"));
        }
        instance.process().freeze(); // returns once /proc shows the process stopped (state T)
        return e.record(Source.here("harness"), new Payload.Note(name + " (pid " + instance.pid() + ") frozen with SIGSTOP at " + pointName
                + " (held there by " + heldBy + "); /proc/" + instance.pid() + "/stat shows state T"));
    }

    /** SIGKILL to A (and first the program gdb holds, a wrapper's descendant too), recorded; A is no longer running. */
    public Event crash() {
        if (gdb != null) {
            gdb.killProgram(); // gone in /proc before the crash is recorded
        }
        running.remove(instance);
        return ctx.subjects().crash(e, instance);
    }

    /** A frozen A runs again (a program never stays frozen; a debugger cannot talk to a stopped JVM). */
    public void thaw() {
        if (gdb != null && gdb.isFrozen()) {
            try {
                gdb.thaw();
            } catch (RuntimeException x) { // gdb gone: its end let the program run; the instances must still be stopped
                log.warn("cannot thaw {} through gdb: {}", name, x.getMessage());
            }
        } else if (gdb == null && frozen && instance.process().isAlive() && instance.process().isFrozen()) {
            instance.process().thaw();
        }
    }

    /**
     * The point's work is done: a native debugger lets the program go, untraced (it stops on SIGTERM
     * as it would without one). A JVM's debugger holds nothing now and stays attached until {@link #close}.
     */
    public void untrace() {
        if (gdb != null) {
            gdb.close();
        }
    }

    /** Every debugger gone (a JVM's resumes whatever it still suspends). */
    public void detach() {
        if (source != null) {
            source.close();
        }
    }

    @Override
    public void close() {
        try {
            thaw();
        } catch (RuntimeException x) { // still stopped: it is stopped (SIGTERM, then SIGKILL) all the same below
            log.warn("cannot thaw {}: {}", name, x.getMessage());
        } finally {
            if (barrier != null && barrier.state() == BarrierState.HELD) {
                barrier.release();
            }
            detach();
            for (LabContext.Instance i : running) {
                if (i.process().isAlive()) {
                    ctx.subjects().stop(e, i);
                }
            }
        }
    }

    @Override
    public String toString() {
        return technology + " at " + pointName + " on " + name;
    }
}
