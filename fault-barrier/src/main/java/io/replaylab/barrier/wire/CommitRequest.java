package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.replaylab.barrier.CommitOffset;
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
record CommitRequest(String group, String memberId, int generation, List<CommitOffset> offsets, short version, String clientId) {

    static CommitRequest parse(ByteBuffer body, RequestHeader h, Function<Uuid, String> topicNames) {
        OffsetCommitRequestData d = new OffsetCommitRequestData(new ByteBufferAccessor(body.duplicate()), h.apiVersion());
        List<CommitOffset> offsets = new ArrayList<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : d.topics()) {
            String topic = t.name() == null || t.name().isEmpty() ? topicNames.apply(t.topicId()) : t.name();
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                offsets.add(new CommitOffset(topic, p.partitionIndex(), p.committedOffset()));
            }
        }
        return new CommitRequest(d.groupId(), d.memberId(), d.generationIdOrMemberEpoch(), offsets, h.apiVersion(), h.clientId());
    }

    /** {@code t-0=5,t-1=7}, for the log. */
    String offsetsText() {
        return CommitOffset.text(offsets);
    }
}
