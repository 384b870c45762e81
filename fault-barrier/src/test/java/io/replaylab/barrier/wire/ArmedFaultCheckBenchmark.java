package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What an armed fault that never fires costs each request the proxy forwards: the very check a
 * connection runs ({@link Connection#faultOn}) with the fault {@code bench wire --armed} arms (a
 * Produce error aimed at a client id nobody has), on a Produce request of another client (the check
 * goes as far as the client id) and on a Fetch request (it stops at the API key). Issue #29's goal is
 * a proxy with such a fault within 2 % of one without; {@code bench wire --armed} prints the
 * proxy's CPU per request to set these figures against. No connection is passed ({@code null}): a
 * connection is only named once a fault fires, which {@code FaultCheckTest} shows these requests never
 * make it do. Run (JVM options as the CLI's, C1 only), after {@code mvn -B -q install -DskipTests}:
 * <pre>{@code
 * mvn -B -q -pl fault-barrier test-compile exec:exec -Dexec.executable=java -Dexec.classpathScope=test \
 *     -Dexec.args="-cp %classpath org.openjdk.jmh.Main ArmedFaultCheck"
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"})
public class ArmedFaultCheckBenchmark {
    /** The client id {@code bench wire --armed} aims its fault at: no client has it. */
    static final String NOBODY = "replay-lab-bench-nobody";
    static final String CLIENT = "consumer-bench-1";

    List<ArmedFault> none;
    List<ArmedFault> armed;
    Connection.Frame produce;
    Connection.Frame fetch;

    @Setup
    public void setup() {
        none = new CopyOnWriteArrayList<>();
        // the list type the proxy keeps its faults in
        armed = new CopyOnWriteArrayList<>(List.of(new ArmedFault(WireFault.parse("produce:error=NOT_LEADER_OR_FOLLOWER").at(null, NOBODY), () -> { })));
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("key".getBytes(StandardCharsets.UTF_8),
                "a payment of the bench".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData p = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000);
        p.topicData().add(new ProduceRequestData.TopicProduceData().setName("bench-produce")
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        produce = frame(ApiKeys.PRODUCE, (short) 11, 7, p, CLIENT);
        FetchRequestData d = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(52_428_800).setSessionId(0).setSessionEpoch(-1);
        d.topics().add(new FetchRequestData.FetchTopic().setTopic("bench-drain")
                .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(1234).setPartitionMaxBytes(1_048_576))));
        fetch = frame(ApiKeys.FETCH, (short) 12, 8, d, CLIENT);
    }

    /** A request as a connection reads it: the whole frame with its size prefix, the body after the header. */
    static Connection.Frame frame(ApiKeys key, short version, int correlationId, ApiMessage body, String clientId) {
        RequestHeader h = new RequestHeader(key, version, clientId, correlationId);
        ByteBuffer payload = RequestUtils.serialize(h.data(), h.headerVersion(), body, version);
        ByteBuffer bytes = ByteBuffer.allocate(4 + payload.remaining()).putInt(payload.remaining()).put(payload).flip();
        int headerSize = 4 + RequestHeader.parse(bytes.slice(4, bytes.limit() - 4)).size();
        return new Connection.Frame(key, version, correlationId, bytes, headerSize, null, null, null);
    }

    /** No fault armed: the proxy asks {@code faults().isEmpty()} and goes on (the baseline). */
    @Benchmark
    public Object noFault() {
        return none.isEmpty() ? null : Connection.faultOn(none, null, produce, CLIENT);
    }

    /** The armed fault's own API, another client: the check reads as far as the client id. */
    @Benchmark
    public Object armedProduceOfAnotherClient() {
        return armed.isEmpty() ? null : Connection.faultOn(armed, null, produce, CLIENT);
    }

    /** Another API: the check stops at the key. */
    @Benchmark
    public Object armedFetch() {
        return armed.isEmpty() ? null : Connection.faultOn(armed, null, fetch, CLIENT);
    }
}
