package io.replaylab.harness.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.replaylab.barrier.wire.ArmedFault;
import io.replaylab.barrier.wire.WireFault;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.evidence.process.Poll;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.harness.ReplayLab;
import io.replaylab.harness.lab.SyntheticPayments;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.ResetScope;
import io.replaylab.kafka.ResetTargets;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.broker.LocalKafkaCluster;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Oracle;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TargetSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.stat.descriptive.rank.Median;
import org.apache.commons.math3.stat.descriptive.rank.Percentile;
import io.replaylab.harness.TargetLogin;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.barrier.gdb.NativePoint;
import io.replaylab.barrier.HoldMode;
import io.replaylab.harness.lab.SyntheticProducer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code replay-lab bench …}: the benchmarks behind the figures in the notes (never timed unit tests),
 * out of the shipped CLI: the launcher runs this module's jar. Statistics (medians, Student's t) come
 * from commons-math3.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Run a benchmark and print its figures.",
        subcommands = {Bench.Broker.class, Bench.ClusterBench.class, Bench.Offsets.class, Bench.Subject.class, Bench.OracleBench.class, Bench.WireBench.class,
                Bench.NativeBench.class, RunBench.class})
public final class Bench implements Runnable {
    private static final int OK = ReplayLab.OK;
    private static final int FAIL = ReplayLab.FAIL;

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs a bench with the CLI's error handling and exit codes; returns the exit code. */
    static int run(PrintWriter out, PrintWriter err, String... args) {
        return ReplayLab.execute(new Bench(), out, err, args);
    }

    /**
     * This CLI in a child JVM on the same classpath: {@code jvmOptions} first, then the CLI's
     * arguments. From a class-data archive of its jars once there is one, as {@code ./replay-lab}
     * starts it.
     */
    static List<String> cliCommand(List<String> jvmOptions, String... args) {
        return ChildProcess.java(jvmOptions, ReplayLab.class.getName(), args);
    }

