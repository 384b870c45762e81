package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the witness reads from a connection's requests beside commits: members and their
 * generations, the timeouts a client joins with, fetch positions and deliveries, a reset to the
 * log end. A connection only forwards; this reads.
 */
final class WitnessedRequests {
    private static final Logger log = LoggerFactory.getLogger(WitnessedRequests.class);

    private WitnessedRequests() {
    }

    /**
     * Tells the witness which member uses which generation: from classic Heartbeat and SyncGroup
     * requests, and from the consumer protocol's heartbeat answers (the epoch a member is given
     * comes in the answer). A request that cannot be read is forwarded anyway: the witness only watches.
     */
    static Consumer<ApiMessage> of(WireProxy proxy, RequestHeader h, ByteBuffer buf, Connection c) {
        try {
            switch (h.apiKey()) {
                case HEARTBEAT -> {
                    HeartbeatRequestData d = new HeartbeatRequestData(new ByteBufferAccessor(buf.duplicate()), h.apiVersion());
                    proxy.witness().member(d.groupId(), d.memberId(), d.generationId());
                }
                case SYNC_GROUP -> {
                    SyncGroupRequestData d = new SyncGroupRequestData(new ByteBufferAccessor(buf.duplicate()), h.apiVersion());
                    proxy.witness().member(d.groupId(), d.memberId(), d.generationId());
                }
                case FETCH -> {
                    boolean watching = proxy.witness().watchingFetches();
                    boolean afterReset = proxy.witness().awaitingFetchAfterReset();
                    if (watching || afterReset) {
                        FetchRequestData d = new FetchRequestData(new ByteBufferAccessor(buf.duplicate()), h.apiVersion());
                        boolean watched = false;
                        for (FetchRequestData.FetchTopic t : d.topics()) {
                            String topic = t.topic() == null || t.topic().isEmpty() ? proxy.topicName(t.topicId()) : t.topic();
                            watched |= watching && proxy.witness().watching(topic);
                            for (FetchRequestData.FetchPartition p : t.partitions()) {
                                if (watching) {
                                    proxy.witness().fetched(topic, p.partition(), p.fetchOffset());
                                }
                                if (afterReset) {
                                    proxy.witness().fetchedBy(h.clientId(), topic, p.partition(), p.fetchOffset());
                                }
                            }
                        }
                        // the answer says what was delivered (an incremental fetch names only what changed: read it whenever a watch is open)
                        return watching && (watched || d.sessionId() != 0) ? answer -> fetchAnswer(proxy, answer) : null;
                    }
                }
                case LIST_OFFSETS -> {
                    ListOffsetsRequestData d = new ListOffsetsRequestData(new ByteBufferAccessor(buf.duplicate()), h.apiVersion());
                    // a consumer's own question (not a follower's) for a log end: a reset to latest, or a seek to the end
                    boolean toEnd = d.replicaId() < 0 && d.topics().stream().anyMatch(t -> t.partitions().stream()
                            .anyMatch(p -> p.timestamp() == ListOffsetsRequest.LATEST_TIMESTAMP));
                    if (!toEnd) {
                        return null;
                    }
                    java.util.Set<String> asked = new java.util.HashSet<>();
                    d.topics().forEach(t -> t.partitions().stream().filter(p -> p.timestamp() == ListOffsetsRequest.LATEST_TIMESTAMP)
                            .forEach(p -> asked.add(t.name() + "-" + p.partitionIndex())));
                    String client = h.clientId() == null ? "" : h.clientId();
                    return m -> ((ListOffsetsResponseData) m).topics().forEach(t -> t.partitions().stream()
                            .filter(p -> p.errorCode() == Errors.NONE.code() && asked.contains(t.name() + "-" + p.partitionIndex()))
                            .forEach(p -> proxy.witness().askedForEnd(new WitnessedReset(client, t.name(), p.partitionIndex(), p.offset(), Instant.now()))));
                }
                case JOIN_GROUP -> {
                    JoinGroupRequestData d = new JoinGroupRequestData(new ByteBufferAccessor(buf.duplicate()), h.apiVersion());
                    String request = "JoinGroup v" + h.apiVersion();
                    String client = h.clientId();
                    // v0 has no rebalance timeout: the session timeout stands for both, as the coordinator takes it
                    Duration rebalance = Duration.ofMillis(d.rebalanceTimeoutMs() < 0 ? d.sessionTimeoutMs() : d.rebalanceTimeoutMs());
                    return m -> {
                        JoinGroupResponseData r = (JoinGroupResponseData) m;
                        // a first join is answered MEMBER_ID_REQUIRED with the id the client joins with next
                        if (r.errorCode() == Errors.NONE.code() || r.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
                            proxy.witness().joined(new MemberTimeouts(d.groupId(), r.memberId(), client, MemberTimeouts.Protocol.CLASSIC,
                                    Optional.of(Duration.ofMillis(d.sessionTimeoutMs())), rebalance, request, Instant.now()));
                        }
                    };
                }
                case CONSUMER_GROUP_HEARTBEAT -> {
                    ConsumerGroupHeartbeatRequestData d = new ConsumerGroupHeartbeatRequestData(new ByteBufferAccessor(buf.duplicate()), h.apiVersion());
                    String group = d.groupId();
                    String request = "ConsumerGroupHeartbeat v" + h.apiVersion();
                    String client = h.clientId();
                    return m -> {
                        ConsumerGroupHeartbeatResponseData r = (ConsumerGroupHeartbeatResponseData) m;
                        if (r.errorCode() == Errors.NONE.code()) {
                            proxy.witness().member(group, r.memberId(), r.memberEpoch());
                            if (d.rebalanceTimeoutMs() >= 0) { // sent when joining; -1 later: unchanged
                                proxy.witness().joined(new MemberTimeouts(group, r.memberId(), client, MemberTimeouts.Protocol.CONSUMER,
                                        Optional.empty(), Duration.ofMillis(d.rebalanceTimeoutMs()), request, Instant.now()));
                            }
                            proxy.witness().gaveHeartbeatInterval(group, r.memberId(), r.heartbeatIntervalMs());
                        }
                    };
                }
                default -> {
                    return null;
                }
            }
        } catch (RuntimeException e) {
            log.debug("{}: the witness could not read a {} v{} request: {}", c, h.apiKey(), h.apiVersion(), e.toString());
        }
        return null;
    }

    /** The record batches a Fetch answer delivered, per watched partition: the wire's word on what a consumer read. */
    private static void fetchAnswer(WireProxy proxy, ApiMessage m) {
        FetchResponseData r = (FetchResponseData) m;
        for (FetchResponseData.FetchableTopicResponse t : r.responses()) {
            String topic = t.topic() == null || t.topic().isEmpty() ? proxy.topicName(t.topicId()) : t.topic();
            if (!proxy.witness().watching(topic)) {
                continue;
            }
            for (FetchResponseData.PartitionData p : t.partitions()) {
                try {
                    if (p.records() instanceof org.apache.kafka.common.record.internal.Records records) {
                        long first = -1;
                        long end = -1;
                        for (org.apache.kafka.common.record.internal.RecordBatch b : records.batches()) {
                            first = first < 0 ? b.baseOffset() : Math.min(first, b.baseOffset());
                            end = Math.max(end, b.lastOffset() + 1);
                        }
                        if (first >= 0) {
                            proxy.witness().delivered(topic, p.partitionIndex(), first, end);
                        }
                    }
                } catch (RuntimeException e) {
                    proxy.witness().fetchAnswerUnreadable(topic, "a Fetch answer of " + topic + "-" + p.partitionIndex() + ": " + e);
                }
            }
        }
    }
}
