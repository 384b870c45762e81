package io.replaylab.harness.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.replaylab.barrier.pg.PgProxy;
import io.replaylab.kafka.Bootstraps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TargetSpec;
import org.slf4j.LoggerFactory;

/**
 * The run's target database. By default SQLite files in the run directory, one per experiment
 * ({@code targets/<experiment>.db}: a subject held at its DB commit holds its file's write lock, and
 * experiments run side by side; nothing to prepare, nothing to clean: the files are part of the
 * protocol). With {@code --target-jdbc-url} a PostgreSQL
 * database: the run creates its OWN schema there (named after the run's namespace, refused if it
 * already exists), every subject and the oracle use it through {@code currentSchema}, and cleanup
 * drops that schema only: never a table the run did not create; experiments share it, each in
 * inbox namespaces of its own. One read pool ({@link Target}) serves every oracle read of one
 * database. Subjects reach PostgreSQL through the run's PostgreSQL proxy ({@link PgProxy}, forwarding to
 * the URL's first host): the barrier room holds any client's COMMIT there, whatever its language, and
 * each instance gets its address in the forms its client reads ({@link #addresses}).
 */
final class TargetDatabase implements AutoCloseable {
    private static final Pattern PG_HOSTS = Pattern.compile("^jdbc:postgresql:(?://([^/?]*))?");

    private final TargetSpec spec;
    private final String subjectDb;
    private final String schema;
    /** PostgreSQL: the proxy the subjects connect through, and the database and user they log in as; null for SQLite. */
    private final PgProxy proxy;
    private final String database;
    private final String shown;
    /** SQLite: the run directory, where each experiment gets a file of its own; null for PostgreSQL and for an experiment's file. */
    private final Path runDir;
    private final Optional<String> query;
    /** Decimal digits of the target's amounts turned into minor units (the source mapping's scale). */
    private final int amountScale;
    private Target target;

    private TargetDatabase(TargetSpec spec, String subjectDb, String schema, String shown, Path runDir, Optional<String> query, int amountScale) {
        this(spec, subjectDb, schema, shown, runDir, query, amountScale, null, null);
    }

    private TargetDatabase(TargetSpec spec, String subjectDb, String schema, String shown, Path runDir, Optional<String> query, int amountScale,
            PgProxy proxy, String database) {
        this.proxy = proxy;
        this.database = database;
        this.amountScale = amountScale;
        this.runDir = runDir;
        this.query = query;
        this.spec = spec;
        this.shown = shown;
        this.subjectDb = subjectDb;
        this.schema = schema;
    }

    /** SQLite files in the run directory: {@link #experiment} names each experiment's. */
    static TargetDatabase sqlite(Path runDir, Optional<String> query, int amountScale) {
        return new TargetDatabase(null, null, null, "targets/<experiment>.db (SQLite, in the run directory)", runDir, query, amountScale);
    }

    /**
     * The database of one experiment: for SQLite the file {@code targets/<experiment>.db} (created
     * on first write by its subject); for PostgreSQL this one, the run's schema.
     */
    TargetDatabase experiment(String name) {
        if (runDir == null) {
            return this;
        }
        Path db = runDir.resolve("targets").resolve(name + ".db").toAbsolutePath();
        try {
            Files.createDirectories(db.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + db.getParent(), e);
        }
        TargetSpec spec = TargetSpec.sqlite(db, "-").amountScale(amountScale);
        return new TargetDatabase(query.map(spec::query).orElse(spec), db.toString(), null,
                "targets/" + name + ".db (SQLite, in the run directory, this experiment's own)", null, Optional.empty(), amountScale);
    }

