package io.replaylab.oracle;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;

/**
 * An open target database: ONE read-only connection pool that serves every read of a run
 * (comparisons, snapshots, effect counts), whatever namespace or query each read uses. Opening it
 * checks the connection at once, so a wrong password or a server that is down is named before any
 * experiment starts.
 *
 * <pre>{@code
 * try (Target target = Target.open(TargetSpec.jdbc(url, "lab-x/g1").credentials(user, password))) {
 *     Oracle.of(source, target).compare(committed);
 *     target.namespace("lab-x/g2").snapshot(Path.of("g2.tsv")); // same pool
 * }
 * }</pre>
 */
public final class Target implements AutoCloseable {
    private final HikariDataSource pool;
    private final TargetSpec spec;
    private final boolean owner;

    private Target(HikariDataSource pool, TargetSpec spec, boolean owner) {
        this.pool = pool;
        this.spec = spec;
        this.owner = owner;
    }

    /**
     * Opens the pool and one connection.
     *
     * @throws OracleReadException the database refused or did not answer (it is named, the password never)
     * @throws IllegalArgumentException a SQLite file that does not exist (the oracle never creates one)
     */
    public static Target open(TargetSpec spec) {
        Objects.requireNonNull(spec, "spec");
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(spec.jdbcUrl());
        if (spec.user() != null) {
            cfg.setUsername(spec.user());
        }
        if (spec.password() != null) {
            cfg.setPassword(spec.password());
        }
        cfg.setMaximumPoolSize(2); // a comparison reads the target on its own thread; an effect count may run beside it
        cfg.setMinimumIdle(1);
        cfg.setPoolName("oracle-target");
        cfg.setInitializationFailTimeout(1); // fail at open, with the driver's reason, instead of at the first read
        cfg.setConnectionTimeout(10_000);
        if (spec.isSqlite()) {
            Path file = Path.of(spec.jdbcUrl().substring("jdbc:sqlite:".length()));
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("target database " + file + " does not exist");
            }
            cfg.addDataSourceProperty("open_mode", "1"); // SQLITE_OPEN_READONLY: the oracle never writes the target
        }
        cfg.setReadOnly(true);
        try {
            return new Target(new HikariDataSource(cfg), spec, true);
        } catch (HikariPool.PoolInitializationException e) {
            SQLException cause = e.getCause() instanceof SQLException s ? s : new SQLException(String.valueOf(e.getCause()), "08001", e);
            throw TargetReader.targetError(spec, cause);
        }
    }

    public TargetSpec spec() {
        return spec;
    }

    /** The same database and pool, read for another namespace. Closing the view does nothing; the opener's close ends the pool. */
    public Target namespace(String namespace) {
        return new Target(pool, spec.namespace(namespace), false);
    }

    /** The same database and pool, read with another query. */
    public Target query(String sql) {
        return new Target(pool, spec.query(sql), false);
    }

    /**
     * Saves the target's (identity, amount) rows to {@code file} in the database's own order and
     * returns their count and digest (SPEC R6). The digest is the sum of each row's SHA-256 (mod
     * 2^256): it depends on the rows as a multiset only, never on a collation or ORDER BY, so the
     * same rows give the same digest on SQLite and on PostgreSQL.
     */
    public TargetSnapshot snapshot(Path file) {
        return TargetReader.snapshot(this, file);
    }

    /** How many effects the target holds for one identity (its query, its namespace). */
    public long effectsOf(String messageId) {
        return TargetReader.effectsOf(this, messageId);
    }

    /** Which of {@code messageIds} have at least one effect in the target now (its query, its namespace). */
    public Set<String> withEffects(Collection<String> messageIds) {
        return TargetReader.withEffects(this, messageIds);
    }

    /**
     * Why a read of this target could block the subject's writes, or empty when it cannot: a SQLite
     * file outside WAL mode takes a shared lock per read (a live check would make the subject's COMMIT
     * busy: the very defect it looks for); a SQLite file in WAL mode and PostgreSQL never block a writer.
     */
    public Optional<String> readsMayBlockWriters() {
        return TargetReader.readsMayBlockWriters(this);
    }

    /**
     * Runs the target's query once without reading a row: it must parse and return
     * {@code message_id} and {@code amount}. Cheap enough to run as soon as the target has a schema,
     * so that a query the database refuses is named before an experiment waits on it.
     *
     * @throws IllegalArgumentException naming the query and the database's message
     * @throws OracleReadException the target cannot be reached at all
     */
    public void checkQuery() {
        TargetReader.checkQuery(this);
    }

    Connection connection() throws SQLException {
        if (pool.isClosed()) {
            throw new IllegalStateException("the target " + spec.displayUrl() + " was closed");
        }
        return pool.getConnection();
    }

    @Override
    public void close() {
        if (owner) {
            pool.close();
        }
    }

    @Override
    public String toString() {
        return "Target[" + spec + "]";
    }
}
