package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;

import io.replaylab.evidence.Status;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.ReplayLab;
import io.replaylab.harness.TargetLogin;
import io.replaylab.harness.lab.SyntheticPayments;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Oracle;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TargetSpec;
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

/** The oracle over a large topic: wall time and heap, beside the two raw reads it cannot avoid. */
@Command(name = "oracle", mixinStandardHelpOptions = true,
        description = "Oracle over N records in 6 partitions vs. draining the topic and SELECTing the rows (medians of --runs rounds, "
                + "each round measures all three in turn); then the oracle once more in a -Xmx256m JVM.")
final class OracleBench implements BenchCase {
    @Option(names = "--records", converter = Count.class, defaultValue = "1000000", description = "records in the topic and the target (default ${DEFAULT-VALUE})")
    int records;

    @Option(names = "--partitions", converter = Count.class, defaultValue = "6", description = "partitions of the topic (default ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--runs", converter = Count.class, defaultValue = "5", description = "Measured rounds after two warm-up rounds (default ${DEFAULT-VALUE}).")
    int runs;

    @Mixin
    BenchBroker.Choice brokerChoice;

    @Option(names = "--target-jdbc-url", description = "A PostgreSQL database for the target rows (a table of the bench's own, dropped "
            + "afterwards) instead of a SQLite file.")
    String targetJdbcUrl;

    @Mixin
    TargetLogin login;

    /** One round's three reads, in ms. */
    record Round(long drainMs, long selectMs, long oracleMs) {
    }

    @Override
    public int run(BenchContext bench) throws Exception {
        PrintWriter out = bench.out();
        LabNamespace ns = LabNamespace.random("bench");
        Path dir = Files.createTempDirectory("replay-lab-oracle-bench-");
        TargetSpec target = targetJdbcUrl == null ? TargetSpec.sqlite(dir.resolve("target.db"), "n")
                : login.applyTo(TargetSpec.jdbc(targetJdbcUrl, "n")).query("SELECT message_id, amount FROM " + table(ns) + " WHERE namespace = {namespace}");
        try (BenchBroker broker = brokerChoice.open()) {
            String b = broker.bootstrapServers();
            try {
                return measure(out, b, ns, dir, target);
            } finally {
                if (!target.isSqlite()) {
                    try (Connection c = connect(target); Statement st = c.createStatement()) {
                        st.execute("DROP TABLE IF EXISTS " + table(ns));
                    }
                }
                if (broker.given()) {
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

    private static Connection connect(TargetSpec t) throws SQLException {
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
        List<Round> rounds = new ArrayList<>();
        for (int round = 0; round <= runs; round++) {
            long r0 = System.nanoTime();
            long drained = TopicDrain.drain(b, ns.topic());
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
                rounds.add(new Round((r1 - r0) / 1_000_000, (r2 - r1) / 1_000_000, (r3 - r2) / 1_000_000));
            }
        }
        long drainMs = Samples.of(rounds, Round::drainMs).roundedMedian();
        long selectMs = Samples.of(rounds, Round::selectMs).roundedMedian();
        long oracleMs = Samples.of(rounds, Round::oracleMs).roundedMedian();
        long raw = drainMs + selectMs;
        out.printf("median of %d rounds: raw reads %d ms (drain %d + SELECT %d), oracle %d ms = %.2fx the raw reads (goal <= 1.5x)%n", runs,
                raw, drainMs, selectMs, oracleMs, (double) oracleMs / raw);

        // the heap bound, shown by running the CLI in JVMs that cannot grow past it
        int rc = 0;
        for (String heap : List.of("256m", "64m")) {
            List<String> cmd = new ArrayList<>(Bench.cliCommand(List.of("-Xmx" + heap), "oracle", "--bootstrap-server", b, "--topic", ns.topic(),
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
        return rc == 0 ? ReplayLab.OK : ReplayLab.FAIL;
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
