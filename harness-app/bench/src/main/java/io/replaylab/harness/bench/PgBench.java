package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.replaylab.barrier.pg.PgProxy;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.ReplayLab;
import io.replaylab.harness.TargetLogin;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.subject.ReferenceSubject;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.oracle.TargetSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The PostgreSQL proxy's cost: a consumer's records per second straight to the server and through the proxy, as
 * {@link ConsumerRates} measures them, on fresh topics and schemas; then sequential one-statement round trips from this JVM, direct
 * and proxied, for the cost per query.
 */
@Command(name = "pg", mixinStandardHelpOptions = true,
        description = "Records/second of a consumer on PostgreSQL, direct vs through the PostgreSQL proxy; the proxy's cost per query.")
final class PgBench implements BenchCase {
    /** The alternation's variants: 0 straight to the server, 1 through the proxy. */
    private static final int PROXIED = 1;

    @Option(names = "--target-jdbc-url", required = true, description = "A PostgreSQL database (jdbc:postgresql://host:port/db); each run "
            + "gets a schema of its own there, dropped afterwards.")
    String jdbcUrl;

    @Mixin
    TargetLogin login;

    @Option(names = "--subject-cmd", description = "The consumer's command (placeholders as for run; {db} is a JDBC URL, and libpq's "
            + "environment points at the server or the proxy); default: the reference subject.")
    String subjectCmd;

    @Option(names = "--records", converter = Count.class, defaultValue = "2000", description = "records consumed per run (default ${DEFAULT-VALUE})")
    int records;

    @Option(names = "--runs", converter = Count.class, defaultValue = "6", description = "rounds, each with one run direct and one proxied (default ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--queries", converter = Count.class, defaultValue = "5000", description = "sequential SELECT 1 round trips per path and round (default ${DEFAULT-VALUE})")
    int queries;

    @Mixin
    BenchBroker.Choice brokerChoice;

    @Override
    public int run(BenchContext bench) throws Exception {
        PrintWriter out = bench.out();
        TargetSpec target = login.applyTo(TargetSpec.jdbc(jdbcUrl, "-"));
        Properties where = org.postgresql.Driver.parseURL(target.jdbcUrl(), null);
        if (where == null) {
            throw bench.refuse("--target-jdbc-url must be a jdbc:postgresql: URL, was " + target.displayUrl());
        }
        String host = where.getProperty("PGHOST", "localhost").split(",")[0];
        int port = Integer.parseInt(where.getProperty("PGPORT", "5432").split(",")[0]);
        String database = where.getProperty("PGDBNAME");
        Subject template = subjectCmd == null ? ReferenceSubject.consume() : Subject.command(subjectCmd);
        Path dir = Files.createTempDirectory("replay-lab-bench-pg-");
        List<Long> direct = new ArrayList<>();
        List<Long> proxied = new ArrayList<>();
        ConsumerRates.Medians m;
        try (PgProxy proxy = PgProxy.start(host, port); BenchBroker broker = brokerChoice.open(); KafkaOps ops = KafkaOps.connect(broker.bootstrapServers())) {
            out.printf("%d records in 3 partitions per run, the consumer commits per record, %s; then %d sequential SELECT 1 per path and round%n",
                    records, target.displayUrl(), queries);
            m = ConsumerRates.alternate(broker.bootstrapServers(), ops, runs, List.of("d", "x"), (variant, run, send) -> {
                boolean viaProxy = variant == PROXIED;
                String h = viaProxy ? proxy.host() : host;
                int p = viaProxy ? proxy.port() : port;
                long rate = consume(out, ops, broker.bootstrapServers(), template, target, run, dir, h, p, database, viaProxy, send);
                (viaProxy ? proxied : direct).add(roundTrips(target, h, p, database));
                return rate;
            });
        }
        long qd = Samples.of(direct, v -> v).roundedMedian();
        long qx = Samples.of(proxied, v -> v).roundedMedian();
        out.printf("median: direct %d records/s, through the proxy %d records/s: proxied/direct = %.2f%n", m.first(), m.second(), m.ratio());
        out.printf("median round trip: direct %.1f us, through the proxy %.1f us: the proxy adds %.1f us per query%n", qd / 1e3, qx / 1e3,
                (qx - qd) / 1e3);
        return ReplayLab.OK;
    }

    /** One consumer's run in a schema of its own: its rate from sending the measured records to their last commit. */
    private long consume(PrintWriter out, KafkaOps ops, String bootstrap, Subject template, TargetSpec target, LabNamespace run, Path dir,
            String host, int port, String database, boolean viaProxy, ConsumerRates.Send send) throws Exception {
        String schema = run.prefix().replaceAll("[^A-Za-z0-9]", "_").toLowerCase();
        try (Connection c = connect(target, host, port, database); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA \"" + schema + "\"");
        }
        Map<String, String> values = new HashMap<>(Map.of("bootstrap", bootstrap, "topic", run.topic(), "group", run.group(), "namespace",
                run.inbox(1), "instance", "bench", "logdir", dir.toString()));
        values.putAll(Map.of("group.protocol", "classic", "max.poll.interval.ms", "300000", "session.timeout.ms", "45000")); // the clients' defaults
        values.put("db", "jdbc:postgresql://" + host + ":" + port + "/" + database + "?currentSchema=" + schema + ",public"
                + (target.user() == null ? "" : "&user=" + target.user()));
        Map<String, String> env = new HashMap<>(Map.of("PGHOST", host, "PGPORT", Integer.toString(port), "PGDATABASE", database,
                "PGOPTIONS", "-c search_path=" + schema + ",public"));
        if (target.user() != null) {
            env.put("PGUSER", target.user());
        }
        if (target.password() != null) {
            env.put("PGPASSWORD", target.password());
            env.put(Subject.TARGET_PASSWORD_ENV, target.password());
        }
        String name = run.prefix().substring(run.prefix().lastIndexOf('.') + 1);
        try (ChildProcess c = ChildProcess.of(template.command(values)).name("consumer " + name).env(env)
                .output(dir.resolve(name + ".out"), dir.resolve(name + ".err")).start()) {
            return ConsumerRates.rate(out, c, ops, run, send, records, viaProxy ? "proxied" : "direct", () -> "");
        } finally {
            try (Connection c = connect(target, host, port, database); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA \"" + schema + "\" CASCADE");
            }
        }
    }

    /** The median of {@link #queries} sequential {@code SELECT 1} round trips on one session, in ns. */
    private long roundTrips(TargetSpec target, String host, int port, String database) throws SQLException {
        long[] each = new long[queries];
        try (Connection c = connect(target, host, port, database); Statement s = c.createStatement()) {
            for (int i = 0; i < queries; i++) {
                long t = System.nanoTime();
                s.execute("SELECT 1");
                each[i] = System.nanoTime() - t;
            }
        }
        java.util.Arrays.sort(each);
        return each[queries / 2];
    }

    private static Connection connect(TargetSpec target, String host, int port, String database) throws SQLException {
        Properties p = new Properties();
        if (target.user() != null) {
            p.setProperty("user", target.user());
        }
        if (target.password() != null) {
            p.setProperty("password", target.password());
        }
        p.setProperty("sslmode", "disable");
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + database, p);
    }

}
