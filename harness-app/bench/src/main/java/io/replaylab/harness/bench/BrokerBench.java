package io.replaylab.harness.bench;

import java.util.Map;

import io.replaylab.harness.ReplayLab;
import io.replaylab.kafka.broker.LocalKafka;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Broker start-to-ready (fresh format each run) and idle RSS. */
@Command(name = "broker", mixinStandardHelpOptions = true, description = "Start the local broker N times: start-to-ready and idle RSS.")
final class BrokerBench implements BenchCase {
    @Mixin
    StartsAndRss.Options starts;

    @Override
    public int run(BenchContext bench) throws Exception {
        starts.measure(bench.out(), "", () -> {
            LocalKafka kafka = LocalKafka.create();
            long t0 = System.nanoTime();
            kafka.start();
            return new StartsAndRss.Started((System.nanoTime() - t0) / 1_000_000, Map.of("broker", kafka.pid()), kafka);
        });
        return ReplayLab.OK;
    }
}
