package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.replaylab.barrier.CommitOffset;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A request a gate may hold: an OffsetCommit, read with kafka-clients' own message class (group,
 * member, generation (classic) or member epoch (consumer protocol), and the offsets per partition
 * ({@code topic-partition}; v10+ names topics by id, resolved through the Metadata answers the proxy
 * has seen)), or a share group's acknowledgement (a ShareAcknowledge, or a ShareFetch that carries
 * acknowledgements): its share session epoch in {@code generation}, each acknowledged record's offset
 * in {@code offsets}, and the runs with their types in {@code share}.
 */
record CommitRequest(ApiKeys api, String group, String memberId, int generation, List<CommitOffset> offsets, short version, String clientId,
        ShareRequest share) {

    static CommitRequest parse(ByteBuffer body, RequestHeader h, Function<Uuid, String> topicNames) {
        OffsetCommitRequestData d = new OffsetCommitRequestData(new ByteBufferAccessor(body.duplicate()), h.apiVersion());
        List<CommitOffset> offsets = new ArrayList<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : d.topics()) {
            String topic = t.name() == null || t.name().isEmpty() ? topicNames.apply(t.topicId()) : t.name();
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                offsets.add(new CommitOffset(topic, p.partitionIndex(), p.committedOffset()));
            }
        }
        return new CommitRequest(ApiKeys.OFFSET_COMMIT, d.groupId(), d.memberId(), d.generationIdOrMemberEpoch(), offsets, h.apiVersion(),
                h.clientId(), null);
    }

    /** A share request that carries acknowledgements. */
    static CommitRequest of(ShareRequest s) {
        return new CommitRequest(s.api(), s.group(), s.memberId() == null ? "" : s.memberId(), s.sessionEpoch(), records(s.acks()), s.version(),
                s.clientId(), s);
    }

    /** Each record of the runs, one offset per record. */
    private static List<CommitOffset> records(List<ShareRequest.Ack> runs) {
        List<CommitOffset> out = new ArrayList<>();
        runs.forEach(a -> {
            for (long o = a.first(); o <= a.last(); o++) {
                out.add(new CommitOffset(a.topic(), a.partition(), o));
            }
        });
        return out;
    }

    /** The records a share acknowledgement ACCEPTs, one per record (none for an OffsetCommit). */
    List<CommitOffset> accepted() {
        return share == null ? List.of() : records(share.acks().stream().filter(a -> a.type() == ShareWitness.AckType.ACCEPT).toList());
    }

    boolean isOffsetCommit() {
        return api == ApiKeys.OFFSET_COMMIT;
    }

    /** {@code t-0=5,t-1=7} (OffsetCommit) or {@code t-0 3..5 ACCEPT} (a share acknowledgement), for the log. */
    String offsetsText() {
        return share == null ? CommitOffset.text(offsets) : share.acksText();
    }

    /** {@code OffsetCommit v9 group g member m generation 3}, for the log. */
    String describe() {
        return api.name + " v" + version + " group " + group + " member " + memberId + (share == null ? " generation " : " session epoch ") + generation;
    }
}
