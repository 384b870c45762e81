package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * What a ShareFetch or ShareAcknowledge request (KIP-932) says, read with kafka-clients' own
 * message classes: the share group, the member, its share session epoch, and the acknowledgements it
 * carries, one per run of offsets of one type (a batch's per-offset types are split into runs; gaps
 * are left out). Topics are named by id, resolved through the Metadata answers the proxy has seen.
 */
record ShareRequest(ApiKeys api, short version, String group, String memberId, int sessionEpoch, String clientId, List<Ack> acks) {

    /** One run of acknowledged offsets, {@code [first, last]}, all of one type. */
    record Ack(String topic, int partition, long first, long last, ShareWitness.AckType type) {
        String text() {
            return topic + "-" + partition + " " + (first == last ? Long.toString(first) : first + ".." + last) + " " + type;
        }
    }

    static ShareRequest parse(ByteBuffer body, RequestHeader h, Function<Uuid, String> topicNames) {
        ByteBufferAccessor in = new ByteBufferAccessor(body.duplicate());
        List<Ack> acks = new ArrayList<>();
        if (h.apiKey() == ApiKeys.SHARE_FETCH) {
            ShareFetchRequestData d = new ShareFetchRequestData(in, h.apiVersion());
            for (ShareFetchRequestData.FetchTopic t : d.topics()) {
                String topic = topicNames.apply(t.topicId());
                for (ShareFetchRequestData.FetchPartition p : t.partitions()) {
                    p.acknowledgementBatches().forEach(b -> runs(topic, p.partitionIndex(), b.firstOffset(), b.lastOffset(), b.acknowledgeTypes(), acks));
                }
            }
            return new ShareRequest(h.apiKey(), h.apiVersion(), d.groupId(), d.memberId(), d.shareSessionEpoch(), h.clientId(), acks);
        }
        ShareAcknowledgeRequestData d = new ShareAcknowledgeRequestData(in, h.apiVersion());
        for (ShareAcknowledgeRequestData.AcknowledgeTopic t : d.topics()) {
            String topic = topicNames.apply(t.topicId());
            for (ShareAcknowledgeRequestData.AcknowledgePartition p : t.partitions()) {
                p.acknowledgementBatches().forEach(b -> runs(topic, p.partitionIndex(), b.firstOffset(), b.lastOffset(), b.acknowledgeTypes(), acks));
            }
        }
        return new ShareRequest(h.apiKey(), h.apiVersion(), d.groupId(), d.memberId(), d.shareSessionEpoch(), h.clientId(), acks);
    }

    /** A batch's types: one for the whole batch, or one per offset (split into runs of one type; gaps dropped). */
    private static void runs(String topic, int partition, long first, long last, List<Byte> types, List<Ack> out) {
        if (types.size() == 1) {
            ShareWitness.AckType t = ShareWitness.AckType.of(types.get(0));
            if (t != null) {
                out.add(new Ack(topic, partition, first, last, t));
            }
            return;
        }
        long runStart = first;
        for (int i = 0; i < types.size(); i++) {
            long offset = first + i;
            boolean ends = i == types.size() - 1 || !types.get(i + 1).equals(types.get(i));
            if (ends) {
                ShareWitness.AckType t = ShareWitness.AckType.of(types.get(i));
                if (t != null) {
                    out.add(new Ack(topic, partition, runStart, Math.min(offset, last), t));
                }
                runStart = offset + 1;
            }
        }
    }

    /** {@code t-0 3..5 ACCEPT, t-1 7 RELEASE}: the acknowledgements for a person. */
    String acksText() {
        return String.join(", ", acks.stream().map(Ack::text).toList());
    }
}
