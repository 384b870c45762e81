package io.replaylab.barrier.wire;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * One time an armed fault fired: the request it hit (as the request said it), what the proxy did,
 * and what the client did next (its following requests on any connection, and connections that
 * closed or opened), as far as the proxy has seen so far.
 *
 * @param match   which matching request it was (1: the first), counting a client's retries as new requests
 * @param api     the API of the request it hit, e.g. {@link ApiKeys#OFFSET_COMMIT}
 * @param request what the request said, e.g. {@code OffsetCommit v9 correlation 12 group g member m generation 3 t-0=5}
 * @param done    what the proxy did, e.g. {@code answered NOT_COORDINATOR}; {@code pending} until the answer came
 * @param steps   the client's next requests and connections after the firing, up to {@value ArmedFault#AFTER}
 */
public record FaultFiring(int match, Instant at, String connection, String clientId, ApiKeys api, String request, String done, List<Step> steps) {
    public FaultFiring {
        Objects.requireNonNull(api, "api");
        steps = List.copyOf(steps);
    }

    /** What the client did after a firing, one step at a time. Each says itself as the evidence shows it ({@link #toString()}). */
    public sealed interface Step {
        /** A request (the same one sent again right after itself is counted in {@code times}, not listed). */
        record RequestSent(ApiKeys api, short version, String offsets, int times) implements Step {
            public RequestSent {
                Objects.requireNonNull(api, "api");
                Objects.requireNonNull(offsets, "offsets");
            }

            RequestSent again() {
                return new RequestSent(api, version, offsets, times + 1);
            }

            /** Sent again right after itself: the same API and version (its offsets move on from commit to commit). */
            boolean repeats(RequestSent next) {
                return api == next.api && version == next.version;
            }

            @Override
            public String toString() {
                return api.name + " v" + version + (times > 1 ? " ×" + times : offsets.isEmpty() ? "" : " " + offsets);
            }
        }

        /** A connection of the client closed: by the client (or the broker's side), or by the proxy (a fault's effect). */
        record ConnectionClosed(String connection, boolean byProxy) implements Step {
            @Override
            public String toString() {
                return (byProxy ? "the proxy closed " : "closed ") + connection;
            }
        }

        /** The client's first request on a connection it opened after the firing. */
        record ConnectionOpened(String connection) implements Step {
            @Override
            public String toString() {
                return "opened " + connection;
            }
        }
    }

    /** The steps as the evidence records them. */
    public List<String> after() {
        return steps.stream().map(Step::toString).toList();
    }

    /** The first step of this kind matching {@code which}, by its position, or -1. */
    public <S extends Step> int indexOf(Class<S> kind, java.util.function.Predicate<? super S> which) {
        for (int i = 0; i < steps.size(); i++) {
            if (kind.isInstance(steps.get(i)) && which.test(kind.cast(steps.get(i)))) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the client sent a request of this API after the firing. */
    public boolean sent(ApiKeys requestApi) {
        return indexOf(Step.RequestSent.class, r -> r.api() == requestApi) >= 0;
    }

    /** One line. */
    public String summary() {
        List<String> after = after();
        return "fired at " + request + " (matching request #" + match + ", " + connection + "): " + done
                + (after.isEmpty() ? "" : "; then the client sent: " + String.join(", ", after));
    }
}
