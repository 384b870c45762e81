package io.replaylab.barrier.wire;

import java.time.Instant;
import java.util.List;

/**
 * One time an armed fault fired: the request it hit (as the request said it), what the proxy did,
 * and what the client sent next (its following requests on any connection, and connections that
 * closed), as far as the proxy has seen so far.
 *
 * @param match   which matching request it was (1: the first), counting a client's retries as new requests
 * @param request what the request said, e.g. {@code OffsetCommit v9 correlation 12 group g member m generation 3 t-0=5}
 * @param done    what the proxy did, e.g. {@code answered NOT_COORDINATOR}; {@code pending} until the answer came
 * @param after   the client's next requests and closes after the firing, up to {@value ArmedFault#AFTER}
 */
public record FaultFiring(int match, Instant at, String connection, String clientId, String request, String done, List<String> after) {
    public FaultFiring {
        after = List.copyOf(after);
    }

    /** One line. */
    public String summary() {
        return "fired at " + request + " (matching request #" + match + ", " + connection + "): " + done
                + (after.isEmpty() ? "" : "; then the client sent: " + String.join(", ", after));
    }
}
