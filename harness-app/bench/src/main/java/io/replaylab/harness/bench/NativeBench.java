package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.barrier.NativePoint;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.ReplayLab;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.lab.SyntheticProducer;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The native barrier's cost before its arrival: records per second of a consumer that is not a
 * JVM (e.g. the Python inbox consumer), not attached vs attached with the SQLite commit armed on
 * a condition that is evaluated at every {@code sqlite3_step} and never holds. Each round runs
 * both on fresh topics, in the {@link Alternation}'s order; the rate is taken from sending the measured
 * records to their last commit, once a few records sent before them are committed (start-up and group join are not in it).
 */
@Command(name = "native", mixinStandardHelpOptions = true,
        description = "Records/second of a consumer that is not a JVM: no debugger vs the native barrier armed at a SQLite commit that never holds.")
final class NativeBench implements BenchCase {
    /** The alternation's variants: 0 is the consumer not attached, 1 with the barrier armed. */
    private static final int ARMED = 1;
    /**
     * Records sent (under ids of their own) before the measured ones: once they are committed the consumer has joined
     * and committed, and the clock starts as the measured records are sent. Taking the first committed offset seen as
     * the start instead measured nothing when a fast consumer drained all 60 records between two looks (CI: 0 records
     * in 0.16 s, a rate of 0).
     */
    private static final int WARM_UP = 3;

    /** Sends n records to the run's topic, their ids under idPrefix. */
    @FunctionalInterface
    interface Send {
        void records(String idPrefix, int n) throws Exception;
    }

    @Option(names = "--subject-cmd", required = true, description = "The consumer's command, with the placeholders {bootstrap} {topic} {group} "
            + "{db} {namespace} {instance} (as for run).")
    String subjectCmd;

    @Option(names = "--records", defaultValue = "2000", description = "records consumed per run (default ${DEFAULT-VALUE})")
    int records;

    @Option(names = "--runs", defaultValue = "3", description = "rounds, each with one run not attached and one armed (default ${DEFAULT-VALUE})")
    int runs;

    @Mixin
    BenchBroker.Choice brokerChoice;

    /** One consumer's run: whether the barrier was armed, and its rate. */
    record Rate(boolean armed, long recordsPerSecond) {
    }

    @Override
    public int run(BenchContext bench) throws Exception {
        if (runs < 1 || records < 1) {
            throw bench.refuse("--runs and --records must be at least 1, were " + runs + " and " + records);
        }
        PrintWriter out = bench.out();
        Subject template = Subject.command(subjectCmd);
        if (!template.uses("{group}")) {
            throw bench.refuse("--subject-cmd must use {group}: each run gives its consumer a group of its own");
        }
        Path dir = Files.createTempDirectory("replay-lab-bench-native-");
        LabNamespace ns = LabNamespace.random("bench");
        Alternation alternation = Alternation.of(2);
        List<Rate> rates = new ArrayList<>();
        List<String> topics = new ArrayList<>();
        try (BenchBroker broker = brokerChoice.open()) {
            String b = broker.bootstrapServers();
            try (KafkaOps ops = KafkaOps.connect(b); Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
                out.printf("%d records in 3 partitions per run; the consumer commits per record; rates from sending the records to their last commit%n",
                        records);
                try {
                    for (int r = 0; r < runs; r++) {
                        for (int variant : alternation.order(r)) {
                            boolean withBarrier = variant == ARMED;
                            LabNamespace run = LabNamespace.of(ns.prefix() + ".r" + r + (withBarrier ? "a" : "p"));
                            topics.add(run.topic());
                            // the topic first, the records once the consumer runs (and is armed): a consumer that drained them
                            // before gdb had armed its commit measured nothing (a fresh-clone test run: 0 conditions evaluated)
                            ops.createTopic(run, run.topic(), 3);
                            long seed = 7L + r;
                            long rate = measure(out, ops, b, template, run, dir, withBarrier,
                                    (idPrefix, n) -> SyntheticProducer.produce(b, run.topic(), 3, idPrefix, n, seed, 50, 0, null, null));
                            rates.add(new Rate(withBarrier, rate));
                        }
                    }
                } finally {
                    admin.deleteTopics(topics).all().get();
                }
            }
        }
        long p = Samples.of(rates.stream().filter(r -> !r.armed()).toList(), Rate::recordsPerSecond).roundedMedian();
        long a = Samples.of(rates.stream().filter(Rate::armed).toList(), Rate::recordsPerSecond).roundedMedian();
        out.printf("median: not attached %d records/s, armed %d records/s: armed/plain = %.2f (goal >= 0.5)%n", p, a, (double) a / p);
        return ReplayLab.OK;
    }

    private long measure(PrintWriter out, KafkaOps ops, String bootstrap, Subject template, LabNamespace run, Path dir,
            boolean withBarrier, Send send) throws Exception {
        Map<String, String> values = Map.of("bootstrap", bootstrap, "topic", run.topic(), "group", run.group(), "db",
                dir.resolve("target.db").toString(), "namespace", run.inbox(1), "instance", "bench", "logdir", dir.toString());
        String name = run.prefix().substring(run.prefix().lastIndexOf('.') + 1);
        try (ChildProcess c = ChildProcess.of(template.command(values)).name("consumer " + name)
                .output(dir.resolve(name + ".out"), dir.resolve(name + ".err")).start();
                NativeDebugger gdb = withBarrier ? NativeDebugger.to(c.pid()).attach(NativePoint.sqliteCommit()) : null) {
            if (gdb != null) {
                gdb.arm("bench", NativePoint.sqliteCommit().thatNeverHolds(), HoldMode.THREAD, t -> { }, BarrierOptions.ofDefaults());
            }
            send.records(run.inbox(1) + ".warm", WARM_UP);
            awaitCommitted(c, ops, run, WARM_UP);
            // the clock runs from sending the measured records to their last commit: start-up and join are not the rate
            long start = System.nanoTime();
            send.records(run.inbox(1), records);
            awaitCommitted(c, ops, run, WARM_UP + records);
            double secs = (System.nanoTime() - start) / 1e9;
            long counted = records;
            long rate = Math.round(counted / secs);
            out.printf("  %-12s %6d records/s (%d records in %.2f s)%s%n", withBarrier ? "armed" : "not attached", rate, counted, secs,
                    gdb == null ? "" : "; conditions evaluated: " + gdb.evaluations());
            out.flush();
            return rate;
        }
    }

    /** Waits until {@code run}'s group has committed {@code offsets} in all, failing when the consumer exits or in 5 minutes. */
    static void awaitCommitted(ChildProcess c, KafkaOps ops, LabNamespace run, long offsets) throws Exception {
        boolean drained = Poll.every(Duration.ofMillis(20)).upTo(Duration.ofMinutes(5)).until(() -> {
            if (!c.isAlive()) {
                throw new IllegalStateException("the consumer exited with " + c.exitCode().orElse(-1) + ": " + c.stderrTail(5));
            }
            return ops.describe(run.group()).partitions().stream().mapToLong(x -> Math.max(0, x.committed())).sum() >= offsets;
        });
        if (!drained) {
            throw new IllegalStateException("the consumer did not commit " + offsets + " offsets within 5 minutes");
        }
    }
}
