package io.replaylab.barrier.jdi;

/** How the debugger holds the program at the barrier. The evidence records which one ran. */
public enum HoldMode {
    /** Only the thread that hit the breakpoint stops (a long processing stall: heartbeats go on). */
    THREAD,
    /** The whole JVM stops (a GC pause or a frozen process: the broker's session timeout fires). */
    PROCESS
}
