package io.replaylab.barrier.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The answer to a request a fault fired on, as an effect may act on it ({@link WireFault.Effect#atAnswer}):
 * what the connection lets an effect do, and no more.
 */
interface FaultedAnswer {
    /** The answer the fault built itself (an error fault's), with the request's correlation id. */
    ByteBuffer ownAnswer();

    /** The broker's answer, shown to the witness and with broker addresses rewritten: what the client would get. */
    ByteBuffer witnessed();

    /** The errors the broker's answer carries, e.g. {@code {NONE=1}}. */
    String errors();

    /** Sends a frame to the client. */
    void toClient(ByteBuffer frame) throws IOException;

    /** Closes the client's connection, as the fault's doing. */
    void closeConnection();

    /** Sends the client the broker's OffsetFetch answer with every committed offset {@code by} lower; what moved, per partition. */
    List<String> rewindCommittedOffsets(long by) throws IOException;

    /** Sends the client the broker's OffsetFetch answer with no committed offset for any partition (as after the offsets expired); what each was. */
    List<String> forgetCommittedOffsets() throws IOException;

    /** The effect is complete: what the proxy did. */
    void done(String what);
}
