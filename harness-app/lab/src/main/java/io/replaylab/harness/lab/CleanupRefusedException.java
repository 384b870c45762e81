package io.replaylab.harness.lab;

/** {@link Leftovers#remove} would touch what is not the dead run's own, or the run is alive: nothing was removed. */
public final class CleanupRefusedException extends RuntimeException {
    public CleanupRefusedException(String message) {
        super(message);
    }
}
