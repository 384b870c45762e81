package io.replaylab.harness.barrier;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.NativePoint;
import io.replaylab.barrier.gdb.NativeAttachException;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Platform;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabEvent;

/**
 * A gdb breakpoint at {@code at} in a program that is not a JVM (the wire sees only the Kafka
 * protocol, not a DB commit), armed while A's first OffsetCommit is held on the wire: as for a JVM,
 * the transactions A runs while it starts (its schema) do not count, and its next record's commit
 * cannot slip by.
 */
record NativeTechnology(NativePoint at) implements Technology {
    @Override
    public Held arm(Arming a) throws InterruptedException {
        WireWarmUp warmUp = WireWarmUp.start(a);
        LabContext.Instance inst = warmUp.instance();
        NativeDebugger gdb = null;
        boolean armed = false;
        try {
            gdb = attach(a.ctx(), inst);
            a.e().record(Source.here("harness"), new LabEvent.DebuggerAttached(a.spec().name(), gdb.pid(), inst.pid(), gdb.library().toString(),
                    gdb.attachPause().toMillis()));
            warmUp.await();
            BarrierEvidence evidence = BarrierEvidence.into(a.e(), a.spec().name(), inst::pid, "native-thread");
            Barrier barrier = gdb.arm(a.pointName(), at, HoldMode.THREAD, evidence, a.options());
            armed = true;
            return new Held("native", a, inst, barrier, evidence, "a native debugger (gdb) breakpoint at " + at,
                    "reach " + at + " (" + at.unreached() + ")", Hold.gdb(gdb));
        } catch (NativeAttachException x) {
            if (x.reason() == NativeAttachException.Reason.GONE) {
                // gdb can see the pid gone before this JVM has reaped it: wait for the exit code, so the cell says it
                Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(2)).until(() -> !inst.process().isAlive());
            }
            a.ctx().subjects().checkpointHeld(inst); // a subject that exited says so, with its exit code
            throw new PointUnreachable("not reachable for this subject: the native barrier could not attach (" + x.getMessage() + ")");
        } finally {
            warmUp.close();
            if (!armed) { // nothing of a try that did not arm stays: no debugger attached, A stopped
                try {
                    if (gdb != null) {
                        gdb.close();
                    }
                } finally {
                    Held.stop(a.ctx(), a.e(), List.of(inst));
                }
            }
        }
    }

    /**
     * gdb attached to A, or a descendant of it, searched for the point's function for up to the barrier
     * timeout; gdb runs in a process group of its own under the run's watchdog: a harness that dies
     * leaves no debugger behind.
     */
    private NativeDebugger attach(LabContext ctx, LabContext.Instance inst) throws InterruptedException {
        return NativeDebugger.to(inst.pid()).launcher(ctx.subjects()::guarded).onStart(ctx.subjects()::watch)
                .searchTimeout(ctx.settings().timeouts().barrier()).attach(at);
    }

    @Override
    public HoldMode mode(HoldMode asked) {
        return HoldMode.THREAD;
    }

    @Override
    public String holdMode(HoldMode asked) {
        return "native-thread";
    }

    @Override
    public String limitation() {
        return "The in-flight point is a native debugger (gdb) breakpoint at " + at + ".";
    }

    @Override
    public Optional<String> unavailableOn(Platform platform) {
        return platform.procfs() ? Optional.empty() : Optional.of("not available on " + platform.describe()
                + ": the native barrier (gdb) needs /proc to find the program and confirm its threads' states");
    }
}
