package io.replaylab.barrier.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A large Fetch answer is sent on while it arrives and only its tail is kept back: the broker
 * names it carries (KIP-951 NodeEndpoints, after every partition's records) must be rewritten in
 * that tail or the connection must close. Share groups' ShareFetch and ShareAcknowledge answers name
 * moved leaders the same way (a regular last field there). Frames built with kafka-clients' own
 * message classes.
 */
class AddressesTest {
    private static final short FETCH_VERSION = 17;
    private static final short SHARE_VERSION = 2;
    private final List<WireProxy> proxies = new ArrayList<>();

    @AfterEach
    void closeProxies() {
        proxies.forEach(WireProxy::close);
    }

    private WireProxy proxy() {
        WireProxy p = WireProxy.start("127.0.0.1:9"); // never connected to: only its address book is used
        proxies.add(p);
        return p;
    }

    @Test
    void aLargeFetchAnswerNamingABrokerIsRewrittenInItsTailWhenTheNameKeepsItsLength() {
        WireProxy proxy = proxy();
        ByteBuffer original = fetchFrame("localhost", 9093, 300_000);
        ByteBuffer rewritten = Addresses.rewriteFrame(ApiKeys.FETCH, FETCH_VERSION, original, proxy);
        int sent = original.remaining() - Connection.KEPT_TAIL_BYTES;

        ByteBuffer rest = Addresses.restAfter(original, rewritten, sent);

        assertThat(rest).isNotNull();
        ByteBuffer client = ByteBuffer.allocate(original.remaining()).put(original.slice(0, sent)).put(rest).flip();
        FetchResponseData seen = body(client);
        FetchResponseData.NodeEndpoint endpoint = seen.nodeEndpoints().find(2);
        assertThat(endpoint.host()).isEqualTo("127.0.0.1");
        assertThat(endpoint.port()).isEqualTo(proxy.nodePorts().get(2)).isNotEqualTo(9093);
        assertThat(records(seen)).isEqualTo(records(body(original)));
        assertThat(proxy.rewritesInPlace()).isTrue();
    }

    @Test
    void aBrokerNameOfAnotherLengthDoesNotFitOnceTheFrontIsSentAndTurnsInPlaceRewritingOff() {
        WireProxy proxy = proxy();
        ByteBuffer original = fetchFrame("broker-2.lab.internal", 9093, 300_000);
        ByteBuffer rewritten = Addresses.rewriteFrame(ApiKeys.FETCH, FETCH_VERSION, original, proxy);

        assertThat(Addresses.restAfter(original, rewritten, original.remaining() - Connection.KEPT_TAIL_BYTES)).isNull();
        assertThat(Addresses.restAfter(original, rewritten, 0)).isEqualTo(rewritten); // nothing sent yet: the whole new frame goes
        assertThat(proxy.rewritesInPlace()).as("a name of another length seen: large answers are read whole from now on").isFalse();
    }

    @Test
    void aFetchAnswerThatNamesNoBrokerGoesOnAsRead() {
        ByteBuffer original = fetchFrame(null, 0, 300_000);
        ByteBuffer rewritten = Addresses.rewriteFrame(ApiKeys.FETCH, FETCH_VERSION, original, proxy());
        int sent = 100_000;

        ByteBuffer rest = Addresses.restAfter(original, rewritten, sent);

        assertThat(rewritten).isNull();
        assertThat(rest).isEqualTo(original.slice(sent, original.remaining() - sent));
    }

    @Test
    void aLargeShareFetchAnswerNamingABrokerIsRewrittenInItsTailAndKeepsItsAcquiredRecords() {
        WireProxy proxy = proxy();
        ByteBuffer original = shareFetchFrame("localhost", 9093, 300_000);
        assertThat(Addresses.mayCarryAddresses(ApiKeys.SHARE_FETCH, SHARE_VERSION)).isTrue();
        ByteBuffer rewritten = Addresses.rewriteFrame(ApiKeys.SHARE_FETCH, SHARE_VERSION, original, proxy);
        int sent = original.remaining() - Connection.KEPT_TAIL_BYTES;

        ByteBuffer rest = Addresses.restAfter(original, rewritten, sent);

        assertThat(rest).isNotNull();
        ByteBuffer client = ByteBuffer.allocate(original.remaining()).put(original.slice(0, sent)).put(rest).flip();
        ShareFetchResponseData seen = (ShareFetchResponseData) body(client, ApiKeys.SHARE_FETCH, SHARE_VERSION);
        ShareFetchResponseData.NodeEndpoint endpoint = seen.nodeEndpoints().find(2);
        assertThat(endpoint.host()).isEqualTo("127.0.0.1");
        assertThat(endpoint.port()).isEqualTo(proxy.nodePorts().get(2)).isNotEqualTo(9093);
        ShareFetchResponseData.PartitionData p = seen.responses().iterator().next().partitions().get(0);
        assertThat(p.acquiredRecords()).singleElement().satisfies(a -> {
            assertThat(a.firstOffset()).isEqualTo(0);
            assertThat(a.deliveryCount()).isEqualTo((short) 2);
        });
        ShareFetchResponseData before = (ShareFetchResponseData) body(original, ApiKeys.SHARE_FETCH, SHARE_VERSION);
        assertThat(((MemoryRecords) p.records()).buffer())
                .isEqualTo(((MemoryRecords) before.responses().iterator().next().partitions().get(0).records()).buffer());
    }

    @Test
    void aShareAcknowledgeAnswerNamingABrokerIsRewrittenAndOneNamingNoneGoesOnAsRead() {
        WireProxy proxy = proxy();
        ShareAcknowledgeResponseData d = new ShareAcknowledgeResponseData();
        d.responses().add(new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse().setTopicId(Uuid.randomUuid())
                .setPartitions(List.of(new ShareAcknowledgeResponseData.PartitionData().setPartitionIndex(0)
                        .setErrorCode(org.apache.kafka.common.protocol.Errors.NOT_LEADER_OR_FOLLOWER.code()))));
        assertThat(Addresses.rewriteFrame(ApiKeys.SHARE_ACKNOWLEDGE, SHARE_VERSION, frame(d, ApiKeys.SHARE_ACKNOWLEDGE, SHARE_VERSION), proxy))
                .as("no NodeEndpoints: the original bytes go on").isNull();
        d.nodeEndpoints().add(new ShareAcknowledgeResponseData.NodeEndpoint().setNodeId(3).setHost("broker-3.lab.internal").setPort(9094));

        ByteBuffer rewritten = Addresses.rewriteFrame(ApiKeys.SHARE_ACKNOWLEDGE, SHARE_VERSION, frame(d, ApiKeys.SHARE_ACKNOWLEDGE, SHARE_VERSION),
                proxy);

        ShareAcknowledgeResponseData seen = (ShareAcknowledgeResponseData) body(rewritten, ApiKeys.SHARE_ACKNOWLEDGE, SHARE_VERSION);
        assertThat(seen.nodeEndpoints().find(3).host()).isEqualTo("127.0.0.1");
        assertThat(seen.nodeEndpoints().find(3).port()).isEqualTo(proxy.nodePorts().get(3));
        assertThat(seen.responses().iterator().next().partitions().get(0).errorCode())
                .isEqualTo(org.apache.kafka.common.protocol.Errors.NOT_LEADER_OR_FOLLOWER.code());
    }

    /** A ShareFetch v2 answer frame: one partition with about {@code recordBytes} of records acquired (delivery count 2), and a NodeEndpoint for node 2. */
    private static ByteBuffer shareFetchFrame(String host, int port, int recordBytes) {
        List<SimpleRecord> rs = new ArrayList<>();
        for (int i = 0; i < recordBytes / 1000; i++) {
            rs.add(new SimpleRecord(("k" + i).getBytes(), ("v" + i + "x".repeat(990)).getBytes()));
        }
        ShareFetchResponseData d = new ShareFetchResponseData().setAcquisitionLockTimeoutMs(1000);
        d.responses().add(new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(Uuid.randomUuid())
                .setPartitions(List.of(new ShareFetchResponseData.PartitionData().setPartitionIndex(0)
                        .setRecords(MemoryRecords.withRecords(Compression.NONE, rs.toArray(new SimpleRecord[0])))
                        .setAcquiredRecords(List.of(new ShareFetchResponseData.AcquiredRecords().setFirstOffset(0).setLastOffset(rs.size() - 1)
                                .setDeliveryCount((short) 2))))));
        d.nodeEndpoints().add(new ShareFetchResponseData.NodeEndpoint().setNodeId(2).setHost(host).setPort(port));
        return frame(d, ApiKeys.SHARE_FETCH, SHARE_VERSION);
    }

    private static ByteBuffer frame(ApiMessage d, ApiKeys key, short version) {
        ByteBuffer header = bytes(new ResponseHeaderData().setCorrelationId(7), key.responseHeaderVersion(version));
        ByteBuffer body = bytes(d, version);
        ByteBuffer frame = ByteBuffer.allocate(4 + header.remaining() + body.remaining());
        return frame.putInt(frame.capacity() - 4).put(header).put(body).flip();
    }

    private static ApiMessage body(ByteBuffer frame, ApiKeys key, short version) {
        ByteBuffer buf = frame.slice(4, frame.remaining() - 4);
        assertThat(frame.getInt(0)).isEqualTo(frame.remaining() - 4);
        ResponseHeader.parse(buf, key.responseHeaderVersion(version));
        ApiMessage m = org.apache.kafka.common.message.ApiMessageType.fromApiKey(key.id).newResponse();
        m.read(new ByteBufferAccessor(buf), version);
        return m;
    }

    /** A Fetch v17 answer frame: one partition with about {@code recordBytes} of records, and a NodeEndpoint for node 2 unless host is null. */
    private static ByteBuffer fetchFrame(String host, int port, int recordBytes) {
        List<SimpleRecord> rs = new ArrayList<>();
        for (int i = 0; i < recordBytes / 1000; i++) {
            rs.add(new SimpleRecord(("k" + i).getBytes(), ("v" + i + "x".repeat(990)).getBytes()));
        }
        FetchResponseData d = new FetchResponseData().setResponses(List.of(new FetchResponseData.FetchableTopicResponse()
                .setTopicId(Uuid.randomUuid())
                .setPartitions(List.of(new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(rs.size())
                        .setRecords(MemoryRecords.withRecords(Compression.NONE, rs.toArray(new SimpleRecord[0])))))));
        if (host != null) {
            FetchResponseData.NodeEndpointCollection endpoints = new FetchResponseData.NodeEndpointCollection();
            endpoints.add(new FetchResponseData.NodeEndpoint().setNodeId(2).setHost(host).setPort(port));
            d.setNodeEndpoints(endpoints);
        }
        ByteBuffer header = bytes(new ResponseHeaderData().setCorrelationId(7), ApiKeys.FETCH.responseHeaderVersion(FETCH_VERSION));
        ByteBuffer body = bytes(d, FETCH_VERSION);
        ByteBuffer frame = ByteBuffer.allocate(4 + header.remaining() + body.remaining());
        return frame.putInt(frame.capacity() - 4).put(header).put(body).flip();
    }

    private static ByteBuffer bytes(ApiMessage m, short version) {
        ByteBuffer b = MessageUtil.toByteBufferAccessor(m, version).buffer();
        b.rewind();
        return b;
    }

    private static FetchResponseData body(ByteBuffer frame) {
        ByteBuffer buf = frame.slice(4, frame.remaining() - 4);
        assertThat(frame.getInt(0)).isEqualTo(frame.remaining() - 4);
        ResponseHeader.parse(buf, ApiKeys.FETCH.responseHeaderVersion(FETCH_VERSION));
        return new FetchResponseData(new ByteBufferAccessor(buf), FETCH_VERSION);
    }

    private static ByteBuffer records(FetchResponseData d) {
        return ((MemoryRecords) d.responses().get(0).partitions().get(0).records()).buffer();
    }
}
