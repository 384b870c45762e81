package io.replaylab.harness.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

import io.replaylab.barrier.wire.ArmedFault;
import io.replaylab.barrier.wire.WireFault;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.harness.ReplayLab;
import io.replaylab.harness.lab.SyntheticPayments;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The wire proxy's cost: a drain and a produce run of the same records, through the proxy and
 * direct, in the {@link Alternation}'s order; then sequential one-record produce requests for the
 * added latency per request.
 */
@Command(name = "wire", mixinStandardHelpOptions = true, description = "The wire barrier's proxy vs direct: drain, produce, latency per request.")
final class WireBench implements BenchCase {
    private static final int WARM_UP_ROUNDS = 2;
    /** Issue #12's goal for the proxy: at most this many times the direct time. */
    static final double GOAL = 1.05;
    /** Issue #29's goal for a proxy with a fault armed but not firing: at most this many times the plain proxy's time. */
    static final double ARMED_GOAL = 1.02;
    /** The paths, the alternation's variants: direct, through the plain proxy, through the proxy with a fault armed (--armed). */
    private static final int DIRECT = 0;
    private static final int PROXY = 1;
    private static final int ARMED = 2;

    @Option(names = "--records", converter = Count.class, defaultValue = "100000", description = "records drained and produced per run (default ${DEFAULT-VALUE})")
    int records;

    @Option(names = "--partitions", converter = Count.class, defaultValue = "3", description = "partitions of the bench topics (default ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--runs", converter = Count.class, defaultValue = "9", description = "Measured rounds after two warm-up rounds (default ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--repeat", defaultValue = "4",
            description = "Drains and produce runs per path in a round (default ${DEFAULT-VALUE}), interleaved A B B A: one 100,000-record drain"
                    + " takes about 60 ms here, too short to tell 5%% from noise. Even, so that every A B B A is whole.")
    int repeat;

    @Option(names = "--requests", converter = Count.class, defaultValue = "2000", description = "Sequential one-record produce requests per path for the latency.")
    int requests;

    @Mixin
    BenchBroker.Choice brokerChoice;

    @Option(names = "--armed", description = "Also a second proxy, and a wire fault that never matches (every request is checked "
            + "against it) armed on one of the two, changing sides from one turn of the path orders to the next: the armed proxy's time "
            + "and CPU against the plain one's, same rounds, goal <= 1.02x. A --runs that is a multiple of 12 gives every place and both sides "
            + "the same number of rounds.")
    boolean armed;

    @Option(names = "--live-check", description = "Also what the live frontier check adds to each offset commit: sequential commitSync "
            + "through the proxy with the check armed on the group and without, A B B A, --runs rounds.")
    boolean liveCheck;

    @Option(names = "--commits", converter = Count.class, defaultValue = "500", description = "With --live-check: commits per path and run (default ${DEFAULT-VALUE}).")
    int commits;

    /**
     * What one path cost over drain-and-produce runs: time in ns, busy CPU of the whole machine in 10 ms ticks, and, through a
     * proxy, that proxy's own CPU time and the requests it forwarded.
     */
    record PathCost(long drainNs, long produceNs, long busyTicks, long proxyCpuNs, long proxyRequests) {
        static final PathCost NONE = new PathCost(0, 0, 0, 0, 0);

        PathCost plus(PathCost o) {
            return new PathCost(drainNs + o.drainNs, produceNs + o.produceNs, busyTicks + o.busyTicks, proxyCpuNs + o.proxyCpuNs,
                    proxyRequests + o.proxyRequests);
        }
    }

    @Override
    public int run(BenchContext bench) throws Exception {
        if (repeat < 2 || repeat % 2 != 0) {
            throw bench.refuse("--repeat must be even and at least 2 (the A B B A order), was " + repeat);
        }
        PrintWriter out = bench.out();
        LabNamespace ns = LabNamespace.random("bench");
        try (BenchBroker broker = brokerChoice.open()) {
            String b = broker.bootstrapServers();
            try (WireProxy proxy = WireProxy.start(b); WireProxy armedProxy = armed ? WireProxy.start(b) : null;
                 Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
                List<String> topics = List.of(ns.topic("drain"), ns.topic("produce"), ns.topic("latency"));
                admin.createTopics(List.of(new NewTopic(topics.get(0), partitions, (short) 1), new NewTopic(topics.get(1), partitions, (short) 1),
                        new NewTopic(topics.get(2), 1, (short) 1))).all().get();
                try {
                    try (KafkaOps ops = KafkaOps.connect(b)) {
                        topics.forEach(ops::awaitWritable);
                    }
                    return measure(out, b, proxy, armedProxy, ns);
                } finally {
                    admin.deleteTopics(topics).all().get();
                }
            }
        }
    }

