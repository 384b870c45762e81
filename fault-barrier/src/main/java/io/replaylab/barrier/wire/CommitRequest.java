package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * What an OffsetCommit request says, read with kafka-clients' own message class: group, member,
 * generation (classic) or member epoch (consumer protocol), and the offsets per partition
 * ({@code topic-partition}; v10+ names topics by id, resolved through the Metadata answers the
 * proxy has seen).
 */
record CommitRequest(String group, String memberId, int generation, Map<String, Long> offsets, short version, String clientId) {

    static CommitRequest parse(ByteBuffer body, RequestHeader h, Function<Uuid, String> topicNames) {
        OffsetCommitRequestData d = new OffsetCommitRequestData(new ByteBufferAccessor(body.duplicate()), h.apiVersion());
        Map<String, Long> offsets = new LinkedHashMap<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : d.topics()) {
            String topic = t.name() == null || t.name().isEmpty() ? topicNames.apply(t.topicId()) : t.name();
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                offsets.put(topic + "-" + p.partitionIndex(), p.committedOffset());
            }
        }
        return new CommitRequest(d.groupId(), d.memberId(), d.generationIdOrMemberEpoch(), offsets, h.apiVersion(), h.clientId());
    }

    /** {@code t-0=5,t-1=7}: the offsets as the barrier's arrival context carries them. */
    String offsetsText() {
        return offsets.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }
}
