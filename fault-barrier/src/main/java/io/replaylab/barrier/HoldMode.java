package io.replaylab.barrier;

/** How a debugger (the JVM's or the native one) holds the program at the barrier. The evidence records which one ran. */
public enum HoldMode {
    /** Only the thread that hit the breakpoint stops (a long processing stall: heartbeats on other threads go on). */
    THREAD,
    /** The whole program stops (a GC pause or a frozen process: the broker's session timeout fires). */
    PROCESS
}
