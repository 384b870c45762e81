package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;
import java.util.Optional;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * The proxy reads requests with the kafka-clients message classes it was built with, so a client
 * must never use a request version those classes cannot parse: the broker's ApiVersions answer is
 * narrowed, per API key, to the intersection of the broker's range and this kafka-clients' stable
 * range (an unstable version may have another schema in another release), and a key this
 * kafka-clients does not know, or whose ranges do not meet, is left out. A newer broker (or a
 * client newer than the proxy's kafka-clients) then talks to the proxy in versions it reads.
 */
final class ApiVersionsClamp {
    private ApiVersionsClamp() {
    }

    /**
     * Whether a client's ApiVersions request is newer than this kafka-clients reads: the proxy then
     * answers UNSUPPORTED_VERSION itself (with the clamped ranges, in version 0, as a broker does), and
     * the client asks again in a version from that answer.
     */
    static boolean tooNew(ApiKeys key, short version) {
        return key == ApiKeys.API_VERSIONS && version > ApiKeys.API_VERSIONS.latestVersion();
    }

    /**
     * A whole ApiVersions answer frame (size prefix, header, body; from position 0) to a request of
     * {@code version}, narrowed to what this kafka-clients parses; null when it needs no change.
     * {@code refuse}: answer UNSUPPORTED_VERSION in version 0 (see {@link #tooNew}). {@code frame} is not changed.
     */
    static ByteBuffer clampFrame(short version, ByteBuffer frame, boolean refuse) {
        ByteBuffer buf = frame.slice(4, frame.remaining() - 4);
        ResponseHeader header = ResponseHeader.parse(buf, ApiKeys.API_VERSIONS.responseHeaderVersion(version));
        // a broker answers a version it does not support with UNSUPPORTED_VERSION in version 0; parse() falls back to it
        ApiVersionsResponseData d = ApiVersionsResponse.parse(new ByteBufferAccessor(buf), version).data();
        boolean changed = clamp(d);
        if (refuse) {
            d.setErrorCode(Errors.UNSUPPORTED_VERSION.code());
        } else if (!changed) {
            return null;
        }
        short written = d.errorCode() == Errors.UNSUPPORTED_VERSION.code() ? 0 : version;
        return ArmedFault.frame(header.correlationId(), ApiKeys.API_VERSIONS.responseHeaderVersion(written), d, written);
    }

    /** Narrows {@code d}'s ranges in place; whether anything changed. */
    static boolean clamp(ApiVersionsResponseData d) {
        ApiVersionCollection clamped = new ApiVersionCollection();
        boolean changed = false;
        for (ApiVersion theirs : d.apiKeys()) {
            Optional<ApiVersion> both = ApiKeys.hasId(theirs.apiKey())
                    ? ApiKeys.forId(theirs.apiKey()).toApiVersion(false).flatMap(ours -> ApiVersionsResponse.intersect(theirs, ours))
                    : Optional.empty();
            changed |= both.map(v -> v.minVersion() != theirs.minVersion() || v.maxVersion() != theirs.maxVersion()).orElse(true);
            both.ifPresent(v -> clamped.add(v.duplicate()));
        }
        if (changed) {
            d.setApiKeys(clamped);
        }
        return changed;
    }
}
