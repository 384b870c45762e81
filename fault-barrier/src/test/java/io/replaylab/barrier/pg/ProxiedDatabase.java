package io.replaylab.barrier.pg;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.replaylab.oracle.testing.LocalPostgres;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the proxy's tests stand on, made again for each test: a fresh database of the shared test server with a table
 * {@code effect (id)}, and a {@link PgProxy} in front of the server. Registered with {@code @RegisterExtension}.
 */
final class ProxiedDatabase implements BeforeEachCallback, AfterEachCallback {
    private final String idColumn;
    private final LocalPostgres pg = LocalPostgres.shared();
    private String direct;
    private String database;
    private PgProxy proxy;

    /** @param idColumn the column's definition, e.g. {@code id text PRIMARY KEY} */
    ProxiedDatabase(String idColumn) {
        this.idColumn = idColumn;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws SQLException {
        direct = pg.createDatabase();
        database = direct.substring(direct.lastIndexOf('/') + 1);
        try (Connection c = pg.connect(direct); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE effect (" + idColumn + ")");
        }
        proxy = PgProxy.start("127.0.0.1", pg.port());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        proxy.close();
    }

    PgProxy proxy() {
        return proxy;
    }

    /** The database's name, as a point or a client names it. */
    String database() {
        return database;
    }

    /** A JDBC URL to the database through the proxy, with {@code options} (e.g. {@code ?sslmode=prefer}) appended. */
    String viaProxy(String options) {
        return "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + database + options;
    }

    /** A session straight to the server, past the proxy. */
    Connection direct() throws SQLException {
        return pg.connect(direct);
    }

    /** A session to {@code url} as the test server's user. */
    Connection connect(String url) throws SQLException {
        return pg.connect(url);
    }

    /** The ids in {@code effect} as the server has them, in order. */
    List<String> ids() throws SQLException {
        try (Connection c = direct(); Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT id FROM effect ORDER BY id")) {
            List<String> ids = new ArrayList<>();
            while (r.next()) {
                ids.add(r.getString(1));
            }
            return ids;
        }
    }
}