    private int measure(PrintWriter out, String direct, WireProxy proxy, WireProxy armedProxy, LabNamespace ns) throws Exception {
        produce(direct, ns.topic("drain"));
        int n = armedProxy == null ? 2 : 3;
        // A B B A (A B C C B A with --armed), each round in the next of the alternation's orders: the measured rounds from its first
        // order on, and which of the two proxies holds the fault changes after each turn through the orders: an instance of its own
        // must not pass for the fault's cost either
        Alternation alternation = Alternation.of(n);
        PathCost[] total = new PathCost[n];
        Arrays.fill(total, PathCost.NONE);
        Samples drainRatio = Samples.empty(); // per round: each round's paths ran interleaved
        Samples produceRatio = Samples.empty();
        Samples armedDrainRatio = Samples.empty(); // the armed proxy against the plain one
        Samples armedProduceRatio = Samples.empty();
        // the armed proxy's own CPU time against the plain proxy's: an armed fault's cost is its check of each request, which
        // only the proxy's threads pay, and their CPU time varies far less between rounds than the wall time of a drain
        Samples armedCpuRatio = Samples.empty();
        for (int round = 1 - WARM_UP_ROUNDS; round <= runs; round++) {
            boolean swapped = armedProxy != null && Math.floorMod(alternation.turn(round - 1), 2) == 1;
            WireProxy plain = swapped ? armedProxy : proxy;
            WireProxy withFault = swapped ? proxy : armedProxy;
            List<String> paths = withFault == null ? List.of(direct, plain.bootstrapServers())
                    : List.of(direct, plain.bootstrapServers(), withFault.bootstrapServers());
            ArmedFault neverMatching = withFault == null ? null
                    : withFault.inject(WireFault.parse("produce:error=NOT_LEADER_OR_FOLLOWER").at(null, "replay-lab-bench-nobody"));
            PathCost[] cost = new PathCost[n];
            Arrays.fill(cost, PathCost.NONE);
            for (int path : alternation.turns(round - 1, repeat)) {
                WireProxy through = path == DIRECT ? null : path == PROXY ? plain : withFault;
                cost[path] = cost[path].plus(drainAndProduce(paths.get(path), through, ns));
            }
            if (neverMatching != null) {
                if (neverMatching.matched() != 0) {
                    throw new IllegalStateException("the never-matching fault matched " + neverMatching.matched() + " request(s)");
                }
                neverMatching.disarm();
            }
            out.printf("%-8s drain direct %5d ms, proxy %5d ms = %.3fx   produce direct %5d ms, proxy %5d ms = %.3fx%s%n",
                    round <= 0 ? "warm-up" : "round " + round, cost[DIRECT].drainNs() / repeat / 1_000_000, cost[PROXY].drainNs() / repeat / 1_000_000,
                    ratio(cost[PROXY].drainNs(), cost[DIRECT].drainNs()), cost[DIRECT].produceNs() / repeat / 1_000_000,
                    cost[PROXY].produceNs() / repeat / 1_000_000, ratio(cost[PROXY].produceNs(), cost[DIRECT].produceNs()), n < 3 ? ""
                            : String.format("   armed/proxy drain %.3fx, produce %.3fx, proxy CPU %.3fx (fault on the %s proxy)",
                                    ratio(cost[ARMED].drainNs(), cost[PROXY].drainNs()), ratio(cost[ARMED].produceNs(), cost[PROXY].produceNs()),
                                    ratio(cost[ARMED].proxyCpuNs(), cost[PROXY].proxyCpuNs()), withFault == proxy ? "first" : "second"));
            out.flush();
            if (round > 0) {
                for (int path = 0; path < n; path++) {
                    total[path] = total[path].plus(cost[path]);
                }
                drainRatio.add(ratio(cost[PROXY].drainNs(), cost[DIRECT].drainNs()));
                produceRatio.add(ratio(cost[PROXY].produceNs(), cost[DIRECT].produceNs()));
                if (n == 3) {
                    armedDrainRatio.add(ratio(cost[ARMED].drainNs(), cost[PROXY].drainNs()));
                    armedProduceRatio.add(ratio(cost[ARMED].produceNs(), cost[PROXY].produceNs()));
                    if (cost[PROXY].proxyCpuNs() > 0) {
                        armedCpuRatio.add(ratio(cost[ARMED].proxyCpuNs(), cost[PROXY].proxyCpuNs()));
                    }
                }
            }
        }
        long perPath = (long) runs * repeat; // drain-and-produce runs per path
        PathCost d = total[DIRECT];
        PathCost p = total[PROXY];
        if (n == 3) {
            PathCost a = total[ARMED];
            out.println(againstGoal("armed fault, drain (against the plain proxy)", armedDrainRatio, ARMED_GOAL));
            out.println(againstGoal("armed fault, produce (against the plain proxy)", armedProduceRatio, ARMED_GOAL));
            out.printf("proxy CPU per drain and produce (its connection threads only): plain %.1f ms, armed %.1f ms = %.3fx%n",
                    p.proxyCpuNs() / perPath / 1e6, a.proxyCpuNs() / perPath / 1e6, ratio(a.proxyCpuNs(), p.proxyCpuNs()));
            out.println(armedCpuRatio.isEmpty() ? "armed fault, proxy CPU: not measured (this JVM gives no thread CPU time)"
                    : againstGoal("armed fault, proxy CPU (against the plain proxy)", armedCpuRatio, ARMED_GOAL));
        }
        out.printf("%d rounds, %d records, each path %d times per round, mean per run: drain direct %d ms, proxy %d ms = %.3fx;"
                + " produce direct %d ms, proxy %d ms = %.3fx (goal <= %.2fx)%n", runs, records, repeat,
                d.drainNs() / perPath / 1_000_000, p.drainNs() / perPath / 1_000_000, ratio(p.drainNs(), d.drainNs()),
                d.produceNs() / perPath / 1_000_000, p.produceNs() / perPath / 1_000_000, ratio(p.produceNs(), d.produceNs()), GOAL);
        out.printf("median of the per-round ratios: drain %.3fx, produce %.3fx%n", drainRatio.median(), produceRatio.median());
        out.println(againstGoal("drain", drainRatio, GOAL));
        out.println(againstGoal("produce", produceRatio, GOAL));
        if (p.proxyCpuNs() > 0 && p.proxyRequests() > 0) {
            // what ArmedFaultCheckBenchmark's nanoseconds per request are to be set against
            out.printf("proxy CPU per request (its connection threads only): %.1f us, %d requests per drain and produce%s%n",
                    p.proxyCpuNs() / 1e3 / p.proxyRequests(), p.proxyRequests() / perPath, n < 3 ? ""
                            : String.format("; armed %.1f us, %d requests", total[ARMED].proxyCpuNs() / 1e3 / total[ARMED].proxyRequests(),
                                    total[ARMED].proxyRequests() / perPath));
        }
        if (d.busyTicks() > 0) {
            out.printf("machine CPU per drain and produce (client, proxy and broker, all cores): direct %d ms, proxy %d ms = %.3fx%n",
                    d.busyTicks() * 10 / perPath, p.busyTicks() * 10 / perPath, ratio(p.busyTicks(), d.busyTicks()));
        }
        List<Samples> latency = latencies(direct, proxy.bootstrapServers(), ns.topic("latency"));
        long directMedian = latency.get(DIRECT).nearestRank(50);
        long directP99 = latency.get(DIRECT).nearestRank(99);
        long proxyMedian = latency.get(PROXY).nearestRank(50);
        long proxyP99 = latency.get(PROXY).nearestRank(99);
        out.printf("latency per produce request (%d sequential per path, interleaved, acks=all): direct median %d us, p99 %d us;"
                + " proxy median %d us, p99 %d us; added median %d us, p99 %d us%n", requests, directMedian, directP99, proxyMedian, proxyP99,
                proxyMedian - directMedian, proxyP99 - directP99);
        out.printf("proxy: %d connections, %d requests forwarded%n", proxy.connectionCount(), proxy.requestCount());
        if (liveCheck) {
            LiveCheckCost.measure(out, direct, proxy, ns, commits, runs);
        }
        return ReplayLab.OK;
    }

