package io.replaylab.harness;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.time.Instant;
import java.util.concurrent.Callable;

import io.replaylab.kafka.broker.LocalKafka;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replay-lab bench …}: the benchmarks behind the figures in the notes (never timed unit tests). */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Run a benchmark and print its figures.",
        subcommands = {BenchCommand.Broker.class, BenchCommand.Offsets.class, BenchCommand.Subject.class, BenchCommand.OracleBench.class})
final class BenchCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static long median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }

    /** Broker start-to-ready (fresh format each run) and idle RSS. */
    @Command(name = "broker", mixinStandardHelpOptions = true, description = "Start the local broker N times: start-to-ready and idle RSS.")
    static final class Broker implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--runs", defaultValue = "5")
        int runs;

        @Option(names = "--idle-seconds", defaultValue = "5", description = "idle time before RSS is read")
        int idleSeconds;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            List<Long> startMs = new ArrayList<>();
            List<Long> rssMb = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                try (LocalKafka kafka = LocalKafka.create()) {
                    long t0 = System.nanoTime();
                    kafka.start();
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    Thread.sleep(idleSeconds * 1000L);
                    long rss = rssKb(kafka.pid()) / 1024;
                    startMs.add(ms);
                    rssMb.add(rss);
                    out.printf("run %d: start-to-ready %d ms (format included), idle RSS %d MB%n", i + 1, ms, rss);
                    out.flush();
                }
            }
            out.printf("median: start-to-ready %d ms, idle RSS %d MB (%d runs)%n", median(startMs), median(rssMb), runs);
            return ReplayLab.OK;
        }

        private static long rssKb(long pid) throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            return -1;
        }
    }

    /** Describe and plan over one group on a many-partition topic, beside Kafka's own ConsumerGroupCommand. */
    @Command(name = "offsets", mixinStandardHelpOptions = true,
            description = "Describe + plan for one group over a topic with many partitions; compare with ConsumerGroupCommand --describe.")
    static final class Offsets implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--partitions", defaultValue = "1000")
        int partitions;

        @Option(names = "--runs", defaultValue = "5")
        int runs;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            io.replaylab.kafka.LabNamespace ns = io.replaylab.kafka.LabNamespace.random("bench");
            try (LocalKafka kafka = LocalKafka.create().start();
                 io.replaylab.kafka.KafkaOps ops = io.replaylab.kafka.KafkaOps.connect(kafka.bootstrapServers(), java.time.Duration.ofSeconds(60))) {
                String b = kafka.bootstrapServers();
                try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                        java.util.Map.of("bootstrap.servers", b))) {
                    admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(ns.topic(), partitions, (short) 1))).all().get();
                    java.util.Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> commit = new java.util.HashMap<>();
                    for (int p = 0; p < partitions; p++) {
                        commit.put(new org.apache.kafka.common.TopicPartition(ns.topic(), p), new org.apache.kafka.clients.consumer.OffsetAndMetadata(0));
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
                    ops.planReset(ns.group(), io.replaylab.kafka.ResetScope.allTopics(), io.replaylab.kafka.ResetTargets.toEarliest());
                    planMs.add((System.nanoTime() - t0) / 1_000_000);
                    planReq = ops.requestCount() - r0;
                }
                out.printf("replay-lab describe: median %d ms, %d Admin requests%n", median(describeMs), describeReq);
                out.printf("replay-lab planReset --to-earliest --all-topics: median %d ms, %d Admin requests%n", median(planMs), planReq);

                Class<?> cgc = Class.forName("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand");
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
            return ReplayLab.OK;
        }
    }

    /** Drain rate of the reference consumer (commit per record): one process, then two sharing the group and DB. */
    @Command(name = "subject", mixinStandardHelpOptions = true,
            description = "Records/second of the reference consumer draining N records: one process, then two processes.")
    static final class Subject implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--records", defaultValue = "10000")
        int records;

        @Option(names = "--partitions", defaultValue = "4")
        int partitions;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            io.replaylab.kafka.LabNamespace ns = io.replaylab.kafka.LabNamespace.random("bench");
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
                    List<Process> ps = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        String inst = "c" + n + "-" + i;
                        ps.add(start(dir, inst, "subject", "consume", "--bootstrap-server", b, "--topic", ns.topic(), "--group",
                                ns.group("n" + n), "--db", dir.resolve("target-" + n + ".db").toString(), "--namespace", ns.inbox(n),
                                "--instance-id", inst, "--until-idle", "PT3S", "--processing-log", dir.resolve(inst + ".jsonl").toString()));
                    }
                    for (Process p : ps) {
                        p.waitFor();
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
                    double secs = java.time.Duration.between(first, last).toMillis() / 1000.0;
                    out.printf("%d process(es): %d records in %.2f s (first to last processed record) = %.0f records/s%n", n, lines, secs,
                            lines / secs);
                    out.flush();
                }
            }
            return ReplayLab.OK;
        }

        private static Process start(Path dir, String name, String... args) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), ReplayLab.class.getName()));
            cmd.addAll(List.of(args));
            return new ProcessBuilder(cmd).redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile())
                    .start();
        }

        private static int runCli(Path dir, String name, String... args) throws Exception {
            return start(dir, name, args).waitFor();
        }
    }

    /** The oracle over a large topic: wall time and heap, beside the two raw reads it cannot avoid. */
    @Command(name = "oracle", mixinStandardHelpOptions = true,
            description = "Oracle over N records in 6 partitions vs. draining the topic and SELECTing the rows; the oracle also runs in a -Xmx256m JVM.")
    static final class OracleBench implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--records", defaultValue = "1000000")
        int records;

        @Option(names = "--partitions", defaultValue = "6")
        int partitions;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            io.replaylab.kafka.LabNamespace ns = io.replaylab.kafka.LabNamespace.random("bench");
            Path dir = Files.createTempDirectory("replay-lab-oracle-bench-");
            Path db = dir.resolve("target.db");
            try (LocalKafka kafka = LocalKafka.create().start()) {
                String b = kafka.bootstrapServers();
                long t0 = System.nanoTime();
                java.util.Properties pp = new java.util.Properties();
                pp.put("bootstrap.servers", b);
                pp.put("linger.ms", "20");
                pp.put("batch.size", "262144");
                pp.put("compression.type", "lz4");
                pp.put("key.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
                pp.put("value.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
                try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(java.util.Map.of("bootstrap.servers", b))) {
                    admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(ns.topic(), partitions, (short) 1))).all().get();
                }
                try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + db);
                     org.apache.kafka.clients.producer.KafkaProducer<String, String> producer = new org.apache.kafka.clients.producer.KafkaProducer<>(pp)) {
                    try (java.sql.Statement st = c.createStatement()) {
                        st.execute("PRAGMA journal_mode=WAL");
                        st.execute("CREATE TABLE ledger (namespace TEXT, message_id TEXT, amount INTEGER)");
                    }
                    c.setAutoCommit(false);
                    try (java.sql.PreparedStatement ins = c.prepareStatement("INSERT INTO ledger VALUES (?,?,?)")) {
                        java.util.Random rnd = new java.util.Random(1);
                        for (int i = 0; i < records; i++) {
                            String id = ns.prefix() + "-" + i;
                            long amount = rnd.nextInt(200_000) - 20_000;
                            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(ns.topic(), "acc-" + (i % 97),
                                    "{\"id\": \"" + id + "\", \"account\": \"acc-" + (i % 97) + "\", \"amount\": " + amount + "}"));
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
                out.printf("setup: %d records in %d partitions and %d target rows in %.1f s%n", records, partitions, records,
                        (System.nanoTime() - t0) / 1e9);

                long r0 = System.nanoTime();
                long drained = drain(b, ns.topic());
                double drainS = (System.nanoTime() - r0) / 1e9;
                long s0 = System.nanoTime();
                long selected = 0;
                try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + db);
                     java.sql.PreparedStatement q = c.prepareStatement("SELECT message_id, amount FROM ledger WHERE namespace = ?")) {
                    q.setString(1, "n");
                    try (java.sql.ResultSet rs = q.executeQuery()) {
                        while (rs.next()) {
                            rs.getString(1);
                            rs.getLong(2);
                            selected++;
                        }
                    }
                }
                double selectS = (System.nanoTime() - s0) / 1e9;
                out.printf("raw reads: drain %d records %.2f s, SELECT %d rows %.2f s, sum %.2f s%n", drained, drainS, selected, selectS, drainS + selectS);

                for (java.lang.management.MemoryPoolMXBean pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
                    pool.resetPeakUsage();
                }
                System.gc();
                long o0 = System.nanoTime();
                io.replaylab.oracle.Comparison cmp = io.replaylab.oracle.Oracle.compare(io.replaylab.oracle.SourceSpec.topic(b, ns.topic()),
                        io.replaylab.oracle.TargetSpec.sqlite(db, "n"));
                double oracleS = (System.nanoTime() - o0) / 1e9;
                long peak = 0;
                for (java.lang.management.MemoryPoolMXBean pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
                    if (pool.getType() == java.lang.management.MemoryType.HEAP) {
                        peak += pool.getPeakUsage().getUsed();
                    }
                }
                out.printf("oracle in-process: %s in %.2f s = %.2fx the raw reads; peak heap (sum of pool peaks) %d MB%n", cmp.status(), oracleS,
                        oracleS / (drainS + selectS), peak / (1024 * 1024));

                List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                        "-cp", System.getProperty("java.class.path"), ReplayLab.class.getName(), "oracle", "--bootstrap-server", b, "--topic",
                        ns.topic(), "--db", db.toString(), "--namespace", "n"));
                long c0 = System.nanoTime();
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("oracle-256m.txt").toFile()).start();
                int rc = p.waitFor();
                out.printf("oracle in a -Xmx256m JVM (CLI, JVM start included): exit %d in %.2f s (%s)%n", rc, (System.nanoTime() - c0) / 1e9,
                        Files.readAllLines(dir.resolve("oracle-256m.txt")).stream().filter(l -> l.startsWith("Oracle")).findFirst().orElse("?"));
            }
            return ReplayLab.OK;
        }

        private static long drain(String bootstrap, String topic) {
            java.util.Properties p = new java.util.Properties();
            p.put("bootstrap.servers", bootstrap);
            p.put("enable.auto.commit", "false");
            p.put("max.poll.records", "5000");
            p.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
            p.put("value.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
            try (org.apache.kafka.clients.consumer.KafkaConsumer<String, String> c = new org.apache.kafka.clients.consumer.KafkaConsumer<>(p)) {
                List<org.apache.kafka.common.TopicPartition> tps = c.partitionsFor(topic).stream()
                        .map(i -> new org.apache.kafka.common.TopicPartition(topic, i.partition())).toList();
                c.assign(tps);
                c.seekToBeginning(tps);
                java.util.Map<org.apache.kafka.common.TopicPartition, Long> end = c.endOffsets(tps);
                long n = 0;
                while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                    n += c.poll(java.time.Duration.ofMillis(500)).count();
                }
                return n;
            }
        }
    }
}
