package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.ReplayLab;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Drain rate of the reference consumer (commit per record): one process, then two sharing the group and DB. */
@Command(name = "subject", mixinStandardHelpOptions = true,
        description = "Records/second of the reference consumer draining N records: one process, then two processes.")
final class SubjectBench implements BenchCase {
    @Option(names = "--records", converter = Count.class, defaultValue = "10000", description = "records drained per run (default ${DEFAULT-VALUE})")
    int records;

    @Option(names = "--partitions", converter = Count.class, defaultValue = "4", description = "partitions of the topic (default ${DEFAULT-VALUE})")
    int partitions;

    @Override
    public int run(BenchContext bench) throws Exception {
        PrintWriter out = bench.out();
        LabNamespace ns = LabNamespace.random("bench");
        Path dir = Files.createTempDirectory("replay-lab-bench-");
        try (LocalKafka kafka = LocalKafka.create().start()) {
            String b = kafka.bootstrapServers();
            int rc = start(dir, "produce", "subject", "produce", "--bootstrap-server", b, "--topic", ns.topic(), "--partitions",
                    "" + partitions, "--count", "" + records, "--namespace", ns.prefix()).process().waitFor();
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
        return ReplayLab.OK;
    }

    private static ChildProcess start(Path dir, String name, String... args) {
        return ChildProcess.of(Bench.cliCommand(List.of(), args)).name(name).output(dir.resolve(name + ".out"), dir.resolve(name + ".err")).start();
    }
}
