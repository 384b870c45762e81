package io.replaylab.harness.barrier;

/** A warm-up, or the point itself, that A never reached: the caller's NOT_RUN ("A did not " + the message). */
public final class PointNotReached extends RuntimeException {
    PointNotReached(String what) {
        super(what);
    }
}
