package io.replaylab.harness.bench;

import java.util.Map;

import io.replaylab.harness.ReplayLab;
import io.replaylab.kafka.broker.LocalKafka;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Broker start-to-ready (fresh format each run) and idle RSS. */
@Command(name = "broker", mixinStandardHelpOptions = true, description = "Start the local broker N times: start-to-ready and idle RSS.")
final class BrokerBench implements BenchCase {
    @Option(names = "--runs", defaultValue = "5", description = "broker starts measured (default ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--idle-seconds", defaultValue = "5", description = "idle time before RSS is read")
    int idleSeconds;

    @Override
    public int run(BenchContext bench) throws Exception {
        StartsAndRss.measure(bench.out(), runs, idleSeconds, "", () -> {
            LocalKafka kafka = LocalKafka.create();
            long t0 = System.nanoTime();
            kafka.start();
            return new StartsAndRss.Started((System.nanoTime() - t0) / 1_000_000, Map.of("broker", kafka.pid()), kafka);
        });
        return ReplayLab.OK;
    }
}
