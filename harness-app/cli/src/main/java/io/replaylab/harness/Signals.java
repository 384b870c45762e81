package io.replaylab.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.replaylab.harness.lab.LabStop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM and SIGINT during {@code run}: the first asks the lab to stop (it saves its protocol and
 * stops what it started); a second one, or a shutdown that takes longer than {@link #DEADLINE_MILLIS},
 * kills every remaining child at once and exits with the signal's code (143, 130).
 * The JVM's own handlers come back when the run is over.
 */
final class Signals implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Signals.class);
    static final long DEADLINE_MILLIS = 15_000;
    static final Map<String, Integer> EXIT_CODES = Map.of("SIGTERM", 143, "SIGINT", 130);

    private final List<Map.Entry<Signal, SignalHandler>> previous = new ArrayList<>();
    private final LabStop stop;

    private Signals(LabStop stop) {
        this.stop = stop;
    }

    /** Installs the handlers. */
    static Signals install(LabStop stop) {
        Signals s = new Signals(stop);
        for (String name : List.of("TERM", "INT")) {
            Signal sig = new Signal(name);
            SignalHandler before = Signal.handle(sig, s::handle);
            if (before == SignalHandler.SIG_IGN) {
                // the JVM keeps a signal that was ignored when it started (a background job's SIGINT): it will not reach us
                log.warn("SIG{} was ignored when replay-lab started (a background job?): it will not stop the run", name);
            }
            s.previous.add(Map.entry(sig, before));
        }
        return s;
    }

    static int exitCode(String reason) {
        return EXIT_CODES.getOrDefault(reason, ReplayLab.NOT_RUN);
    }

    /**
     * Synchronized: each signal runs its handler on a thread of its own, and on a loaded machine a
     * second signal's thread can start before the first's has asked the lab to stop; unserialized, both
     * saw no stop requested and the second signal only repeated the orderly stop (a fresh-clone run).
     */
    private synchronized void handle(Signal sig) {
        String name = "SIG" + sig.getName();
        if (stop.requested()) {
            log.warn("{} during the shutdown: killing the remaining children now", name);
            hardExit(exitCode(stop.reason()));
            return;
        }
        log.warn("{} received: stopping the run (a second signal kills at once)", name);
        stop.request(name);
        Thread deadline = new Thread(() -> {
            try {
                Thread.sleep(DEADLINE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            log.error("the run did not stop within {} ms of {}: killing the remaining children", DEADLINE_MILLIS, name);
            hardExit(exitCode(name));
        }, "replay-lab-stop-deadline");
        deadline.setDaemon(true);
        deadline.start();
    }

    /** Every descendant (subjects in their own process groups are still descendants), then out; the watchdog sees the harness go. */
    private void hardExit(int code) {
        ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
        Runtime.getRuntime().halt(code);
    }

    @Override
    public void close() {
        previous.forEach(e -> Signal.handle(e.getKey(), e.getValue()));
    }
}
