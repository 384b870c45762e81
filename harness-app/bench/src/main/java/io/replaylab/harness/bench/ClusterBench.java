package io.replaylab.harness.bench;

import java.util.LinkedHashMap;
import java.util.Map;

import io.replaylab.harness.ReplayLab;
import io.replaylab.kafka.broker.LocalKafkaCluster;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** A 3-broker cluster's start-to-ready (fresh format each run) and idle RSS of its four JVMs. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "Start the local 3-broker cluster (and its controller) N times: start-to-ready and idle RSS.")
final class ClusterBench implements BenchCase {
    @Mixin
    StartsAndRss.Options starts;

    @Option(names = "--brokers", defaultValue = "3", description = "brokers in the cluster, beside its controller (default ${DEFAULT-VALUE})")
    int brokers;

    @Override
    public int run(BenchContext bench) throws Exception {
        starts.measure(bench.out(), " for " + brokers + " brokers and a controller", () -> {
            LocalKafkaCluster cluster = LocalKafkaCluster.custom().brokers(brokers).build();
            long t0 = System.nanoTime();
            cluster.start();
            Map<String, Long> pids = new LinkedHashMap<>();
            cluster.brokerIds().forEach(id -> pids.put("broker " + id, cluster.pid(id)));
            pids.put("controller", cluster.pid(LocalKafkaCluster.CONTROLLER_ID));
            return new StartsAndRss.Started((System.nanoTime() - t0) / 1_000_000, pids, cluster);
        });
        return ReplayLab.OK;
    }
}
