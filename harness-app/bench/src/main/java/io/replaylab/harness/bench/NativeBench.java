package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.gdb.NativeDebugger;
import io.replaylab.barrier.NativePoint;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.ReplayLab;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The native barrier's cost before its arrival: records per second of a consumer that is not a
 * JVM (e.g. the Python inbox consumer), not attached vs attached with the SQLite commit armed on
 * a condition that is evaluated at every {@code sqlite3_step} and never holds. Each round runs
 * both on fresh topics, as {@link ConsumerRates} measures them.
 */
@Command(name = "native", mixinStandardHelpOptions = true,
        description = "Records/second of a consumer that is not a JVM: no debugger vs the native barrier armed at a SQLite commit that never holds.")
final class NativeBench implements BenchCase {
    /** The alternation's variants: 0 is the consumer not attached, 1 with the barrier armed. */
    private static final int ARMED = 1;

    @Option(names = "--subject-cmd", required = true, description = "The consumer's command, with the placeholders {bootstrap} {topic} {group} "
            + "{db} {namespace} {instance} (as for run).")
    String subjectCmd;

    @Option(names = "--records", converter = Count.class, defaultValue = "2000", description = "records consumed per run (default ${DEFAULT-VALUE})")
    int records;

    @Option(names = "--runs", converter = Count.class, defaultValue = "3", description = "rounds, each with one run not attached and one armed (default ${DEFAULT-VALUE})")
    int runs;

    @Mixin
    BenchBroker.Choice brokerChoice;

    @Override
    public int run(BenchContext bench) throws Exception {
        PrintWriter out = bench.out();
        Subject template = Subject.command(subjectCmd);
        if (!template.uses("{group}")) {
            throw bench.refuse("--subject-cmd must use {group}: each run gives its consumer a group of its own");
        }
        Path dir = Files.createTempDirectory("replay-lab-bench-native-");
        ConsumerRates.Medians m;
        try (BenchBroker broker = brokerChoice.open(); KafkaOps ops = KafkaOps.connect(broker.bootstrapServers())) {
            out.printf("%d records in 3 partitions per run; the consumer commits per record; rates from sending the records to their last commit%n",
                    records);
            m = ConsumerRates.alternate(broker.bootstrapServers(), ops, runs, List.of("p", "a"),
                    (variant, run, send) -> measure(out, ops, broker.bootstrapServers(), template, run, dir, variant == ARMED, send));
        }
        out.printf("median: not attached %d records/s, armed %d records/s: armed/plain = %.2f (goal >= 0.5)%n", m.first(), m.second(), m.ratio());
        return ReplayLab.OK;
    }

    private long measure(PrintWriter out, KafkaOps ops, String bootstrap, Subject template, LabNamespace run, Path dir,
            boolean withBarrier, ConsumerRates.Send send) throws Exception {
        Map<String, String> values = Map.of("bootstrap", bootstrap, "topic", run.topic(), "group", run.group(), "db",
                dir.resolve("target.db").toString(), "namespace", run.inbox(1), "instance", "bench", "logdir", dir.toString());
        String name = run.prefix().substring(run.prefix().lastIndexOf('.') + 1);
        try (ChildProcess c = ChildProcess.of(template.command(values)).name("consumer " + name)
                .output(dir.resolve(name + ".out"), dir.resolve(name + ".err")).start();
                NativeDebugger gdb = withBarrier ? NativeDebugger.to(c.pid()).attach(NativePoint.sqliteCommit()) : null) {
            if (gdb != null) {
                gdb.arm("bench", NativePoint.sqliteCommit().thatNeverHolds(), HoldMode.THREAD, t -> { }, BarrierOptions.ofDefaults());
            }
            return ConsumerRates.rate(out, c, ops, run, send, records, withBarrier ? "armed" : "not attached",
                    () -> gdb == null ? "" : "; conditions evaluated: " + gdb.evaluations());
        }
    }
}
