package io.replaylab.harness.lab;

/**
 * Asks a running lab to stop early (a signal, a caller's deadline). The experiment that is running
 * ends NOT_RUN "interrupted by &lt;why&gt; during &lt;step&gt;" at the next look of its current wait
 * (within about 250 ms), those not started yet are NOT_RUN too, the processes of the run are
 * stopped, the protocol is saved, and only then the run's own namespace is cleaned up. The run's
 * thread is never interrupted: an interrupt would close the journal's file channel mid-write.
 *
 * <pre>{@code
 * LabStop stop = LabStop.create();
 * // from another thread (e.g. a signal handler): stop.request("SIGTERM");
 * Lab.LabResult r = Lab.run(settings, progress, stop);
 * }</pre>
 */
public final class LabStop {
    private volatile String reason;

    private LabStop() {
    }

    public static LabStop create() {
        return new LabStop();
    }

    /** Requests the stop; the first reason wins. */
    public synchronized void request(String why) {
        if (reason == null) {
            reason = why;
        }
    }

    public boolean requested() {
        return reason != null;
    }

    /** Why the stop was requested (e.g. {@code SIGTERM}), or null. */
    public String reason() {
        return reason;
    }
}
