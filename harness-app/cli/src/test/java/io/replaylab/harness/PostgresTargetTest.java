package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.evidence.Json;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.oracle.testing.LocalPostgres;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab with a PostgreSQL target, on a real server: the three experiments PASS with the reference
 * subject projecting into the run's own schema, cleanup drops only that schema, and the password
 * never shows up in the console, the evidence or any file of the run, not even when it is wrong.
 */
@LocalKafkaTest
class PostgresTargetTest {
    private final LocalPostgres pg = LocalPostgres.shared();

    @TempDir
    Path dir;

    @Test
    void replayRebalanceAndRebuildPassProjectingIntoPostgresAndOnlyTheRunsSchemaIsDropped(LocalKafka kafka) throws Exception {
        String url = pg.createDatabase();
        try (Connection c = pg.connect(url); Statement s = c.createStatement()) {
            // a table of the same name that the run did not create: it must neither be used nor touched
            s.execute("CREATE TABLE public.ledger (namespace TEXT, message_id TEXT, amount BIGINT)");
            s.execute("INSERT INTO public.ledger VALUES ('someone-else', 'x', 1)");
        }
        Console r = Console.run("run", "--bootstrap-server", kafka.bootstrapServers(), "--workdir", dir.toString(), "--records", "60",
                "--target-jdbc-url", url + "?user=" + LocalPostgres.USER, "--target-password", LocalPostgres.PASSWORD, "--json");

        JsonNode j = Json.mapper().readTree(r.out());
        assertThat(r.rc()).as(r.both()).isEqualTo(0);
        Path runDir = Path.of(j.get("evidence").asText()).getParent();
        RunEvidence ev = Evidence.read(runDir.resolve("evidence.json"));
        assertThat(ev.experiments()).extracting(ExperimentEvidence::name).containsExactly("replay", "rebalance", "rebuild");
        assertThat(ev.experiments()).allSatisfy(x -> assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.PASS));
        String schema = ev.experiments().get(0).environment().get("target db");
        assertThat(schema).startsWith(url + " as " + LocalPostgres.USER + ", schema rl_");
        assertThat(runDir.resolve("targets")).as("the effects went to PostgreSQL, not to a SQLite file").doesNotExist();
        assertThat(ev.experiments()).allSatisfy(x -> assertThat(x.limitations()).anyMatch(l -> l.startsWith("One broker and one PostgreSQL database")));
        assertThat(experiment(ev, "rebalance").events()).extracting(e -> e.type()).contains("db-commit-seen", "commit-rejected");

        try (Connection c = pg.connect(url); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE 'rl\\_%'")) {
                rs.next();
                assertThat(rs.getInt(1)).as("the run's schema was dropped at cleanup").isZero();
            }
            try (ResultSet rs = s.executeQuery("SELECT namespace, message_id, amount FROM public.ledger")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1) + rs.getString(2) + rs.getLong(3)).isEqualTo("someone-elsex1");
                assertThat(rs.next()).as("nothing of the run in a table it did not create").isFalse();
            }
        }
        assertNowhere(LocalPostgres.PASSWORD, runDir, r);
    }

    @Test
    void aWrongPasswordIsNotRunWithTheServersReasonExitThreeAndThePasswordNowhere(LocalKafka kafka) throws Exception {
        String url = pg.createDatabase();
        String wrong = "wrong-pw-0815";
        Console r = Console.run("run", "--bootstrap-server", kafka.bootstrapServers(), "--workdir", dir.toString(), "--records", "10",
                "--experiment", "replay", "--target-jdbc-url", url + "?user=" + LocalPostgres.USER + "&password=" + wrong);

        assertThat(r.rc()).as(r.both()).isEqualTo(3);
        assertThat(r.out()).contains("NOT_RUN").contains("prerequisite missing: cannot use the target database (" + url + " as lab)")
                .contains("password authentication failed for user \"lab\"");
        Path runDir;
        try (Stream<Path> runs = Files.list(dir)) {
            runDir = runs.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        assertThat(Evidence.read(runDir.resolve("evidence.json")).experiments().get(0).outcome().status()).isEqualTo(Status.NOT_RUN);
        assertNowhere(wrong, runDir, r);

        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort(); // nothing listens there once it is closed
        }
        Console down = Console.run("run", "--bootstrap-server", kafka.bootstrapServers(), "--workdir", dir.resolve("down").toString(), "--records", "10",
                "--experiment", "replay", "--target-jdbc-url", "jdbc:postgresql://127.0.0.1:" + closed + "/lab?user=lab", "--target-password", wrong);
        assertThat(down.rc()).as(down.both()).isEqualTo(3);
        assertThat(down.out()).contains("NOT_RUN").contains("cannot use the target database (jdbc:postgresql://127.0.0.1:" + closed + "/lab as lab)")
                .contains("Connection to 127.0.0.1:" + closed + " refused").doesNotContain(wrong);
    }

    @Test
    void theOracleCommandReadsPostgresAndExitsFiveOnARefusedLogin(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        try (KafkaProducer<String, String> p = Clients.producer(kafka.bootstrapServers())) {
            p.send(new ProducerRecord<>(ns.topic(), 0, "k", "{\"id\": \"a\", \"amount\": 5}")).get();
        }
        String url = pg.createDatabase();
        try (Connection c = pg.connect(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ledger (namespace TEXT, message_id TEXT, amount BIGINT)");
            s.execute("INSERT INTO ledger VALUES ('n', 'a', 5)");
        }
        Console ok = Console.run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--jdbc-url", url,
                "--target-user", LocalPostgres.USER, "--target-password", LocalPostgres.PASSWORD, "--namespace", "n");
        assertThat(ok.rc()).as(ok.both()).isEqualTo(0);
        assertThat(ok.out()).contains("Oracle PASS");

        Console refused = Console.run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--jdbc-url",
                url + "?user=lab&password=wrong-pw-4242", "--namespace", "n");
        assertThat(refused.rc()).as(refused.both()).isEqualTo(5);
        assertThat(refused.err()).contains("cannot connect to the target (" + url + " as lab)").contains("password authentication failed")
                .doesNotContain("wrong-pw-4242");
    }

    private static ExperimentEvidence experiment(RunEvidence r, String name) {
        return r.experiments().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
    }

    /** Not in the console, and not in any file the run wrote (evidence, journal, reports, logs, snapshots). */
    private static void assertNowhere(String secret, Path runDir, Console console) throws Exception {
        assertThat(console.out() + console.err()).doesNotContain(secret);
        List<Path> holding = new ArrayList<>();
        try (Stream<Path> files = Files.walk(runDir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(secret)) {
                    holding.add(f);
                }
            }
        }
        assertThat(holding).as("files holding the password").isEmpty();
    }
}
