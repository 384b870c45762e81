package io.replaylab.barrier.wire;

import java.time.Instant;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A request the witness follows to its fate (an OffsetCommit, a share acknowledgement): told once
 * what became of it; later news is ignored. The connections call it on their threads.
 */
abstract class Witnessed {
    /** When the client sent it, and on which connection. */
    final Instant sent = Instant.now();
    final String connection;
    private volatile boolean held;
    private boolean ended;

    Witnessed(String connection) {
        this.connection = connection;
    }

    /** A barrier holds it (or it waits on its connection behind a held one). */
    final void held() {
        held = true;
    }

    final boolean wasHeld() {
        return held;
    }

    /** The broker's answer, read with the request's own response class. */
    abstract void answered(ApiMessage response);

    /** It was held and the client closed the connection first: the broker never saw it. */
    abstract void notSent();

    /** Forwarded, and its answer never came back. */
    abstract void unanswered();

    /** A fault answered it with {@code error} for every partition, or (null) closed the connection at it. */
    abstract void faulted(String error);

    /** True the first time only: its fate is told once. */
    final synchronized boolean endOnce() {
        if (ended) {
            return false;
        }
        ended = true;
        return true;
    }
}
