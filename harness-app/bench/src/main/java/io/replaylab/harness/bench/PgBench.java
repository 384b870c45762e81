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
import io.replaylab.harness.lab.SyntheticProducer;
import io.replaylab.harness.subject.ReferenceSubject;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.oracle.TargetSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The PostgreSQL proxy's cost: a consumer's records per second straight to the server and through the proxy, in the
 * {@link Alternation}'s order on fresh topics and schemas; then sequential one-statement round trips from this JVM, direct
 * and proxied, for the cost per query.
 */
@Command(name = "pg", mixinStandardHelpOptions = true,
        description = "Records/second of a consumer on PostgreSQL, direct vs through the PostgreSQL proxy; the proxy's cost per query.")
final class PgBench implements BenchCase {
    /** The alternation's variants: 0 straight to the server, 1 through the proxy. */
    private static final int PROXIED = 1;
    /** Records sent before the measured ones: once they are committed the consumer has joined and made its tables. */
    private static final int WARM_UP = 3;

    @Option(names = "--target-jdbc-url", required = true, description = "A PostgreSQL database (jdbc:postgresql://host:port/db); each run "
            + "gets a schema of its own there, dropped afterwards.")
    String jdbcUrl;

    @Mixin
    TargetLogin login;

    @Option(names = "--subject-cmd", description = "The consumer's command (placeholders as for run; {db} is a JDBC URL, and libpq's "
            + "environment points at the server or the proxy); default: the reference subject.")
    String subjectCmd;

    @Option(names = "--records", defaultValue = "2000", description = "records consumed per run (default ${DEFAULT-VALUE})")
    int records;

    @Option(names = "--runs", defaultValue = "6", description = "rounds, each with one run direct and one proxied (default ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--queries", defaultValue = "5000", description = "sequential SELECT 1 round trips per path and round (default ${DEFAULT-VALUE})")
    int queries;

    @Mixin
    BenchBroker.Choice brokerChoice;

    /** One consumer's run: through the proxy or not, and its rate. */
    record Rate(boolean proxied, long recordsPerSecond) {
    }

    @Override
    public int run(BenchContext bench) throws Exception {
        if (runs < 1 || records < 1 || queries < 1) {
            throw bench.refuse("--runs, --records and --queries must be at least 1, were " + runs + ", " + records + " and " + queries);
        }
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
        LabNamespace ns = LabNamespace.random("bench");
        Alternation alternation = Alternation.of(2);
        List<Rate> rates = new ArrayList<>();
        List<String> topics = new ArrayList<>();
        List<Long> direct = new ArrayList<>();
        List<Long> proxied = new ArrayList<>();
        try (PgProxy proxy = PgProxy.start(host, port); BenchBroker broker = brokerChoice.open()) {
            String b = broker.bootstrapServers();
            out.printf("%d records in 3 partitions per run, the consumer commits per record, %s; then %d sequential SELECT 1 per path and round%n",
                    records, target.displayUrl(), queries);
            try (KafkaOps ops = KafkaOps.connect(b); Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b))) {
                try {
                    for (int r = 0; r < runs; r++) {
                        for (int variant : alternation.order(r)) {
                            boolean viaProxy = variant == PROXIED;
                            LabNamespace run = LabNamespace.of(ns.prefix() + ".r" + r + (viaProxy ? "x" : "d"));
                            topics.add(run.topic());
                            ops.createTopic(run, run.topic(), 3);
                            long seed = 7L + r;
                            String h = viaProxy ? proxy.host() : host;
                            int p = viaProxy ? proxy.port() : port;
                            rates.add(new Rate(viaProxy, consume(out, ops, b, template, target, run, dir, h, p, database, viaProxy,
                                    (idPrefix, n) -> SyntheticProducer.produce(b, run.topic(), 3, idPrefix, n, seed, 50, 0, null, null))));
                            (viaProxy ? proxied : direct).add(roundTrips(target, h, p, database));
                        }
                    }
                } finally {
                    admin.deleteTopics(topics).all().get();
                }
            }
        }
        long d = Samples.of(rates.stream().filter(r -> !r.proxied()).toList(), Rate::recordsPerSecond).roundedMedian();
        long x = Samples.of(rates.stream().filter(Rate::proxied).toList(), Rate::recordsPerSecond).roundedMedian();
        long qd = Samples.of(direct, v -> v).roundedMedian();
        long qx = Samples.of(proxied, v -> v).roundedMedian();
        out.printf("median: direct %d records/s, through the proxy %d records/s: proxied/direct = %.2f%n", d, x, (double) x / d);
        out.printf("median round trip: direct %.1f us, through the proxy %.1f us: the proxy adds %.1f us per query%n", qd / 1e3, qx / 1e3,
                (qx - qd) / 1e3);
        return ReplayLab.OK;
    }

    /** One consumer's run in a schema of its own: its rate from sending the measured records to their last commit. */
    private long consume(PrintWriter out, KafkaOps ops, String bootstrap, Subject template, TargetSpec target, LabNamespace run, Path dir,
            String host, int port, String database, boolean viaProxy, NativeBench.Send send) throws Exception {
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
            send.records(run.inbox(1) + ".warm", WARM_UP);
            NativeBench.awaitCommitted(c, ops, run, WARM_UP);
            long start = System.nanoTime();
            send.records(run.inbox(1), records);
            NativeBench.awaitCommitted(c, ops, run, WARM_UP + records);
            double secs = (System.nanoTime() - start) / 1e9;
            long rate = Math.round(records / secs);
            out.printf("  %-8s %6d records/s (%d records in %.2f s)%n", viaProxy ? "proxied" : "direct", rate, records, secs);
            out.flush();
            return rate;
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
