package io.replaylab.barrier.jdi;

import io.replaylab.barrier.MethodPoint;
import io.replaylab.barrier.HoldMode;

import java.time.Duration;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierOptions;

/**
 * A barrier controller in its own JVM, for the test that kills it: attaches to a debuggable
 * process, holds it (whole VM) at commitSync, prints {@code held}, then waits to be killed.
 * Args: jdwp-port.
 */
public final class HoldingControllerMain {
    private HoldingControllerMain() {
    }

    public static void main(String[] args) throws Exception {
        DebuggerBarrier debugger = DebuggerBarrier.attach(Integer.parseInt(args[0]), Duration.ofSeconds(10));
        Barrier barrier = debugger.arm("offset-commit", MethodPoint.kafkaCommitSync(), HoldMode.PROCESS, t -> {
        }, BarrierOptions.ofDefaults().holdTimeout(Duration.ofMinutes(10)));
        debugger.resumeProgram();
        barrier.awaitArrival(Duration.ofSeconds(60));
        System.out.println("held");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // never closes the debugger: only SIGKILL ends this
    }
}