    /**
     * Checks a target's JDBC URL as the run would use it (a PostgreSQL URL, a loopback host unless
     * {@code allowRemote}, no {@code currentSchema} of its own), without connecting; a user or password
     * given beside the URL wins over one in it.
     */
    static TargetSpec check(TargetSettings target, boolean allowRemote) {
        TargetSpec spec = TargetSpec.jdbc(target.jdbcUrl().orElseThrow(() -> new IllegalArgumentException("the SQLite target has no JDBC URL to check")), "-");
        if (target.user().isPresent() || target.password().isPresent()) {
            spec = spec.credentials(target.user().orElse(spec.user()), target.password().orElse(spec.password()));
        }
        if (!PG_HOSTS.matcher(spec.jdbcUrl()).find()) {
            throw InvalidSettingsException.of("target", "must be a jdbc:postgresql: URL (the default target is a SQLite file in the "
                    + "run directory), was " + spec.displayUrl());
        }
        if (spec.jdbcUrl().toLowerCase().contains("currentschema=")) {
            throw InvalidSettingsException.of("target", "must not set currentSchema: the run creates a schema of its own and "
                    + "drops it afterwards (" + spec.displayUrl() + ")");
        }
        String hosts = hosts(spec.jdbcUrl());
        if (!allowRemote) {
            List<String> remote = Bootstraps.nonLoopbackHosts(hosts);
            if (!remote.isEmpty()) {
                throw new InvalidSettingsException(List.of(new InvalidSettingsException.SettingProblem("target", "host(s) " + remote
                        + " are not loopback; allow remote ones (" + LabSettings.ALLOW_REMOTE + ") to use that database", List.of(LabSettings.ALLOW_REMOTE))));
            }
        }
        return spec;
    }

    /**
     * Creates the run's schema in the database of {@code base} (as checked by {@link #check}).
     *
     * @throws SQLException the server refused the login or the schema (the caller names it, without the password)
     */
    static TargetDatabase postgres(TargetSpec base, LabNamespace ns, Optional<String> query, int amountScale) throws SQLException {
        String schema = ns.prefix().replaceAll("[^A-Za-z0-9]", "_").toLowerCase();
        String version;
        try (Connection c = connect(base); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA \"" + schema + "\""); // fails if it exists: a run never adopts a schema it did not create
            version = c.getMetaData().getDatabaseProductName() + " " + c.getMetaData().getDatabaseProductVersion();
        }
        String url = base.jdbcUrl() + (base.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + schema + ",public";
        TargetSpec spec = base.url(url).amountScale(amountScale);
        Properties parsed = org.postgresql.Driver.parseURL(base.jdbcUrl(), null);
        if (parsed == null) {
            throw new SQLException("pgjdbc cannot read the URL " + base.displayUrl());
        }
        String host = parsed.getProperty("PGHOST", "localhost").split(",")[0];
        int port = Integer.parseInt(parsed.getProperty("PGPORT", "5432").split(",")[0]);
        String database = parsed.getProperty("PGDBNAME", base.user() == null ? "" : base.user());
        PgProxy proxy = PgProxy.start(host, port);
        int q = url.indexOf('?');
        String subjectDb = "jdbc:postgresql://" + proxy.host() + ":" + proxy.port() + "/" + database + url.substring(q)
                + (spec.user() != null ? "&user=" + encode(spec.user()) : "");
        String shown = base.displayUrl() + (base.user() != null ? " as " + base.user() : "") + ", schema " + schema + " (the run's own), "
                + version + "; subjects connect through the PostgreSQL proxy at " + proxy.host() + ":" + proxy.port() + " (to " + host + ":" + port + ")";
        return new TargetDatabase(query.map(spec::query).orElse(spec), subjectDb, schema, shown, null, Optional.empty(), amountScale, proxy,
                database);
    }

