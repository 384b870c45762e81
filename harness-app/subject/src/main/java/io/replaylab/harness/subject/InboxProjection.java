package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.RetryPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * The reference projection, into SQLite or PostgreSQL: each effect is written with its inbox row in
 * ONE transaction, so a redelivered message finds its inbox row and applies nothing. Several
 * processes may share the database: SQLite with WAL, BEGIN IMMEDIATE, a busy timeout and a retry
 * that never lets SQLITE_BUSY escape; PostgreSQL with the inbox's primary key deciding (a second
 * writer of the same id waits for the first and then inserts nothing) and a retry on a
 * serialization failure or deadlock. The schema is documented in harness-app/README.md.
 */
class InboxProjection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InboxProjection.class);
    private static final long BUSY_GIVE_UP_MS = 120_000;
    /** Another writer holds the lock: try again, 5 ms after the first refusal, doubling up to 200 ms, for up to 2 minutes. */
    private static final RetryPolicy<Object> WHILE_BUSY = RetryPolicy.builder()
            .handleIf(e -> e instanceof SQLException s && isBusy(s))
            .withBackoff(Duration.ofMillis(5), Duration.ofMillis(200))
            .withMaxRetries(-1)
            .withMaxDuration(Duration.ofMillis(BUSY_GIVE_UP_MS))
            .onRetry(e -> log.debug("database busy, retry {}: {}", e.getAttemptCount(), e.getLastException().getMessage()))
            .build();

    enum Result { APPLIED, DUPLICATE, QUARANTINED }

    /** The two databases the reference subject speaks; the SQL differs only in the schema. */
    enum Dialect {
        SQLITE("INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER"),
        POSTGRES("BIGSERIAL PRIMARY KEY", "BIGINT");

        final String[] schema;

        Dialect(String serialKey, String bigint) {
            schema = new String[] {
                "CREATE TABLE IF NOT EXISTS inbox (namespace TEXT NOT NULL, message_id TEXT NOT NULL, topic TEXT NOT NULL, "
                        + "partition INTEGER NOT NULL, \"offset\" " + bigint + " NOT NULL, instance TEXT NOT NULL, applied_at TEXT NOT NULL, "
                        + "PRIMARY KEY (namespace, message_id))",
                "CREATE TABLE IF NOT EXISTS ledger (entry_id " + serialKey + ", namespace TEXT NOT NULL, "
                        + "message_id TEXT NOT NULL, account TEXT NOT NULL, amount " + bigint + " NOT NULL, topic TEXT NOT NULL, "
                        + "partition INTEGER NOT NULL, \"offset\" " + bigint + " NOT NULL, instance TEXT NOT NULL, applied_at TEXT NOT NULL)",
                "CREATE INDEX IF NOT EXISTS ledger_by_message ON ledger (namespace, message_id)",
                "CREATE TABLE IF NOT EXISTS balance (namespace TEXT NOT NULL, account TEXT NOT NULL, balance " + bigint + " NOT NULL, "
                        + "PRIMARY KEY (namespace, account))",
                "CREATE TABLE IF NOT EXISTS quarantine (namespace TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, "
                        + "\"offset\" " + bigint + " NOT NULL, reason TEXT NOT NULL, raw TEXT, instance TEXT NOT NULL, quarantined_at TEXT NOT NULL, "
                        + "PRIMARY KEY (namespace, topic, partition, \"offset\"))",
            };
        }

        /** A SQLite file path or {@code jdbc:sqlite:}, or {@code jdbc:postgresql:}; anything else is refused by name. */
        static Dialect of(String db) {
            if (db.startsWith("jdbc:postgresql:")) {
                return POSTGRES;
            }
            if (db.startsWith("jdbc:sqlite:") || !db.startsWith("jdbc:")) {
                return SQLITE;
            }
            throw new IllegalArgumentException("--db must be a SQLite file or a jdbc:sqlite: or jdbc:postgresql: URL, was "
                    + db.substring(0, db.indexOf(':', 5) + 1) + "…");
        }
    }

    private final HikariDataSource pool;
    private final Dialect dialect;
    private final String namespace;
    private final String instance;

    /**
     * @param db a SQLite file, or a JDBC URL (the password, if any, comes from {@link io.replaylab.harness.lab.Subject#TARGET_PASSWORD_ENV})
     */
    InboxProjection(String db, String namespace, String instance) {
        this.dialect = Dialect.of(db);
        this.namespace = namespace;
        this.instance = instance;
        HikariConfig cfg = new HikariConfig();
        cfg.setPoolName("projection-" + instance);
        cfg.setMaximumPoolSize(1); // one serial consumer, one connection
        cfg.setAutoCommit(true);
        if (dialect == Dialect.SQLITE) {
            cfg.setJdbcUrl(db.startsWith("jdbc:") ? db : "jdbc:sqlite:" + Path.of(db).toAbsolutePath());
            cfg.addDataSourceProperty("journal_mode", "WAL");
            cfg.addDataSourceProperty("busy_timeout", "10000");
            cfg.addDataSourceProperty("transaction_mode", "IMMEDIATE");
            cfg.addDataSourceProperty("synchronous", "FULL");
        } else {
            cfg.setJdbcUrl(db);
            String password = System.getenv(io.replaylab.harness.lab.Subject.TARGET_PASSWORD_ENV);
            if (password != null && !password.isEmpty()) {
                cfg.setPassword(password);
            }
            cfg.setInitializationFailTimeout(1); // a refused login ends the subject at once, with the server's reason
        }
        this.pool = new HikariDataSource(cfg);
        if (schemaExists()) {
            return; // no write transaction at start: an instance must be able to start and join while another holds the write lock
        }
        inTransaction(c -> {
            try (Statement s = c.createStatement()) {
                if (dialect == Dialect.POSTGRES) {
                    s.execute("SELECT pg_advisory_xact_lock(7413)"); // two instances creating the same table at once collide in the catalog
                }
                for (String ddl : dialect.schema) {
                    s.execute(ddl);
                }
            }
            return null;
        });
    }

    /** The schema's tables are all there (created in one transaction, so the index is too); a read only. */
    private boolean schemaExists() {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            for (String table : List.of("inbox", "ledger", "balance", "quarantine")) {
                s.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            }
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** Inbox row + effect, or nothing if the message is already in this namespace's inbox. One transaction. */
    Result apply(String topic, int partition, long offset, Payment p) {
        return inTransaction(c -> {
            String now = Instant.now().toString();
            if (!claim(c, topic, partition, offset, p.id(), now)) {
                return Result.DUPLICATE;
            }
            update(c, "INSERT INTO ledger (namespace, message_id, account, amount, topic, partition, \"offset\", instance, applied_at) "
                    + "VALUES (?,?,?,?,?,?,?,?,?)", namespace, p.id(), p.account(), p.amount(), topic, partition, offset, instance, now);
            update(c, "INSERT INTO balance (namespace, account, balance) VALUES (?,?,?) "
                    + "ON CONFLICT (namespace, account) DO UPDATE SET balance = balance.balance + excluded.balance", namespace, p.account(), p.amount());
            return Result.APPLIED;
        });
    }

    /**
     * The inbox's decision, inside the effect's transaction: marks the message in this namespace's
     * inbox; false when it was there already (the effect is then not written again). A method of its
     * own so that the test sources' defective twins can decide otherwise.
     */
    boolean claim(Connection c, String topic, int partition, long offset, String id, String now) throws SQLException {
        return update(c, "INSERT INTO inbox (namespace, message_id, topic, partition, \"offset\", instance, applied_at) VALUES (?,?,?,?,?,?,?) "
                + "ON CONFLICT DO NOTHING", namespace, id, topic, partition, offset, instance, now) == 1;
    }

    /** Runs one statement with these parameters in order (a null one as a null text); the number of rows it changed. */
    static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                if (params[i] == null) {
                    ps.setNull(i + 1, java.sql.Types.VARCHAR);
                } else {
                    ps.setObject(i + 1, params[i]);
                }
            }
            return ps.executeUpdate();
        }
    }

    /** A record that cannot be applied: kept with its coordinates and reason, never dropped. */
    Result quarantine(String topic, int partition, long offset, String reason, String raw) {
        return inTransaction(c -> {
            update(c, "INSERT INTO quarantine (namespace, topic, partition, \"offset\", reason, raw, instance, quarantined_at) "
                    + "VALUES (?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING", namespace, topic, partition, offset, reason, raw, instance, Instant.now().toString());
            return Result.QUARANTINED;
        });
    }

    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code work} in one transaction, retrying while the database is busy (SQLite: another
     * process holds the write lock; PostgreSQL: a serialization failure or deadlock was rolled back).
     */
    <T> T inTransaction(Work<T> work) {
        try {
            return Failsafe.with(WHILE_BUSY).get(() -> {
                try (Connection c = pool.getConnection()) {
                    c.setAutoCommit(false);
                    try {
                        T result = work.run(c);
                        c.commit();
                        return result;
                    } catch (SQLException e) {
                        c.rollback();
                        throw e;
                    } finally {
                        c.setAutoCommit(true);
                    }
                }
            });
        } catch (FailsafeException e) {
            if (e.getCause() instanceof InterruptedException) {
                throw new IllegalStateException("interrupted while the database was busy", e.getCause());
            }
            throw new IllegalStateException("the projection into " + dialect + " failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * By the drivers' own codes, not their messages: SQLite's primary result code BUSY or LOCKED
     * (an extended code such as BUSY_SNAPSHOT keeps the primary one in its low byte), PostgreSQL's
     * SQLSTATE serialization_failure or deadlock_detected.
     */
    static boolean isBusy(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLiteException s) {
                int primary = s.getResultCode().code & 0xFF;
                if (primary == SQLiteErrorCode.SQLITE_BUSY.code || primary == SQLiteErrorCode.SQLITE_LOCKED.code) {
                    return true;
                }
            } else if (t instanceof SQLException s && ("40001".equals(s.getSQLState()) || "40P01".equals(s.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        pool.close();
    }
}
