package io.replaylab.barrier.wire;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A request the witness follows to its fate (an OffsetCommit, a share acknowledgement): told once
 * what became of it; later news is ignored. The connections call it on their threads.
 */
interface Witnessed {
    /** A barrier holds it (or it waits on its connection behind a held one). */
    void held();

    /** The broker's answer, read with the request's own response class. */
    void answered(ApiMessage response);

    /** It was held and the client closed the connection first: the broker never saw it. */
    void notSent();

    /** Forwarded, and its answer never came back. */
    void unanswered();

    /** A fault answered it with {@code error} for every partition, or (null) closed the connection at it. */
    void faulted(String error);
}