    private static String encode(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The host(s) of a {@code jdbc:postgresql:} URL, {@code localhost} when it names none. */
    static String hosts(String jdbcUrl) {
        Matcher m = PG_HOSTS.matcher(jdbcUrl);
        return !m.find() || m.group(1) == null || m.group(1).isEmpty() ? "localhost" : m.group(1);
    }

    static Connection connect(TargetSpec spec) throws SQLException {
        Properties p = new Properties();
        if (spec.user() != null) {
            p.setProperty("user", spec.user());
        }
        if (spec.password() != null) {
            p.setProperty("password", spec.password());
        }
        DriverManager.setLoginTimeout(10);
        return DriverManager.getConnection(spec.jdbcUrl(), p);
    }

    /**
     * What instance {@code instance} gets to find the target, by placeholder name: {@code db} (the SQLite file, or a JDBC URL to
     * the proxy with the run's schema, the user and the instance as its application name; the password goes in the environment),
     * and for PostgreSQL {@link Subject#PG_PLACEHOLDERS}' values for a client that is not a JVM's.
     */
    java.util.Map<String, String> addresses(String instance) {
        if (proxy == null) {
            return java.util.Map.of("db", subjectDb);
        }
        java.util.Map<String, String> a = new java.util.HashMap<>();
        a.put("db", subjectDb + "&ApplicationName=" + encode(instance));
        a.put("pg-host", proxy.host());
        a.put("pg-port", Integer.toString(proxy.port()));
        a.put("pg-database", database);
        a.put("pg-user", spec.user() == null ? "" : spec.user());
        a.put("pg-schema", schema);
        a.put("pg-options", searchPath());
        a.put("pg-uri", "postgresql://" + (spec.user() == null ? "" : encode(spec.user()) + "@") + proxy.host() + ":" + proxy.port() + "/"
                + encode(database) + "?application_name=" + encode(instance) + "&options=" + encode(searchPath()));
        return a;
    }

    /** libpq's environment for a client of the target (PGHOST, PGPORT, PGDATABASE, PGUSER, PGOPTIONS, PGAPPNAME), from {@link #addresses}; empty for SQLite. */
    static java.util.Map<String, String> libpqEnvironment(java.util.Map<String, String> addresses, String instance) {
        if (!addresses.containsKey("pg-host")) {
            return java.util.Map.of();
        }
        java.util.Map<String, String> env = new java.util.HashMap<>();
        env.put("PGHOST", addresses.get("pg-host"));
        env.put("PGPORT", addresses.get("pg-port"));
        env.put("PGDATABASE", addresses.get("pg-database"));
        if (!addresses.get("pg-user").isEmpty()) {
            env.put("PGUSER", addresses.get("pg-user"));
        }
        env.put("PGOPTIONS", addresses.get("pg-options"));
        env.put("PGAPPNAME", instance);
        return env;
    }

    /** The run's schema first on the search path, as a server option: what libpq's {@code options} and PGOPTIONS take. */
    private String searchPath() {
        return "-c search_path=" + schema + ",public";
    }

    /** The run's PostgreSQL proxy, which every subject connects through; empty for SQLite. */
    Optional<PgProxy> proxy() {
        return Optional.ofNullable(proxy);
    }

    /** The password a subject finds in its environment, or null. */
    String password() {
        return spec == null ? null : spec.password();
    }

    /** As recorded in the evidence: the URL without a password, the user and the run's schema; or the SQLite file. */
    String describe() {
        return shown;
    }

    /** What the R15 limitation names: "SQLite DB" or "PostgreSQL database". */
    String kind() {
        return schema == null ? "SQLite DB" : "PostgreSQL database";
    }

    String schema() {
        return schema;
    }

    /** The oracle's view of one inbox namespace, through the run's one pool (opened on first use: a SQLite file exists only once a subject wrote it). */
    synchronized Target target(String inboxNamespace) {
        if (spec == null) {
            throw new IllegalStateException("the run's SQLite targets are per experiment: use experiment(name)");
        }
        if (target == null) {
            target = Target.open(spec);
        }
        return target.namespace(inboxNamespace);
    }

    /** Drops the run's schema (PostgreSQL); nothing for SQLite. */
    void dropSchema() throws SQLException {
        if (schema == null) {
            return;
        }
        close();
        try (Connection c = connect(spec); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA \"" + schema + "\" CASCADE");
        }
    }

    /** After a failed start: the schema goes, and a failure to drop it is only logged (the start's failure is the one to report). */
    void dropQuietly() {
        try {
            dropSchema();
        } catch (SQLException | RuntimeException e) {
            LoggerFactory.getLogger(TargetDatabase.class).warn("cannot drop schema {} after a failed start: {}", schema, e.getMessage());
        }
    }

    @Override
    public synchronized void close() {
        if (target != null) {
            target.close();
            target = null;
        }
        if (proxy != null) {
            proxy.close();
        }
    }
}