    private static double ratio(long over, long under) {
        return (double) over / under;
    }

    /** One drain of the whole topic and one produce run through {@code bootstrap} ({@code through}: the proxy on that path, or null). */
    private PathCost drainAndProduce(String bootstrap, WireProxy through, LabNamespace ns) {
        long ticks = busyTicks();
        long cpu0 = through == null ? 0 : through.cpuTime().toNanos();
        long requests0 = through == null ? 0 : through.requestCount();
        long t0 = System.nanoTime();
        long got = TopicDrain.drain(bootstrap, ns.topic("drain"));
        long t1 = System.nanoTime();
        produce(bootstrap, ns.topic("produce"));
        long t2 = System.nanoTime();
        long busy = busyTicks() - ticks;
        if (got != records) {
            throw new IllegalStateException("drained " + got + " of " + records + " records " + (through == null ? "direct" : "through the proxy"));
        }
        return through == null ? new PathCost(t1 - t0, t2 - t1, busy, 0, 0)
                : new PathCost(t1 - t0, t2 - t1, busy, through.cpuTime().toNanos() - cpu0, through.requestCount() - requests0);
    }

    /**
     * Whether the per-round ratios show the goal met, missed or neither: the 95% interval of their
     * mean against the goal. One drain varies by several percent from round to round on a busy
     * machine, so a single ratio near 1.05x proves nothing either way.
     */
    static String againstGoal(String what, Samples perRound, double goal) {
        if (perRound.count() < 2) {
            return String.format("%s: %d round, no interval: more rounds (--runs) judge the %.2fx goal", what, perRound.count(), goal);
        }
        Samples.Interval i = perRound.meanInterval(0.95);
        String verdict = i.high() <= goal ? "meets the goal" : i.low() > goal ? "misses the goal"
                : "undecided: the interval holds the goal, and more rounds (--runs) narrow it";
        return String.format("%s: mean per-round ratio %.3fx, 95%% interval %.3f-%.3fx over %d rounds, goal <= %.2fx: %s", what, i.mean(), i.low(),
                i.high(), i.count(), goal, verdict);
    }

