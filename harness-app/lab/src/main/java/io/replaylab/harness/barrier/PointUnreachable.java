package io.replaylab.harness.barrier;

/** The point cannot be armed on this subject at all: the caller's NOT_RUN with this reason. */
public final class PointUnreachable extends RuntimeException {
    PointUnreachable(String why) {
        super(why);
    }
}