    static long median(List<Long> xs) {
        return Math.round(new Median().evaluate(xs.stream().mapToDouble(Long::doubleValue).toArray()));
    }

/** A plain drain of a whole topic from the beginning (fetch settings as the oracle's); returns the records read. */
static long drain(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20"); // as the oracle's: no long poll at a partition's end in either
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            long n = 0;
            while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                n += c.poll(Duration.ofMillis(500)).count();
            }
            return n;
        }
    }

    /**
     * The wire proxy's cost: a drain and a produce run of the same records, through the proxy and
     * direct, alternating which goes first; then sequential one-record produce requests for the
     * added latency per request.
     */
    @Command(name = "wire", mixinStandardHelpOptions = true, description = "The wire barrier's proxy vs direct: drain, produce, latency per request.")
    static final class WireBench implements Callable<Integer> {
        private static final int WARM_UP_ROUNDS = 2;
        /** Issue #12's goal for the proxy: at most this many times the direct time. */
        static final double GOAL = 1.05;

        @Spec
        CommandSpec spec;

        @Option(names = "--records", defaultValue = "100000", description = "records drained and produced per run (default ${DEFAULT-VALUE})")
        int records;

        @Option(names = "--partitions", defaultValue = "3", description = "partitions of the bench topics (default ${DEFAULT-VALUE})")
        int partitions;

        @Option(names = "--runs", defaultValue = "9", description = "Measured rounds after two warm-up rounds (default ${DEFAULT-VALUE}).")
        int runs;

        @Option(names = "--repeat", defaultValue = "4",
                description = "Drains and produce runs per path in a round (default ${DEFAULT-VALUE}), interleaved A B B A: one 100,000-record drain"
                        + " takes about 60 ms here, too short to tell 5%% from noise. Even, so that every A B B A is whole.")
        int repeat;

        @Option(names = "--requests", defaultValue = "2000", description = "Sequential one-record produce requests per path for the latency.")
        int requests;

        @Option(names = "--bootstrap-server", description = "Use this broker (its topics are deleted afterwards) instead of an embedded one.")
        String bootstrap;

        @Option(names = "--armed", description = "Also a second proxy, and a wire fault that never matches (every request is checked "
                + "against it) armed on one of the two, changing sides from one turn of the path orders to the next: the armed proxy's time "
                + "and CPU against the plain one's, same rounds, goal <= 1.02x. A --runs that is a multiple of 12 gives every place and both sides "
                + "the same number of rounds.")
        boolean armed;

        /** Issue #29's goal for a proxy with a fault armed but not firing: at most this many times the plain proxy's time. */
        static final double ARMED_GOAL = 1.02;

        @Override
        public Integer call() throws Exception {
            if (repeat < 2 || repeat % 2 != 0 || runs < 1 || records < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--repeat must be even and at least 2 (the A B B A order), was " + repeat
                        + "; --runs and --records at least 1, were " + runs + " and " + records);
            }
            PrintWriter out = spec.commandLine().getOut();
            LabNamespace ns = LabNamespace.random("bench");
            try (LocalKafka kafka = bootstrap == null ? LocalKafka.create().start() : null) {
                String b = bootstrap == null ? kafka.bootstrapServers() : bootstrap;
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
                        admin.deleteTopics(List.of(ns.topic("drain"), ns.topic("produce"), ns.topic("latency"))).all().get();
                    }
                }
            }
        }

        private int measure(PrintWriter out, String direct, WireProxy proxy, WireProxy armedProxy, LabNamespace ns) throws Exception {
            produce(direct, ns.topic("drain"));
            // [0] direct, [1] through the proxy, [2] through the proxy with a fault armed (--armed); totals over the measured rounds,
            // in ns (time) and 10 ms ticks (busy CPU of the whole machine)
            int n = armedProxy == null ? 2 : 3;
            long[] drainTotal = new long[n];
            long[] produceTotal = new long[n];
            long[] cpuTotal = new long[n];
            List<Long> drainRatio = new ArrayList<>(); // per round, in thousandths: each round's paths ran interleaved
            List<Long> produceRatio = new ArrayList<>();
            List<Long> armedDrainRatio = new ArrayList<>(); // the armed proxy against the plain one
            List<Long> armedProduceRatio = new ArrayList<>();
            // the armed proxy's own CPU time against the plain proxy's: an armed fault's cost is its check of each request, which
            // only the proxy's threads pay, and their CPU time varies far less between rounds than the wall time of a drain
            List<Long> armedCpuRatio = new ArrayList<>();
            long[] proxyCpuTotal = new long[n];
            long[] proxyRequestTotal = new long[n]; // requests each proxy forwarded in the measured rounds: its CPU per request
            // A B B A (A B C C B A with --armed), repeated: the JVM and the broker still speed up from one drain to the next, and in
            // this order a steady speed-up costs every path the same. The order of the paths turns from round to round, so that each
            // path takes each place equally often: with a fixed order, two plain proxies differed by 2.6% in CPU and 7% in produce time
            // (an A/A control, 20 rounds), as much as an armed fault is to be told apart by.
            int[][] orders = n == 2 ? new int[][] {{0, 1}, {1, 0}} : new int[][] {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
            for (int round = 1 - WARM_UP_ROUNDS; round <= runs; round++) {
                int[] order = orders[Math.floorMod(round - 1, orders.length)]; // the measured rounds from the first order on
                // and which of the two proxies holds the fault changes after each turn through the orders: an instance of its own
                // must not pass for the fault's cost either
                WireProxy plain = proxy;
                WireProxy withFault = armedProxy;
                if (armedProxy != null && Math.floorMod(Math.floorDiv(round - 1, orders.length), 2) == 1) {
                    plain = armedProxy;
                    withFault = proxy;
                }
                List<WireProxy> proxies = withFault == null ? List.of(plain) : List.of(plain, withFault);
                List<String> paths = withFault == null ? List.of(direct, plain.bootstrapServers())
                        : List.of(direct, plain.bootstrapServers(), withFault.bootstrapServers());
                ArmedFault neverMatching = withFault == null ? null
                        : withFault.inject(WireFault.parse("produce:error=NOT_LEADER_OR_FOLLOWER").at(null, "replay-lab-bench-nobody"));
                long[] drainNs = new long[n];
                long[] produceNs = new long[n];
                long[] busy = new long[n];
                long[] proxyCpu = new long[n];
                long[] proxyRequests = new long[n];
                for (int i = 0; i < n * repeat; i++) {
                    int k = i % (2 * n);
                    int path = k < n ? order[k] : order[2 * n - 1 - k];
                    String b = paths.get(path);
                    long ticks = busyTicks();
                    long cpu0 = path == 0 ? 0 : proxies.get(path - 1).cpuTime().toNanos();
                    long requests0 = path == 0 ? 0 : proxies.get(path - 1).requestCount();
                    long t0 = System.nanoTime();
                    long got = drain(b, ns.topic("drain"));
                    long t1 = System.nanoTime();
                    produce(b, ns.topic("produce"));
                    long t2 = System.nanoTime();
                    busy[path] += busyTicks() - ticks;
                    if (path > 0) {
                        proxyCpu[path] += proxies.get(path - 1).cpuTime().toNanos() - cpu0;
                        proxyRequests[path] += proxies.get(path - 1).requestCount() - requests0;
                    }
                    if (got != records) {
                        throw new IllegalStateException("drained " + got + " of " + records + " records " + (path == 0 ? "direct" : "through the proxy"));
                    }
                    drainNs[path] += t1 - t0;
                    produceNs[path] += t2 - t1;
                }
                if (neverMatching != null) {
                    if (neverMatching.matched() != 0) {
                        throw new IllegalStateException("the never-matching fault matched " + neverMatching.matched() + " request(s)");
                    }
                    neverMatching.disarm();
                }
                out.printf("%-8s drain direct %5d ms, proxy %5d ms = %.3fx   produce direct %5d ms, proxy %5d ms = %.3fx%s%n",
                        round <= 0 ? "warm-up" : "round " + round, drainNs[0] / repeat / 1_000_000, drainNs[1] / repeat / 1_000_000,
                        (double) drainNs[1] / drainNs[0], produceNs[0] / repeat / 1_000_000, produceNs[1] / repeat / 1_000_000,
                        (double) produceNs[1] / produceNs[0], n < 3 ? "" : String.format("   armed/proxy drain %.3fx, produce %.3fx, proxy CPU %.3fx (fault on the %s proxy)",
                                (double) drainNs[2] / drainNs[1], (double) produceNs[2] / produceNs[1], (double) proxyCpu[2] / proxyCpu[1],
                                withFault == proxy ? "first" : "second"));
                out.flush();
                if (round > 0) {
                    for (int path = 0; path < n; path++) {
                        drainTotal[path] += drainNs[path];
                        produceTotal[path] += produceNs[path];
                        cpuTotal[path] += busy[path];
                        proxyCpuTotal[path] += proxyCpu[path];
                        proxyRequestTotal[path] += proxyRequests[path];
                    }
                    drainRatio.add(drainNs[1] * 1000 / drainNs[0]);
                    produceRatio.add(produceNs[1] * 1000 / produceNs[0]);
                    if (n == 3) {
                        armedDrainRatio.add(drainNs[2] * 1000 / drainNs[1]);
                        armedProduceRatio.add(produceNs[2] * 1000 / produceNs[1]);
                        if (proxyCpu[1] > 0) {
                            armedCpuRatio.add(proxyCpu[2] * 1000 / proxyCpu[1]);
                        }
                    }
                }
            }
            long perPath = (long) runs * repeat; // drain-and-produce runs per path
            if (n == 3) {
                out.println(againstGoal("armed fault, drain (against the plain proxy)", armedDrainRatio, ARMED_GOAL));
                out.println(againstGoal("armed fault, produce (against the plain proxy)", armedProduceRatio, ARMED_GOAL));
                out.printf("proxy CPU per drain and produce (its connection threads only): plain %.1f ms, armed %.1f ms = %.3fx%n",
                        proxyCpuTotal[1] / perPath / 1e6, proxyCpuTotal[2] / perPath / 1e6, (double) proxyCpuTotal[2] / proxyCpuTotal[1]);
                out.println(armedCpuRatio.isEmpty() ? "armed fault, proxy CPU: not measured (this JVM gives no thread CPU time)"
                        : againstGoal("armed fault, proxy CPU (against the plain proxy)", armedCpuRatio, ARMED_GOAL));
            }
            out.printf("%d rounds, %d records, each path %d times per round, mean per run: drain direct %d ms, proxy %d ms = %.3fx;"
                    + " produce direct %d ms, proxy %d ms = %.3fx (goal <= %.2fx)%n", runs, records, repeat,
                    drainTotal[0] / perPath / 1_000_000, drainTotal[1] / perPath / 1_000_000, (double) drainTotal[1] / drainTotal[0],
                    produceTotal[0] / perPath / 1_000_000, produceTotal[1] / perPath / 1_000_000, (double) produceTotal[1] / produceTotal[0], GOAL);
            out.printf("median of the per-round ratios: drain %.3fx, produce %.3fx%n", median(drainRatio) / 1000.0, median(produceRatio) / 1000.0);
            out.println(againstGoal("drain", drainRatio, GOAL));
            out.println(againstGoal("produce", produceRatio, GOAL));
            if (proxyCpuTotal[1] > 0 && proxyRequestTotal[1] > 0) {
                // what ArmedFaultCheckBenchmark's nanoseconds per request are to be set against
                out.printf("proxy CPU per request (its connection threads only): %.1f us, %d requests per drain and produce%s%n",
                        proxyCpuTotal[1] / 1e3 / proxyRequestTotal[1], proxyRequestTotal[1] / perPath, n < 3 ? ""
                                : String.format("; armed %.1f us, %d requests", proxyCpuTotal[2] / 1e3 / proxyRequestTotal[2], proxyRequestTotal[2] / perPath));
            }
            if (cpuTotal[0] > 0) {
                out.printf("machine CPU per drain and produce (client, proxy and broker, all cores): direct %d ms, proxy %d ms = %.3fx%n",
                        cpuTotal[0] * 10 / perPath, cpuTotal[1] * 10 / perPath, (double) cpuTotal[1] / cpuTotal[0]);
            }
            long[][] latency = latencies(direct, proxy.bootstrapServers(), ns.topic("latency"));
            out.printf("latency per produce request (%d sequential per path, interleaved, acks=all): direct median %d us, p99 %d us;"
                    + " proxy median %d us, p99 %d us; added median %d us, p99 %d us%n", requests, latency[0][0], latency[0][1], latency[1][0],
                    latency[1][1], latency[1][0] - latency[0][0], latency[1][1] - latency[0][1]);
            out.printf("proxy: %d connections, %d requests forwarded%n", proxy.connectionCount(), proxy.requestCount());
            return OK;
        }

        /**
         * Whether the per-round ratios (in thousandths) show the goal met, missed or neither: the
         * 95% interval of their mean against the goal. One drain varies by several percent from
         * round to round on a busy machine, so a single ratio near 1.05x proves nothing either way.
         */
        static String againstGoal(String what, List<Long> perRoundThousandths, double goal) {
            int n = perRoundThousandths.size();
            if (n < 2) {
                return String.format("%s: %d round, no interval: more rounds (--runs) judge the %.2fx goal", what, n, goal);
            }
            double mean = perRoundThousandths.stream().mapToLong(Long::longValue).average().orElseThrow() / 1000.0;
            double ss = perRoundThousandths.stream().mapToDouble(x -> Math.pow(x / 1000.0 - mean, 2)).sum();
            double half = new TDistribution(n - 1).inverseCumulativeProbability(0.975) * Math.sqrt(ss / (n - 1) / n);
            double lo = mean - half;
            double hi = mean + half;
            String verdict = hi <= goal ? "meets the goal" : lo > goal ? "misses the goal"
                    : "undecided: the interval holds the goal, and more rounds (--runs) narrow it";
            return String.format("%s: mean per-round ratio %.3fx, 95%% interval %.3f-%.3fx over %d rounds, goal <= %.2fx: %s", what, mean, lo, hi, n,
                    goal, verdict);
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
         * Median and p99 in microseconds of sequential one-record produce requests, direct and
         * through the proxy, one each in turn (after 200 unmeasured), so both see the same machine.
         */
        private long[][] latencies(String direct, String viaProxy, String topic) throws Exception {
            List<List<Long>> us = List.of(new ArrayList<>(), new ArrayList<>());
            Properties pd = producerConfig(direct);
            Properties pp = producerConfig(viaProxy);
            pd.put(ProducerConfig.LINGER_MS_CONFIG, "0"); // the request's own round trip, not the batching wait
            pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
            try (KafkaProducer<String, String> d = new KafkaProducer<>(pd); KafkaProducer<String, String> p = new KafkaProducer<>(pp)) {
                for (int i = 0; i < requests + 200; i++) {
                    for (int path = 0; path < 2; path++) {
                        KafkaProducer<String, String> producer = (path == 0) == (i % 2 == 0) ? d : p;
                        long t0 = System.nanoTime();
                        producer.send(new ProducerRecord<>(topic, 0, "k", "v" + i)).get();
                        if (i >= 200) {
                            us.get(producer == d ? 0 : 1).add((System.nanoTime() - t0) / 1000);
                        }
                    }
                }
            }
            long[][] out = new long[2][];
            for (int path = 0; path < 2; path++) {
                double[] xs = us.get(path).stream().mapToDouble(Long::doubleValue).toArray();
                Percentile rank = new Percentile().withEstimationType(Percentile.EstimationType.R_1); // nearest rank: a latency that was measured
                out[path] = new long[] {Math.round(rank.evaluate(xs, 50)), Math.round(rank.evaluate(xs, 99))};
            }
            return out;
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

    /** Broker start-to-ready (fresh format each run) and idle RSS. */
    @Command(name = "broker", mixinStandardHelpOptions = true, description = "Start the local broker N times: start-to-ready and idle RSS.")
    static final class Broker implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--runs", defaultValue = "5", description = "broker starts measured (default ${DEFAULT-VALUE})")
        int runs;

        @Option(names = "--idle-seconds", defaultValue = "5", description = "idle time before RSS is read")
        int idleSeconds;

        @Override
        public Integer call() throws Exception {
            startsAndRss(spec.commandLine().getOut(), runs, idleSeconds, "", () -> {
                LocalKafka kafka = LocalKafka.create();
                long t0 = System.nanoTime();
                kafka.start();
                return new Started((System.nanoTime() - t0) / 1_000_000, Map.of("broker", kafka.pid()), kafka);
            });
            return OK;
        }
    }

    /** A 3-broker cluster's start-to-ready (fresh format each run) and idle RSS of its four JVMs. */
    @Command(name = "cluster", mixinStandardHelpOptions = true,
            description = "Start the local 3-broker cluster (and its controller) N times: start-to-ready and idle RSS.")
    static final class ClusterBench implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--runs", defaultValue = "5", description = "cluster starts measured (default ${DEFAULT-VALUE})")
        int runs;

        @Option(names = "--brokers", defaultValue = "3", description = "brokers in the cluster, beside its controller (default ${DEFAULT-VALUE})")
        int brokers;

        @Option(names = "--idle-seconds", defaultValue = "5", description = "idle time before RSS is read")
        int idleSeconds;

        @Override
        public Integer call() throws Exception {
            startsAndRss(spec.commandLine().getOut(), runs, idleSeconds, " for " + brokers + " brokers and a controller", () -> {
                LocalKafkaCluster cluster = LocalKafkaCluster.custom().brokers(brokers).build();
                long t0 = System.nanoTime();
                cluster.start();
                Map<String, Long> pids = new LinkedHashMap<>();
                cluster.brokerIds().forEach(id -> pids.put("broker " + id, cluster.pid(id)));
                pids.put("controller", cluster.pid(LocalKafkaCluster.CONTROLLER_ID));
                return new Started((System.nanoTime() - t0) / 1_000_000, pids, cluster);
            });
            return OK;
        }
    }

    /** Something started for a bench: how long it took, its processes by name, and how to stop it. */
    record Started(long startMs, Map<String, Long> pids, AutoCloseable stop) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            stop.close();
        }
    }

    /** Starts something {@code runs} times, fresh each time: start-to-ready, then the idle RSS of its processes; each run, then the medians. */
    static void startsAndRss(PrintWriter out, int runs, int idleSeconds, String what, Callable<Started> starter) throws Exception {
        List<Long> startMs = new ArrayList<>();
        List<Long> rssMb = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            try (Started s = starter.call()) {
                Thread.sleep(idleSeconds * 1000L);
                List<String> each = new ArrayList<>();
                long total = 0;
                for (Map.Entry<String, Long> p : s.pids().entrySet()) {
                    long mb = ChildProcess.residentKb(p.getValue()).orElse(-1) / 1024;
                    total += mb;
                    each.add(p.getKey() + " " + mb + " MB");
                }
                startMs.add(s.startMs());
                rssMb.add(total);
                out.printf("run %d: start-to-ready %d ms (format included), idle RSS %d MB%s%n", i + 1, s.startMs(), total,
                        each.size() > 1 ? " (" + String.join(", ", each) + ")" : "");
                out.flush();
            }
        }
        out.printf("median: start-to-ready %d ms, idle RSS %d MB%s (%d runs)%n", median(startMs), median(rssMb), what, runs);
    }

    /** Describe and plan over one group on a many-partition topic, beside Kafka's own ConsumerGroupCommand. */
    @Command(name = "offsets", mixinStandardHelpOptions = true,
            description = "Describe + plan for one group over a topic with many partitions; compare with ConsumerGroupCommand --describe.")
    static final class Offsets implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--partitions", defaultValue = "1000", description = "partitions of the group described and planned (default ${DEFAULT-VALUE})")
        int partitions;

        @Option(names = "--runs", defaultValue = "5", description = "measured rounds (default ${DEFAULT-VALUE})")
        int runs;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            LabNamespace ns = LabNamespace.random("bench");
            try (LocalKafka kafka = LocalKafka.create().start();
                 KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers(), Duration.ofSeconds(60))) {
                String b = kafka.bootstrapServers();
                try (Admin admin = Admin.create(
                        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
                    admin.createTopics(List.of(new NewTopic(ns.topic(), partitions, (short) 1))).all().get();
                    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
                    for (int p = 0; p < partitions; p++) {
                        commit.put(new TopicPartition(ns.topic(), p), new OffsetAndMetadata(0));
                    }
                    admin.alterConsumerGroupOffsets(ns.group(), commit).all().get();
                }
                out.printf("topic %s with %d partitions, group %s with %d committed offsets%n", ns.topic(), partitions, ns.group(), partitions);
                ops.describe(ns.group()); // warm-up: metadata, coordinator
                List<Long> describeMs = new ArrayList<>();
                List<Long> planMs = new ArrayList<>();
                long describeReq = 0;
                long planReq = 0;
                for (int i = 0; i < runs; i++) {
                    long r0 = ops.requestCount();
                    long t0 = System.nanoTime();
                    ops.describe(ns.group());
                    describeMs.add((System.nanoTime() - t0) / 1_000_000);
                    describeReq = ops.requestCount() - r0;
                    r0 = ops.requestCount();
                    t0 = System.nanoTime();
                    ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest());
                    planMs.add((System.nanoTime() - t0) / 1_000_000);
                    planReq = ops.requestCount() - r0;
                }
                out.printf("replay-lab describe: median %d ms, %d Admin requests%n", median(describeMs), describeReq);
                out.printf("replay-lab planReset --to-earliest --all-topics: median %d ms, %d Admin requests%n", median(planMs), planReq);

                Class<?> cgc = consumerGroupCommand();
                java.lang.reflect.Method main = cgc.getMethod("main", String[].class);
                String[] args = {"--bootstrap-server", b, "--describe", "--group", ns.group()};
                java.io.PrintStream realOut = System.out;
                List<Long> toolMs = new ArrayList<>();
                int lines = 0;
                try {
                    for (int i = 0; i <= runs; i++) {
                        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
                        System.setOut(new java.io.PrintStream(buf, true));
                        long t0 = System.nanoTime();
                        main.invoke(null, (Object) args);
                        long ms = (System.nanoTime() - t0) / 1_000_000;
                        if (i > 0) {
                            toolMs.add(ms); // the first call warms up class loading, like ours above
                        }
                        lines = (int) buf.toString().lines().filter(l -> l.startsWith(ns.group())).count();
                    }
                } finally {
                    System.setOut(realOut);
                }
                out.printf("ConsumerGroupCommand --describe (in-process): median %d ms, %d partition rows%n", median(toolMs), lines);
            }
            return OK;
        }
    }

    /**
     * Kafka's own ConsumerGroupCommand, for the offsets bench only: from the classpath if it is there,
     * else from kafka-tools (same version as kafka-clients) in the local Maven repository, which a
     * build of this project fills; replay-lab itself does not depend on it.
     */
    static Class<?> consumerGroupCommand() throws Exception {
        String name = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException notHere) {
            String v = org.apache.kafka.common.utils.AppInfoParser.getVersion();
            Path repo = Path.of(System.getProperty("maven.repo.local", Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
            Path jar = repo.resolve(Path.of("org", "apache", "kafka", "kafka-tools", v, "kafka-tools-" + v + ".jar"));
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("bench offsets compares with Kafka's ConsumerGroupCommand from kafka-tools " + v + ", not found at "
                        + jar + "; fetch it with: mvn dependency:get -Dartifact=org.apache.kafka:kafka-tools:" + v, notHere);
            }
            java.net.URLClassLoader tools = new java.net.URLClassLoader(new java.net.URL[] {jar.toUri().toURL()}, Bench.class.getClassLoader());
            return Class.forName(name, true, tools);
        }
    }

    /** Drain rate of the reference consumer (commit per record): one process, then two sharing the group and DB. */
    @Command(name = "subject", mixinStandardHelpOptions = true,
            description = "Records/second of the reference consumer draining N records: one process, then two processes.")
    static final class Subject implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--records", defaultValue = "10000", description = "records drained per run (default ${DEFAULT-VALUE})")
        int records;

        @Option(names = "--partitions", defaultValue = "4", description = "partitions of the topic (default ${DEFAULT-VALUE})")
        int partitions;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            LabNamespace ns = LabNamespace.random("bench");
            Path dir = Files.createTempDirectory("replay-lab-bench-");
            try (LocalKafka kafka = LocalKafka.create().start()) {
                String b = kafka.bootstrapServers();
                int rc = runCli(dir, "produce", "subject", "produce", "--bootstrap-server", b, "--topic", ns.topic(), "--partitions",
                        "" + partitions, "--count", "" + records, "--namespace", ns.prefix());
                if (rc != 0) {
                    throw new IllegalStateException("producer failed; see " + dir);
                }
                out.printf("%d records in %d partitions; consumers commit per record; SQLite %s%n", records, partitions, dir.resolve("*.db"));
                for (int n : new int[] {1, 2}) {
                    List<ChildProcess> ps = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        String inst = "c" + n + "-" + i;
                        ps.add(start(dir, inst, "subject", "consume", "--bootstrap-server", b, "--topic", ns.topic(), "--group",
                                ns.group("n" + n), "--db", dir.resolve("target-" + n + ".db").toString(), "--namespace", ns.inbox(n),
                                "--instance-id", inst, "--until-idle", "PT3S", "--processing-log", dir.resolve(inst + ".jsonl").toString()));
                    }
                    for (ChildProcess p : ps) {
                        p.process().waitFor();
                    }
                    Instant first = Instant.MAX;
                    Instant last = Instant.MIN;
                    long lines = 0;
                    for (int i = 0; i < n; i++) {
                        for (String l : Files.readAllLines(dir.resolve("c" + n + "-" + i + ".jsonl"))) {
                            Instant t = Instant.parse(l.substring(9, l.indexOf('"', 9)));
                            first = t.isBefore(first) ? t : first;
                            last = t.isAfter(last) ? t : last;
                            lines++;
                        }
                    }
                    double secs = Duration.between(first, last).toMillis() / 1000.0;
                    out.printf("%d process(es): %d records in %.2f s (first to last processed record) = %.0f records/s%n", n, lines, secs,
                            lines / secs);
                    out.flush();
                }
            }
            return OK;
        }

        private static ChildProcess start(Path dir, String name, String... args) {
            return ChildProcess.of(cliCommand(List.of(), args)).name(name).output(dir.resolve(name + ".out"), dir.resolve(name + ".err")).start();
        }

        private static int runCli(Path dir, String name, String... args) throws Exception {
            return start(dir, name, args).process().waitFor();
        }
    }

    /**
     * The native barrier's cost before its arrival: records per second of a consumer that is not a
     * JVM (e.g. the Python inbox consumer), not attached vs attached with the SQLite commit armed on
     * a condition that is evaluated at every {@code sqlite3_step} and never holds. Each round runs
     * both on fresh topics, alternating which goes first; the rate is taken between the group's first
     * committed offset and its last (start-up and group join are not in it).
     */
    @Command(name = "native", mixinStandardHelpOptions = true,
            description = "Records/second of a consumer that is not a JVM: no debugger vs the native barrier armed at a SQLite commit that never holds.")
    static final class NativeBench implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--subject-cmd", required = true, description = "The consumer's command, with the placeholders {bootstrap} {topic} {group} "
                + "{db} {namespace} {instance} (as for run).")
        String subjectCmd;

        @Option(names = "--records", defaultValue = "2000", description = "records consumed per run (default ${DEFAULT-VALUE})")
        int records;

        @Option(names = "--runs", defaultValue = "3", description = "rounds, each with one run not attached and one armed (default ${DEFAULT-VALUE})")
        int runs;

        @Option(names = "--bootstrap-server", description = "Use this broker (its topics are deleted afterwards) instead of an embedded one.")
        String bootstrap;

        @Override
        public Integer call() throws Exception {
            if (runs < 1 || records < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--runs and --records must be at least 1, were " + runs + " and " + records);
            }
            PrintWriter out = spec.commandLine().getOut();
            io.replaylab.harness.lab.Subject template = io.replaylab.harness.lab.Subject.command(subjectCmd);
            if (!template.uses("{group}")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--subject-cmd must use {group}: each run gives its consumer a group of its own");
            }
            Path dir = Files.createTempDirectory("replay-lab-bench-native-");
            LabNamespace ns = LabNamespace.random("bench");
            List<Long> plain = new ArrayList<>();
            List<Long> armed = new ArrayList<>();
            List<String> topics = new ArrayList<>();
            try (LocalKafka kafka = bootstrap == null ? LocalKafka.create().start() : null) {
                String b = bootstrap == null ? kafka.bootstrapServers() : bootstrap;
                try (KafkaOps ops = KafkaOps.connect(b); Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
                    out.printf("%d records in 3 partitions per run; the consumer commits per record; rates from its first committed offset to its last%n",
                            records);
                    try {
                        for (int r = 0; r < runs; r++) {
                            for (boolean withBarrier : r % 2 == 0 ? new boolean[] {false, true} : new boolean[] {true, false}) {
                                LabNamespace run = LabNamespace.of(ns.prefix() + ".r" + r + (withBarrier ? "a" : "p"));
                                topics.add(run.topic());
                                // the topic first, the records once the consumer runs (and is armed): a consumer that drained them
                                // before gdb had armed its commit measured nothing (a fresh-clone test run: 0 conditions evaluated)
                                ops.createTopic(run, run.topic(), 3);
                                long seed = 7L + r;
                                long rate = measure(out, ops, b, template, run, dir, withBarrier,
                                        () -> SyntheticProducer.produce(b, run.topic(), 3, run.inbox(1), records, seed, 50, 0, null, null));
                                (withBarrier ? armed : plain).add(rate);
                            }
                        }
                    } finally {
                        admin.deleteTopics(topics).all().get();
                    }
                }
            }
            long p = median(plain);
            long a = median(armed);
            out.printf("median: not attached %d records/s, armed %d records/s: armed/plain = %.2f (goal >= 0.5)%n", p, a, (double) a / p);
            return OK;
        }

        private long measure(PrintWriter out, KafkaOps ops, String bootstrap, io.replaylab.harness.lab.Subject template, LabNamespace run, Path dir,
                boolean withBarrier, java.util.concurrent.Callable<?> produce) throws Exception {
            Map<String, String> values = Map.of("bootstrap", bootstrap, "topic", run.topic(), "group", run.group(), "db",
                    dir.resolve("target.db").toString(), "namespace", run.inbox(1), "instance", "bench", "logdir", dir.toString());
            String name = run.prefix().substring(run.prefix().lastIndexOf('.') + 1);
            try (ChildProcess c = ChildProcess.of(template.command(values)).name("consumer " + name)
                    .output(dir.resolve(name + ".out"), dir.resolve(name + ".err")).start();
                    NativeDebugger gdb = withBarrier ? NativeDebugger.to(c.pid()).attach(NativePoint.sqliteCommit()) : null) {
                if (gdb != null) {
                    gdb.arm("bench", NativePoint.sqliteCommit().thatNeverHolds(), HoldMode.THREAD, t -> { }, BarrierOptions.ofDefaults());
                }
                produce.call();
                // the first commit starts the clock: the consumer's start and its join are not its rate
                long[] first = new long[2]; // nanoTime, committed
                long[] last = new long[2];
                boolean drained = Poll.every(Duration.ofMillis(20)).upTo(Duration.ofMinutes(5)).until(() -> {
                    if (!c.isAlive()) {
                        throw new IllegalStateException("the consumer exited with " + c.exitCode().orElse(-1) + ": " + c.stderrTail(5));
                    }
                    long committed = ops.describe(run.group()).partitions().stream().mapToLong(x -> Math.max(0, x.committed())).sum();
                    long now = System.nanoTime();
                    if (first[0] == 0 && committed > 0) {
                        first[0] = now;
                        first[1] = committed;
                        return false;
                    }
                    last[0] = now;
                    last[1] = committed;
                    return committed >= records;
                });
                if (!drained) {
                    throw new IllegalStateException("the consumer did not drain " + records + " records within 5 minutes");
                }
                double secs = (last[0] - first[0]) / 1e9;
                long rate = Math.round((records - first[1]) / secs);
                out.printf("  %-12s %6d records/s (%d records in %.2f s)%s%n", withBarrier ? "armed" : "not attached", rate, records - first[1], secs,
                        gdb == null ? "" : "; conditions evaluated: " + gdb.evaluations());
                out.flush();
                return rate;
            }
        }
    }

    /** The oracle over a large topic: wall time and heap, beside the two raw reads it cannot avoid. */
    @Command(name = "oracle", mixinStandardHelpOptions = true,
            description = "Oracle over N records in 6 partitions vs. draining the topic and SELECTing the rows (medians of --runs rounds, "
                    + "each round measures all three in turn); then the oracle once more in a -Xmx256m JVM.")
    static final class OracleBench implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--records", defaultValue = "1000000", description = "records in the topic and the target (default ${DEFAULT-VALUE})")
        int records;

        @Option(names = "--partitions", defaultValue = "6", description = "partitions of the topic (default ${DEFAULT-VALUE})")
        int partitions;

        @Option(names = "--runs", defaultValue = "5", description = "Measured rounds after two warm-up rounds (default ${DEFAULT-VALUE}).")
        int runs;

        @Option(names = "--bootstrap-server", description = "Use this broker (its topic is deleted afterwards) instead of an embedded one.")
        String bootstrap;

        @Option(names = "--target-jdbc-url", description = "A PostgreSQL database for the target rows (a table of the bench's own, dropped "
                + "afterwards) instead of a SQLite file.")
        String targetJdbcUrl;

        @picocli.CommandLine.Mixin
        TargetLogin login;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            LabNamespace ns = LabNamespace.random("bench");
            Path dir = Files.createTempDirectory("replay-lab-oracle-bench-");
            TargetSpec target = targetJdbcUrl == null ? TargetSpec.sqlite(dir.resolve("target.db"), "n")
                    : login.applyTo(TargetSpec.jdbc(targetJdbcUrl, "n")).query("SELECT message_id, amount FROM " + table(ns) + " WHERE namespace = {namespace}");
            try (LocalKafka kafka = bootstrap == null ? LocalKafka.create().start() : null) {
                String b = bootstrap == null ? kafka.bootstrapServers() : bootstrap;
                try {
                    return measure(out, b, ns, dir, target);
                } finally {
                    if (!target.isSqlite()) {
                        try (Connection c = connect(target); Statement st = c.createStatement()) {
                            st.execute("DROP TABLE IF EXISTS " + table(ns));
                        }
                    }
                    if (bootstrap != null) {
                        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
                            admin.deleteTopics(List.of(ns.topic())).all().get();
                        }
                    }
                }
            } finally {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }

        /** The bench's own table in a shared database: never one it did not create. */
        private static String table(LabNamespace ns) {
            return "ledger_" + ns.prefix().replaceAll("[^A-Za-z0-9]", "_").toLowerCase();
        }

        private static Connection connect(TargetSpec t) throws java.sql.SQLException {
            Properties p = new Properties();
            if (t.user() != null) {
                p.setProperty("user", t.user());
            }
            if (t.password() != null) {
                p.setProperty("password", t.password());
            }
            return DriverManager.getConnection(t.jdbcUrl(), p);
        }

        private int measure(PrintWriter out, String b, LabNamespace ns, Path dir, TargetSpec db) throws Exception {
            long t0 = System.nanoTime();
            fill(b, ns, db);
            out.printf("setup: %d records in %d partitions and %d target rows (%s) in %.1f s%n", records, partitions, records,
                    db.isSqlite() ? "SQLite" : "PostgreSQL " + db.displayUrl(), (System.nanoTime() - t0) / 1e9);
            List<Long> drainMs = new ArrayList<>();
            List<Long> selectMs = new ArrayList<>();
            List<Long> oracleMs = new ArrayList<>();
            for (int round = 0; round <= runs; round++) {
                long r0 = System.nanoTime();
                long drained = drain(b, ns.topic());
                long r1 = System.nanoTime();
                long selected = select(db);
                long r2 = System.nanoTime();
                Comparison cmp;
                try (Target target = Target.open(db)) {
                    cmp = Oracle.of(SourceSpec.topic(b, ns.topic()), target).compare();
                }
                long r3 = System.nanoTime();
                if (drained != records || selected != records || cmp.status() != Status.PASS) {
                    throw new IllegalStateException("bench data is off: drained " + drained + ", selected " + selected + ", oracle " + cmp.reason());
                }
                String label = round == 0 ? "warm-up" : "round " + round;
                out.printf("%-8s drain %5d ms  SELECT %4d ms  oracle %5d ms  = %.2fx%n", label, (r1 - r0) / 1_000_000, (r2 - r1) / 1_000_000,
                        (r3 - r2) / 1_000_000, (double) (r3 - r2) / (r2 - r0));
                if (round > 0) {
                    drainMs.add((r1 - r0) / 1_000_000);
                    selectMs.add((r2 - r1) / 1_000_000);
                    oracleMs.add((r3 - r2) / 1_000_000);
                }
            }
            long raw = median(drainMs) + median(selectMs);
            out.printf("median of %d rounds: raw reads %d ms (drain %d + SELECT %d), oracle %d ms = %.2fx the raw reads (goal <= 1.5x)%n", runs,
                    raw, median(drainMs), median(selectMs), median(oracleMs), (double) median(oracleMs) / raw);

            // the heap bound, shown by running the CLI in JVMs that cannot grow past it
            int rc = 0;
            for (String heap : List.of("256m", "64m")) {
                List<String> cmd = new ArrayList<>(cliCommand(List.of("-Xmx" + heap), "oracle", "--bootstrap-server", b, "--topic", ns.topic(),
                        "--jdbc-url", db.jdbcUrl(), "--target-query", db.query(), "--namespace", "n"));
                if (db.user() != null) {
                    cmd.addAll(List.of("--target-user", db.user()));
                }
                Path log = dir.resolve("oracle-" + heap + ".txt");
                long c0 = System.nanoTime();
                ChildProcess.Builder pb = ChildProcess.of(cmd).name("oracle -Xmx" + heap).output(log, log);
                if (db.password() != null) {
                    pb.env(TargetLogin.PASSWORD_ENV, db.password());
                }
                int exit = pb.start().process().waitFor();
                out.printf("oracle in a -Xmx%s JVM (CLI, cold JVM start included): exit %d in %.2f s (%s)%n", heap, exit,
                        (System.nanoTime() - c0) / 1e9, Files.readAllLines(log).stream().filter(l -> l.startsWith("Oracle") || l.contains("Error"))
                                .findFirst().orElse("?"));
                rc = Math.max(rc, exit);
            }
            return rc == 0 ? OK : FAIL;
        }

        /** The topic (lz4, as a producer in a hurry would write it) and the matching target rows. */
        private void fill(String bootstrap, LabNamespace ns, TargetSpec db) throws Exception {
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.LINGER_MS_CONFIG, "20");
            pp.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
            pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
            pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic(ns.topic(), partitions, (short) 1))).all().get();
            }
            String table = db.isSqlite() ? "ledger" : table(ns);
            try (Connection c = connect(db);
                 KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
                try (Statement st = c.createStatement()) {
                    if (db.isSqlite()) {
                        st.execute("PRAGMA journal_mode=WAL");
                    }
                    st.execute("CREATE TABLE " + table + " (namespace TEXT, message_id TEXT, amount BIGINT)");
                }
                c.setAutoCommit(false);
                try (PreparedStatement ins = c.prepareStatement("INSERT INTO " + table + " VALUES (?,?,?)")) {
                    Random rnd = new Random(1);
                    for (int i = 0; i < records; i++) {
                        String id = ns.prefix() + "-" + i;
                        long amount = rnd.nextInt(200_000) - 20_000;
                        producer.send(new ProducerRecord<>(ns.topic(), "acc-" + (i % 97),
                                SyntheticPayments.json(id, "acc-" + (i % 97), amount)));
                        ins.setString(1, "n");
                        ins.setString(2, id);
                        ins.setLong(3, amount);
                        ins.addBatch();
                        if (i % 10_000 == 0) {
                            ins.executeBatch();
                        }
                    }
                    ins.executeBatch();
                }
                c.commit();
                producer.flush();
            }
        }

        /** The raw source read: a plain consumer draining every partition to its end, with the oracle's fetch settings. */
        /** The raw target read: the rows, each column fetched. */
        private static long select(TargetSpec db) throws Exception {
            long n = 0;
            try (Connection c = connect(db);
                 PreparedStatement q = c.prepareStatement(db.query().replace("{namespace}", "?"))) {
                c.setAutoCommit(false); // PostgreSQL streams only inside a transaction, as the oracle reads
                q.setFetchSize(5000);
                q.setString(1, "n");
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        rs.getString(1);
                        rs.getLong(2);
                        n++;
                    }
                }
            }
            return n;
        }
    }
}
