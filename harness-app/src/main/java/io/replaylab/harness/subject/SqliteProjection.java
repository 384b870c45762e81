package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference SQLite projection: each effect is written with its inbox row in ONE transaction
 * (BEGIN IMMEDIATE), so a redelivered message finds its inbox row and applies nothing. Several
 * processes may share the file (WAL, busy timeout, and a retry that never lets SQLITE_BUSY escape).
 * The schema is documented in harness-app/README.md.
 */
final class SqliteProjection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SqliteProjection.class);
    private static final long BUSY_GIVE_UP_MS = 120_000;

    enum Result { APPLIED, DUPLICATE, QUARANTINED }

    static final String[] SCHEMA = {
        "CREATE TABLE IF NOT EXISTS inbox (namespace TEXT NOT NULL, message_id TEXT NOT NULL, topic TEXT NOT NULL, "
                + "partition INTEGER NOT NULL, \"offset\" INTEGER NOT NULL, instance TEXT NOT NULL, applied_at TEXT NOT NULL, "
                + "PRIMARY KEY (namespace, message_id))",
        "CREATE TABLE IF NOT EXISTS ledger (entry_id INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, "
                + "message_id TEXT NOT NULL, account TEXT NOT NULL, amount INTEGER NOT NULL, topic TEXT NOT NULL, "
                + "partition INTEGER NOT NULL, \"offset\" INTEGER NOT NULL, instance TEXT NOT NULL, applied_at TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS ledger_by_message ON ledger (namespace, message_id)",
        "CREATE TABLE IF NOT EXISTS balance (namespace TEXT NOT NULL, account TEXT NOT NULL, balance INTEGER NOT NULL, "
                + "PRIMARY KEY (namespace, account))",
        "CREATE TABLE IF NOT EXISTS quarantine (namespace TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, "
                + "\"offset\" INTEGER NOT NULL, reason TEXT NOT NULL, raw TEXT, instance TEXT NOT NULL, quarantined_at TEXT NOT NULL, "
                + "PRIMARY KEY (namespace, topic, partition, \"offset\"))",
    };

    private final HikariDataSource pool;
    private final String namespace;
    private final String instance;
    private final boolean checkInbox;

    SqliteProjection(Path db, String namespace, String instance) {
        this(db, namespace, instance, true);
    }

    /** {@code checkInbox=false} exists only so tests can prove the oracle catches a second effect. */
    SqliteProjection(Path db, String namespace, String instance, boolean checkInbox) {
        this.namespace = namespace;
        this.instance = instance;
        this.checkInbox = checkInbox;
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl("jdbc:sqlite:" + db.toAbsolutePath());
        cfg.setPoolName("projection-" + instance);
        cfg.setMaximumPoolSize(1);
        cfg.setAutoCommit(true);
        cfg.addDataSourceProperty("journal_mode", "WAL");
        cfg.addDataSourceProperty("busy_timeout", "10000");
        cfg.addDataSourceProperty("transaction_mode", "IMMEDIATE");
        cfg.addDataSourceProperty("synchronous", "FULL");
        this.pool = new HikariDataSource(cfg);
        inTransaction(c -> {
            try (Statement s = c.createStatement()) {
                for (String ddl : SCHEMA) {
                    s.execute(ddl);
                }
            }
            return null;
        });
    }

    /** Inbox row + effect, or nothing if the message is already in this namespace's inbox. One transaction. */
    Result apply(String topic, int partition, long offset, Payment p) {
        return inTransaction(c -> {
            String now = Instant.now().toString();
            if (checkInbox) {
                try (PreparedStatement ins = c.prepareStatement("INSERT OR IGNORE INTO inbox (namespace, message_id, topic, partition, "
                        + "\"offset\", instance, applied_at) VALUES (?,?,?,?,?,?,?)")) {
                    ins.setString(1, namespace);
                    ins.setString(2, p.id());
                    ins.setString(3, topic);
                    ins.setInt(4, partition);
                    ins.setLong(5, offset);
                    ins.setString(6, instance);
                    ins.setString(7, now);
                    if (ins.executeUpdate() == 0) {
                        return Result.DUPLICATE;
                    }
                }
            }
            try (PreparedStatement led = c.prepareStatement("INSERT INTO ledger (namespace, message_id, account, amount, topic, partition, "
                    + "\"offset\", instance, applied_at) VALUES (?,?,?,?,?,?,?,?,?)")) {
                led.setString(1, namespace);
                led.setString(2, p.id());
                led.setString(3, p.account());
                led.setLong(4, p.amount());
                led.setString(5, topic);
                led.setInt(6, partition);
                led.setLong(7, offset);
                led.setString(8, instance);
                led.setString(9, now);
                led.executeUpdate();
            }
            try (PreparedStatement bal = c.prepareStatement("INSERT INTO balance (namespace, account, balance) VALUES (?,?,?) "
                    + "ON CONFLICT (namespace, account) DO UPDATE SET balance = balance + excluded.balance")) {
                bal.setString(1, namespace);
                bal.setString(2, p.account());
                bal.setLong(3, p.amount());
                bal.executeUpdate();
            }
            return Result.APPLIED;
        });
    }

    /** A record that cannot be applied: kept with its coordinates and reason, never dropped. */
    Result quarantine(String topic, int partition, long offset, String reason, String raw) {
        return inTransaction(c -> {
            try (PreparedStatement q = c.prepareStatement("INSERT OR IGNORE INTO quarantine (namespace, topic, partition, \"offset\", "
                    + "reason, raw, instance, quarantined_at) VALUES (?,?,?,?,?,?,?,?)")) {
                q.setString(1, namespace);
                q.setString(2, topic);
                q.setInt(3, partition);
                q.setLong(4, offset);
                q.setString(5, reason);
                q.setString(6, raw);
                q.setString(7, instance);
                q.setString(8, Instant.now().toString());
                q.executeUpdate();
            }
            return Result.QUARANTINED;
        });
    }

    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs {@code work} in one transaction, retrying while the database is busy (another process holds the write lock). */
    private <T> T inTransaction(Work<T> work) {
        long deadline = System.currentTimeMillis() + BUSY_GIVE_UP_MS;
        long backoff = 5;
        while (true) {
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
            } catch (SQLException e) {
                if (!isBusy(e) || System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("SQLite projection failed: " + e.getMessage(), e);
                }
                log.debug("database busy, retrying in {} ms: {}", backoff, e.getMessage());
                sleep(backoff);
                backoff = Math.min(200, backoff * 2);
            }
        }
    }

    private static boolean isBusy(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (m.contains("SQLITE_BUSY") || m.contains("SQLITE_LOCKED") || m.contains("database is locked")) {
                return true;
            }
        }
        return false;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the database was busy", e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
