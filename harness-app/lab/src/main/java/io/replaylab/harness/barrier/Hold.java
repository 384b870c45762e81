package io.replaylab.harness.barrier;

import java.util.Map;

import io.replaylab.barrier.BarrierSource;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.harness.lab.LabContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a technology does to the program it holds beyond its barrier: freeze it whole, kill it,
 * let it run again, let it go untraced, detach. {@link Held} is the same for every technology;
 * this is where they differ (under ptrace a SIGSTOP only reaches the debugger, so gdb freezes).
 */
interface Hold {
    Logger log = LoggerFactory.getLogger(Hold.class);

    /** Stops every thread of A: which process stopped, by what, and how /proc confirmed it. */
    Freeze freeze();

    /** A freeze as it was made. */
    record Freeze(long pid, String by, String confirmed) {
    }

    /** Before A is killed: a program a debugger holds (a wrapper's descendant too) goes first. */
    void beforeCrash();

    /** A frozen A runs again. */
    void thaw();

    /** The point's work is done: a native debugger lets the program go, untraced; a JVM's stays until {@link #detach}. */
    void untrace();

    /** Every debugger gone. */
    void detach();

    /** A held by a JVM debugger or on the wire: a freeze is SIGSTOP to A's process group, confirmed in /proc. */
    static Hold process(LabContext.Instance instance, BarrierSource<?> debugger) {
        return process(instance, debugger, () -> { });
    }

    /** As above; {@code beforeCrash} runs before A is killed (e.g. a proxy holding A's session lets it die with A). */
    static Hold process(LabContext.Instance instance, BarrierSource<?> debugger, Runnable beforeCrash) {
        return new Hold() {
            @Override
            public Freeze freeze() {
                instance.process().freeze(); // returns once /proc shows the process stopped (state T)
                return new Freeze(instance.pid(), "with SIGSTOP", "; /proc/" + instance.pid() + "/stat shows state T");
            }

            @Override
            public void beforeCrash() {
                beforeCrash.run();
            }

            @Override
            public void thaw() {
                if (instance.process().isAlive() && instance.process().isFrozen()) {
                    instance.process().thaw();
                }
            }

            @Override
            public void untrace() {
            }

            @Override
            public void detach() {
                if (debugger != null) {
                    try {
                        debugger.close();
                    } catch (RuntimeException x) {
                        log.warn("cannot detach the debugger from pid {}: {}", instance.pid(), x.getMessage());
                    }
                }
            }
        };
    }

    /** A held by gdb: a freeze, a kill and a thaw go through it. */
    static Hold gdb(NativeDebugger gdb) {
        return new Hold() {
            @Override
            public Freeze freeze() {
                Map<Long, Character> states = gdb.freeze();
                return new Freeze(gdb.pid(), "through the debugger", ": all " + states.size() + " of its threads stopped, /proc/" + gdb.pid()
                        + "/task/*/stat shows state t for each");
            }

            @Override
            public void beforeCrash() {
                gdb.killProgram(); // gone in /proc before the crash is recorded
            }

            @Override
            public void thaw() {
                if (gdb.isFrozen()) {
                    try {
                        gdb.thaw();
                    } catch (RuntimeException x) { // gdb gone: its end let the program run; the instances must still be stopped
                        log.warn("cannot thaw pid {} through gdb: {}", gdb.pid(), x.getMessage());
                    }
                }
            }

            @Override
            public void untrace() {
                gdb.close();
            }

            @Override
            public void detach() {
                gdb.close();
            }
        };
    }
}
