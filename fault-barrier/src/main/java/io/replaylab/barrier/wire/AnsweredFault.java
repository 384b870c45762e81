package io.replaylab.barrier.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * The broker's answer to a request a fault fired on, as its effect sees it on a connection: the
 * answer itself, the one the proxy made, and what the effect may do with them (send one, close,
 * rewrite the committed offsets of an OffsetFetch answer).
 */
final class AnsweredFault implements FaultedAnswer {
    private final Connection connection;
    private final ArmedFault.Action action;
    private final ApiKeys key;
    private final short version;
    private final ByteBuffer frame;
    private final Supplier<ByteBuffer> rewritten;

    /** {@code rewritten}: the answer as the client would get it (its broker names rewritten), or null when it needs none. */
    AnsweredFault(Connection connection, ArmedFault.Action action, ApiKeys key, short version, ByteBuffer frame, Supplier<ByteBuffer> rewritten) {
        this.connection = connection;
        this.action = action;
        this.key = key;
        this.version = version;
        this.frame = frame;
        this.rewritten = rewritten;
    }

    @Override
    public ByteBuffer ownAnswer() {
        return action.answer().duplicate();
    }

    @Override
    public ByteBuffer witnessed() {
        ByteBuffer r = rewritten.get();
        return r != null ? r : frame;
    }

    /** The error counts of the answer, e.g. {@code {NONE=1}}, for a firing's record. */
    @Override
    public String errors() {
        try {
            ByteBuffer body = frame.slice(4, frame.remaining() - 4);
            ResponseHeader.parse(body, key.responseHeaderVersion(version));
            return new TreeMap<>(AbstractResponse.parseResponse(key, new ByteBufferAccessor(body), version).errorCounts()).toString();
        } catch (RuntimeException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void toClient(ByteBuffer out) throws IOException {
        connection.sendToClient(out);
    }

    @Override
    public void closeConnection() {
        connection.closeByFault();
    }

    @Override
    public List<String> rewindCommittedOffsets(long by) throws IOException {
        return rewriteCommittedOffsets((topic, partition, committed, set) -> rewind(topic, partition, committed, by, set));
    }

    @Override
    public List<String> forgetCommittedOffsets() throws IOException {
        return rewriteCommittedOffsets((topic, partition, committed, set) -> {
            set.accept(-1);
            return topic + "-" + partition + " " + (committed < 0 ? "none committed" : committed + "→none");
        });
    }

    @Override
    public void done(String what) {
        action.fault().done(action.firing(), what);
    }

    /** One committed offset of an OffsetFetch answer rewritten through {@code set}; what became of it, in words. */
    private interface OffsetRewrite {
        String apply(String topic, int partition, long committed, LongConsumer set);
    }

    /** The broker's OffsetFetch answer, each committed offset rewritten, sent to the client; what became of each. */
    private List<String> rewriteCommittedOffsets(OffsetRewrite rewrite) throws IOException {
        ByteBuffer body = frame.slice(4, frame.remaining() - 4);
        ResponseHeader.parse(body, key.responseHeaderVersion(version));
        OffsetFetchResponseData d = new OffsetFetchResponseData(new ByteBufferAccessor(body), version);
        List<String> moved = new ArrayList<>();
        d.topics().forEach(t -> t.partitions().forEach(x -> moved.add(rewrite.apply(t.name(), x.partitionIndex(), x.committedOffset(),
                x::setCommittedOffset))));
        d.groups().forEach(g -> g.topics().forEach(t -> t.partitions().forEach(x -> moved.add(rewrite.apply(
                t.name() == null || t.name().isEmpty() ? connection.proxy().topicName(t.topicId()) : t.name(), x.partitionIndex(),
                x.committedOffset(), x::setCommittedOffset)))));
        connection.sendToClient(ArmedFault.frame(frame.getInt(4), key.responseHeaderVersion(version), d, version));
        return moved;
    }

    /**
     * Lowers one committed offset by {@code by}, never below the partition's log start: an offset
     * below it is out of range, and the client's reset policy (perhaps to the end) would follow, not
     * a redelivery.
     */
    private String rewind(String topic, int partition, long committed, long by, LongConsumer set) {
        if (committed < 0) {
            return topic + "-" + partition + " none committed (left as it is)";
        }
        long wanted = Math.max(0, committed - by);
        OptionalLong logStart = wanted == 0 ? OptionalLong.of(0) : connection.proxy().logStart(topic, partition);
        long to = Math.min(committed, Math.max(wanted, logStart.orElse(0)));
        set.accept(to);
        String why = logStart.isEmpty() ? " (the log start unknown: the broker did not say)"
                : to > wanted ? " (the log start: " + by + " lower is out of range)" : "";
        return topic + "-" + partition + " " + committed + "→" + to + why;
    }
}
