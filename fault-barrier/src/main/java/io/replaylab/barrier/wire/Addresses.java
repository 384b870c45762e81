package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * The answers that name brokers, rewritten so that the client keeps talking to the proxy. Parsed
 * and written with kafka-clients' generated message classes (unknown tagged fields survive); an
 * answer that names no broker goes on as the original bytes.
 */
final class Addresses {
    static final String LOOPBACK = "127.0.0.1";

    private Addresses() {
    }

    /**
     * Whether an answer of this kind can carry broker addresses (Produce v10+ and Fetch v16+ carry NodeEndpoints, ShareFetch
     * and ShareAcknowledge in every version: a regular last field there, not a tagged one).
     */
    static boolean mayCarryAddresses(ApiKeys key, short version) {
        return switch (key) {
            case METADATA, FIND_COORDINATOR, DESCRIBE_CLUSTER, SHARE_FETCH, SHARE_ACKNOWLEDGE -> true;
            case PRODUCE -> version >= 10;
            case FETCH -> version >= 16;
            default -> false;
        };
    }

    /** Whether the broker names in an answer of this kind come after everything else (the top-level NodeEndpoints field). */
    static boolean namesBrokersLast(ApiKeys key) {
        return key == ApiKeys.PRODUCE || key == ApiKeys.FETCH || key == ApiKeys.SHARE_FETCH;
    }

    /**
     * What is left to send of an answer whose first {@code sent} bytes went out as read: the rest
     * of the original when nothing was rewritten, the rest of the rewritten frame when it has the
     * same length and the same first {@code sent} bytes (its broker names come later), else null
     * (the rewrite does not fit: the connection must close).
     */
    static ByteBuffer restAfter(ByteBuffer original, ByteBuffer rewritten, int sent) {
        if (rewritten == null) {
            return original.duplicate().position(sent);
        }
        if (sent == 0) {
            return rewritten;
        }
        if (rewritten.remaining() != original.remaining() || rewritten.slice(0, sent).mismatch(original.slice(0, sent)) >= 0) {
            return null;
        }
        return rewritten.duplicate().position(sent);
    }

    /**
     * A whole answer frame (size prefix, header, body; from position 0) with its broker names
     * rewritten, or null when nothing in it names a broker. {@code frame} is not changed.
     */
    static ByteBuffer rewriteFrame(ApiKeys key, short version, ByteBuffer frame, WireProxy proxy) {
        ByteBuffer buf = frame.slice(4, frame.remaining() - 4);
        ResponseHeader.parse(buf, key.responseHeaderVersion(version));
        int headerEnd = buf.position();
        ByteBuffer body = rewrite(key, version, buf, proxy);
        if (body == null) {
            return null;
        }
        ByteBuffer out = ByteBuffer.allocate(4 + headerEnd + body.remaining());
        out.putInt(out.capacity() - 4);
        out.put(frame.slice(4, headerEnd));
        out.put(body);
        return out.flip();
    }

    /**
     * The rewritten body, or null when nothing in it names a broker. {@code body} is positioned
     * after the response header and is not changed.
     */
    private static ByteBuffer rewrite(ApiKeys key, short version, ByteBuffer body, WireProxy proxy) {
        ApiMessage data = AbstractResponse.parseResponse(key, new ByteBufferAccessor(body.duplicate()), version).data();
        boolean changed = switch (key) {
            case METADATA -> metadata((MetadataResponseData) data, proxy);
            case FIND_COORDINATOR -> coordinator((FindCoordinatorResponseData) data, version, proxy);
            case DESCRIBE_CLUSTER -> toProxy(((DescribeClusterResponseData) data).brokers(),
                    b -> b.setPort(proxy.portFor(b.brokerId(), b.host(), b.port())).setHost(LOOPBACK));
            case PRODUCE -> toProxy(((ProduceResponseData) data).nodeEndpoints(), n -> n.setPort(proxy.portFor(n.nodeId(), n.host(), n.port())).setHost(LOOPBACK));
            case FETCH -> toProxy(((FetchResponseData) data).nodeEndpoints(), n -> n.setPort(proxy.portFor(n.nodeId(), n.host(), n.port())).setHost(LOOPBACK));
            case SHARE_FETCH -> toProxy(((ShareFetchResponseData) data).nodeEndpoints(),
                    n -> n.setPort(proxy.portFor(n.nodeId(), n.host(), n.port())).setHost(LOOPBACK));
            case SHARE_ACKNOWLEDGE -> toProxy(((ShareAcknowledgeResponseData) data).nodeEndpoints(),
                    n -> n.setPort(proxy.portFor(n.nodeId(), n.host(), n.port())).setHost(LOOPBACK));
            default -> false;
        };
        if (!changed) {
            return null;
        }
        ByteBuffer out = MessageUtil.toByteBufferAccessor(data, version).buffer();
        out.rewind();
        return out;
    }

    private static boolean metadata(MetadataResponseData d, WireProxy proxy) {
        d.topics().forEach(t -> proxy.learnTopic(t.topicId(), t.name()));
        return toProxy(d.brokers(), b -> b.setPort(proxy.portFor(b.nodeId(), b.host(), b.port())).setHost(LOOPBACK));
    }

    /** Points each of an answer's brokers at the proxy ({@code rewrite}); whether there was one. */
    private static <T> boolean toProxy(java.util.Collection<T> brokers, java.util.function.Consumer<T> rewrite) {
        brokers.forEach(rewrite);
        return !brokers.isEmpty();
    }

    private static boolean coordinator(FindCoordinatorResponseData d, short version, WireProxy proxy) {
        boolean changed = false;
        if (version < 4) {
            if (d.nodeId() >= 0 && d.host() != null && !d.host().isEmpty()) {
                d.setPort(proxy.portFor(d.nodeId(), d.host(), d.port()));
                d.setHost(LOOPBACK);
                changed = true;
            }
            return changed;
        }
        for (FindCoordinatorResponseData.Coordinator c : d.coordinators()) {
            if (c.nodeId() >= 0 && c.host() != null && !c.host().isEmpty()) {
                c.setPort(proxy.portFor(c.nodeId(), c.host(), c.port()));
                c.setHost(LOOPBACK);
                changed = true;
            }
        }
        return changed;
    }
}
