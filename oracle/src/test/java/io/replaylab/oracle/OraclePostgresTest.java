package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import io.replaylab.evidence.Status;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.oracle.testing.LocalPostgres;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Every known-answer test of {@link OracleTest} again, against a real PostgreSQL server (each test
 * on a fresh database), plus what only a server shows: collation-free snapshots, a refused login,
 * a server that is down, and one pool for every read.
 */
class OraclePostgresTest extends OracleTest {
    private final LocalPostgres pg = LocalPostgres.shared();

    @Override
    String newDatabase() {
        return pg.createDatabase();
    }

    @Override
    String absentDatabase() {
        return pg.url("no_such_database");
    }

    @Override
    TargetSpec spec(String url, String namespace) {
        return TargetSpec.jdbc(url, namespace).credentials(LocalPostgres.USER, LocalPostgres.PASSWORD);
    }

    @Override
    Connection connect(String url) throws Exception {
        return pg.connect(url);
    }

    /** Ids whose order differs between byte order and a linguistic collation (en_US puts 'a' before 'B'; bytes do not). */
    private static final List<String> IDS = List.of("B-2", "a-1", "Ärger-3", "zahlung-ä€😀", "Zeta-5", "éclair-6", "b-7");

    @Test
    void theSameRowsGiveTheSameSnapshotDigestOnSqliteAndPostgresWhateverTheCollation(LocalKafka kafka, LabNamespace ns) throws Exception {
        Path sqlite = dir.resolve("same.db");
        String pgUrl = newDatabase();
        pg.admin(pgUrl.substring(pgUrl.lastIndexOf('/') + 1), "CREATE COLLATION IF NOT EXISTS german (provider = icu, locale = 'de-DE')");
        try (Connection s = DriverManager.getConnection("jdbc:sqlite:" + sqlite); Connection p = connect(pgUrl)) {
            fill(s, "CREATE TABLE ledger (namespace TEXT, message_id TEXT, amount BIGINT)");
            fill(p, "CREATE TABLE ledger (namespace TEXT, message_id TEXT COLLATE german, amount BIGINT)");
        }
        TargetSpec onSqlite = new TargetSpec("jdbc:sqlite:" + sqlite, "n", TargetSpec.REFERENCE_QUERY + " ORDER BY message_id");
        TargetSpec onPostgres = spec(pgUrl, "n").query(TargetSpec.REFERENCE_QUERY + " ORDER BY message_id");
        TargetSnapshot a;
        TargetSnapshot b;
        try (Target s = Target.open(onSqlite); Target p = Target.open(onPostgres)) {
            a = s.snapshot(dir.resolve("sqlite.tsv"));
            b = p.snapshot(dir.resolve("postgres.tsv"));
        }
        assertThat(java.nio.file.Files.readAllLines(a.file())).as("the databases really order differently")
                .isNotEqualTo(java.nio.file.Files.readAllLines(b.file()));
        assertThat(a.rows()).isEqualTo(b.rows()).isEqualTo(IDS.size());
        assertThat(a.digest()).isEqualTo(b.digest());
        assertThat(a.diff(b).equal()).isTrue();

        // and the oracle judges both the same way against one topic
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        try (KafkaProducer<String, String> producer = Clients.producer(kafka.bootstrapServers())) {
            for (int i = 0; i < IDS.size(); i++) {
                producer.send(new ProducerRecord<>(ns.topic(), 0, "acc", "{\"id\": \"" + IDS.get(i) + "\", \"amount\": " + i + "}")).get();
            }
        }
        for (TargetSpec t : List.of(onSqlite, onPostgres)) {
            try (Target target = Target.open(t.query(TargetSpec.REFERENCE_QUERY))) {
                Comparison c = Oracle.of(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), target).compare();
                assertThat(c.status()).as(t.displayUrl() + ": " + c.reason()).isEqualTo(Status.PASS);
                assertThat(c.targetEffects()).isEqualTo(IDS.size());
            }
        }
    }

    private static void fill(Connection c, String ddl) throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute(ddl);
        }
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO ledger VALUES ('n', ?, ?)")) {
            for (int i = 0; i < IDS.size(); i++) {
                ins.setString(1, IDS.get(i));
                ins.setLong(2, i);
                ins.executeUpdate();
            }
        }
    }

    @Test
    void aWrongPasswordIsARefusedLoginNamedWithoutThePassword() {
        String url = newDatabase();
        TargetSpec wrong = TargetSpec.jdbc(url + "?user=" + LocalPostgres.USER + "&password=not-the-password", "n");

        assertThat(wrong.jdbcUrl()).isEqualTo(url);
        assertThat(wrong.toString()).doesNotContain("not-the-password");
        assertThatThrownBy(() -> Target.open(wrong)).isInstanceOf(OracleReadException.class)
                .hasMessageContaining("cannot connect to the target (" + url + " as " + LocalPostgres.USER + ")")
                .hasMessageContaining("password authentication failed")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-the-password"));
    }

    @Test
    void aServerThatIsDownIsNamedAsUnreachable() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        TargetSpec down = TargetSpec.jdbc("jdbc:postgresql://127.0.0.1:" + port + "/lab", "n").credentials("lab", "x");

        assertThatThrownBy(() -> Target.open(down)).isInstanceOf(OracleReadException.class)
                .hasMessageContaining("cannot connect to the target (jdbc:postgresql://127.0.0.1:" + port + "/lab as lab)");
    }

    @Test
    void oneOpenTargetServesEveryReadThroughTheSameConnections(LocalKafka kafka, LabNamespace ns) throws Exception {
        String url = newDatabase();
        String database = url.substring(url.lastIndexOf('/') + 1);
        try (Connection c = connect(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ledger (namespace TEXT, message_id TEXT, amount BIGINT)");
            s.execute("INSERT INTO ledger VALUES ('g1', 'm-1', 5), ('g2', 'm-1', 5)");
        }
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        try (KafkaProducer<String, String> producer = Clients.producer(kafka.bootstrapServers())) {
            producer.send(new ProducerRecord<>(ns.topic(), 0, "acc", "{\"id\": \"m-1\", \"amount\": 5}")).get();
        }
        try (Target target = Target.open(spec(url, "g1"))) {
            Set<Integer> before = sessions(database);
            for (int i = 0; i < 5; i++) {
                assertThat(Oracle.of(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), target.namespace("g" + (i % 2 + 1))).compare().status())
                        .isEqualTo(Status.PASS);
                assertThat(target.namespace("g2").effectsOf("m-1")).isEqualTo(1);
                target.snapshot(dir.resolve("s" + i + ".tsv"));
            }
            Set<Integer> after = sessions(database);
            assertThat(after).as("the pool's sessions, the same ones before and after 15 reads").hasSizeBetween(1, 2).containsAll(before);
        }
        assertThat(sessions(database)).as("closing the target ends its sessions").isEmpty();
    }

    /** The backend pids of {@link LocalPostgres#USER}'s sessions on one database. */
    private Set<Integer> sessions(String database) throws Exception {
        Set<Integer> pids = new TreeSet<>();
        for (int attempt = 0; attempt < 50; attempt++) { // a closed session leaves pg_stat_activity a moment later
            pids.clear();
            try (Connection c = DriverManager.getConnection(pg.url("postgres"), "postgres", "");
                 PreparedStatement q = c.prepareStatement("SELECT pid FROM pg_stat_activity WHERE datname = ? AND usename = ?")) {
                q.setString(1, database);
                q.setString(2, LocalPostgres.USER);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        pids.add(rs.getInt(1));
                    }
                }
            }
            if (!pids.isEmpty() || attempt > 20) {
                return pids;
            }
            Thread.sleep(20);
        }
        return pids;
    }
}
