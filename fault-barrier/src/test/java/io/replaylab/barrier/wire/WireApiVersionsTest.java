package io.replaylab.barrier.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy reads requests with its own kafka-clients: what it advertises for the broker is
 * clamped to the versions it parses, so no client ever sends it one it cannot read. A broker
 * newer than the proxy is played by a socket that answers ApiVersions with ranges beyond it.
 */
class WireApiVersionsTest {
    /** An API key no Kafka release has (yet): the proxy cannot parse it, so it must not be advertised. */
    private static final short UNKNOWN_KEY = 999;

    private final ServerSocket broker = newServerSocket();
    private WireProxy proxy;

    @AfterEach
    void close() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        broker.close();
    }

    @Test
    void aNewerBrokersRangesAreClampedToWhatTheProxyParsesAndUnknownKeysAreLeftOut() throws Exception {
        short fetchMax = ApiKeys.FETCH.latestVersion();
        CompletableFuture<Short> brokerAsked = answerApiVersionsOnce(newerBrokersRanges());
        proxy = WireProxy.start("127.0.0.1:" + broker.getLocalPort());

        ApiVersionsResponseData seen = askApiVersions(ApiKeys.API_VERSIONS.latestVersion(), 11);

        assertThat(brokerAsked.get(10, TimeUnit.SECONDS)).isEqualTo(ApiKeys.API_VERSIONS.latestVersion());
        assertThat(seen.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(ranges(seen)).containsExactly(
                Map.entry((int) ApiKeys.FETCH.id, ApiKeys.FETCH.oldestVersion() + ".." + fetchMax),
                Map.entry((int) ApiKeys.API_VERSIONS.id, ApiKeys.API_VERSIONS.oldestVersion() + ".." + ApiKeys.API_VERSIONS.latestVersion()));
        assertThat(seen.finalizedFeaturesEpoch()).as("the rest of the answer is the broker's").isEqualTo(42);
    }

    @Test
    void anApiVersionsRequestNewerThanTheProxyReadsIsRefusedWithTheClampedRangesAsABrokerWould() throws Exception {
        CompletableFuture<Short> brokerAsked = answerApiVersionsOnce(newerBrokersRanges());
        proxy = WireProxy.start("127.0.0.1:" + broker.getLocalPort());
        short tooNew = (short) (ApiKeys.API_VERSIONS.latestVersion() + 1);

        ApiVersionsResponseData seen = askApiVersions(tooNew, 12);

        assertThat(brokerAsked.get(10, TimeUnit.SECONDS)).as("the broker is asked in a version every broker reads").isEqualTo((short) 0);
        assertThat(seen.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(ranges(seen)).containsEntry((int) ApiKeys.API_VERSIONS.id,
                ApiKeys.API_VERSIONS.oldestVersion() + ".." + ApiKeys.API_VERSIONS.latestVersion()).doesNotContainKey((int) UNKNOWN_KEY);
    }

    @Test
    void anAnswerWithinTheProxysRangesGoesOnAsTheBrokerWroteIt() {
        ApiVersionCollection ours = new ApiVersionCollection();
        ours.add(ApiKeys.OFFSET_COMMIT.toApiVersion(false).orElseThrow());
        ByteBuffer frame = ArmedFault.frame(5, (short) 0, new ApiVersionsResponseData().setApiKeys(ours), ApiKeys.API_VERSIONS.latestVersion());

        assertThat(ApiVersionsClamp.clampFrame(ApiKeys.API_VERSIONS.latestVersion(), frame, false)).isNull();
    }

    /** FETCH beyond the proxy's newest, PRODUCE only in versions the proxy does not have, and a key it does not know. */
    private static ApiVersionsResponseData newerBrokersRanges() {
        ApiVersionCollection keys = new ApiVersionCollection();
        keys.add(new ApiVersion().setApiKey(ApiKeys.FETCH.id).setMinVersion((short) 0).setMaxVersion((short) (ApiKeys.FETCH.latestVersion(true) + 5)));
        short past = (short) (ApiKeys.PRODUCE.latestVersion(true) + 1);
        keys.add(new ApiVersion().setApiKey(ApiKeys.PRODUCE.id).setMinVersion(past).setMaxVersion((short) (past + 1)));
        keys.add(new ApiVersion().setApiKey(ApiKeys.API_VERSIONS.id).setMinVersion((short) 0).setMaxVersion((short) (ApiKeys.API_VERSIONS.latestVersion(true) + 1)));
        keys.add(new ApiVersion().setApiKey(UNKNOWN_KEY).setMinVersion((short) 0).setMaxVersion((short) 3));
        return new ApiVersionsResponseData().setApiKeys(keys).setFinalizedFeaturesEpoch(42);
    }

    /** Plays the broker for one ApiVersions request: answers {@code answer} in the version asked; completes with that version. */
    private CompletableFuture<Short> answerApiVersionsOnce(ApiVersionsResponseData answer) {
        return CompletableFuture.supplyAsync(() -> {
            try (Socket s = broker.accept()) {
                ByteBuffer request = readFrame(new DataInputStream(s.getInputStream()));
                RequestHeader h = RequestHeader.parse(request);
                new DataOutputStream(s.getOutputStream()).write(toArray(ArmedFault.frame(h.correlationId(), (short) 0, answer, h.apiVersion())));
                return h.apiVersion(); // the proxy passes the answer on before it sees this side close
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** A client's ApiVersions request in {@code version} through the proxy; its answer, read as the client reads it. */
    private ApiVersionsResponseData askApiVersions(short version, int correlationId) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(proxy.bootstrapServers().split(":")[1]))) {
            s.setSoTimeout(10_000);
            RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.API_VERSIONS.id).setRequestApiVersion(version)
                    .setCorrelationId(correlationId).setClientId("test");
            // a version beyond this kafka-clients: its body is written as the newest it has (the proxy never reads it)
            short bodyVersion = (short) Math.min(version, ApiKeys.API_VERSIONS.latestVersion(true));
            ApiVersionsRequestData body = new ApiVersionsRequestData().setClientSoftwareName("test").setClientSoftwareVersion("1");
            ByteBuffer h = bytes(header, ApiKeys.API_VERSIONS.requestHeaderVersion(bodyVersion));
            ByteBuffer b = bytes(body, bodyVersion);
            ByteBuffer frame = ByteBuffer.allocate(4 + h.remaining() + b.remaining()).putInt(h.remaining() + b.remaining()).put(h).put(b).flip();
            new DataOutputStream(s.getOutputStream()).write(toArray(frame));

            ByteBuffer answer = readFrame(new DataInputStream(s.getInputStream()));
            assertThat(ResponseHeader.parse(answer, (short) 0).correlationId()).isEqualTo(correlationId);
            return org.apache.kafka.common.requests.ApiVersionsResponse.parse(new ByteBufferAccessor(answer), version).data();
        }
    }

    private static Map<Integer, String> ranges(ApiVersionsResponseData d) {
        Map<Integer, String> out = new TreeMap<>();
        d.apiKeys().forEach(v -> out.put((int) v.apiKey(), v.minVersion() + ".." + v.maxVersion()));
        return out;
    }

    private static ByteBuffer readFrame(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return ByteBuffer.wrap(b);
    }

    private static ByteBuffer bytes(ApiMessage m, short version) {
        ByteBuffer b = MessageUtil.toByteBufferAccessor(m, version).buffer();
        b.rewind();
        return b;
    }

    private static byte[] toArray(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static ServerSocket newServerSocket() {
        try {
            return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