    private static Properties producerConfig(String bootstrap) {
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return pp;
    }

    /** {@code records} payment-sized records, producer defaults (acks=all), flushed; a record the broker did not take fails the bench. */
    private void produce(String bootstrap, String topic) {
        AtomicReference<Exception> failed = new AtomicReference<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(bootstrap))) {
            for (int i = 0; i < records; i++) {
                String value = SyntheticPayments.json("bench-" + i, "acc-" + (i % 97), i * 37 % 200_000);
                producer.send(new ProducerRecord<>(topic, "acc-" + (i % 97), value), (md, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw new IllegalStateException("the bench's produce to " + topic + " failed: " + failed.get(), failed.get());
        }
    }

    /**
     * Sequential one-record produce requests in microseconds, direct and through the proxy, taking
     * turns A B B A (after 200 unmeasured each), so both see the same machine.
     */
    private List<Samples> latencies(String direct, String viaProxy, String topic) throws Exception {
        List<Samples> us = List.of(Samples.empty(), Samples.empty());
        Properties pd = producerConfig(direct);
        Properties pp = producerConfig(viaProxy);
        pd.put(ProducerConfig.LINGER_MS_CONFIG, "0"); // the request's own round trip, not the batching wait
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        try (KafkaProducer<String, String> d = new KafkaProducer<>(pd); KafkaProducer<String, String> p = new KafkaProducer<>(pp)) {
            List<Integer> turns = Alternation.of(2).turns(0, requests + 200);
            for (int t = 0; t < turns.size(); t++) {
                int path = turns.get(t);
                long t0 = System.nanoTime();
                (path == DIRECT ? d : p).send(new ProducerRecord<>(topic, 0, "k", "v" + t / 2)).get();
                if (t >= 2 * 200) {
                    us.get(path).add((System.nanoTime() - t0) / 1000);
                }
            }
        }
        return us;
    }

    /** Busy CPU ticks (10 ms) of the whole machine since boot, from /proc/stat; 0 where there is none. */
    private static long busyTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                if (i != 4 && i != 5) { // idle, iowait
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
