package io.replaylab.barrier.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.junit.jupiter.api.Test;

/** The per-request check of armed faults, on the requests {@link ArmedFaultCheckBenchmark} measures it with. */
class FaultCheckTest {
    @Test
    void aFaultAimedAtAnotherClientNeitherCountsNorFiresOnTheBenchRequests() {
        ArmedFaultCheckBenchmark bench = new ArmedFaultCheckBenchmark();
        bench.setup();

        assertThat(bench.armedProduceOfAnotherClient()).isNull();
        assertThat(bench.armedFetch()).isNull();
        assertThat(bench.armed.get(0).matched()).isZero();
        assertThat(bench.armed.get(0).firings()).isEmpty();
    }

    /** The benchmark's Produce frame is one the fault reads as its own API: only the client id keeps it from counting. */
    @Test
    void theBenchProduceRequestCountsForAFaultAimedAtItsClient() {
        ArmedFaultCheckBenchmark bench = new ArmedFaultCheckBenchmark();
        bench.setup();
        ArmedFault mine = new ArmedFault(WireFault.parse("produce:error=NOT_LEADER_OR_FOLLOWER@2").at(null, ArmedFaultCheckBenchmark.CLIENT), () -> { });

        assertThat(Connection.faultOn(List.of(mine), null, bench.produce, ArmedFaultCheckBenchmark.CLIENT)).isNull(); // the 1st: counted, not fired
        assertThat(Connection.faultOn(List.of(mine), null, bench.fetch, ArmedFaultCheckBenchmark.CLIENT)).isNull();

        assertThat(mine.matched()).isEqualTo(1);
    }

    /** What a fault reads a request from (its group, its error answer): the body after the header, as the client wrote it. */
    @Test
    void aFramesBodyIsTheRequestAsTheClientWroteIt() {
        ArmedFaultCheckBenchmark bench = new ArmedFaultCheckBenchmark();
        bench.setup();

        ProduceRequestData produce = new ProduceRequestData(new ByteBufferAccessor(bench.produce.body()), (short) 11);
        FetchRequestData fetch = new FetchRequestData(new ByteBufferAccessor(bench.fetch.body()), (short) 12);

        assertThat(produce.topicData()).singleElement().satisfies(t -> assertThat(t.name()).isEqualTo("bench-produce"));
        assertThat(produce.acks()).isEqualTo((short) -1);
        assertThat(fetch.topics()).singleElement().satisfies(t -> assertThat(t.partitions().get(0).fetchOffset()).isEqualTo(1234));
    }
}
