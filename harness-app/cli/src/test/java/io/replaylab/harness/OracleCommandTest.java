package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaylab.evidence.Json;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@LocalKafkaTest
class OracleCommandTest {
    @TempDir
    Path dir;

    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = ReplayLab.run(new PrintWriter(out), new PrintWriter(err), args);
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    @Test
    void theOracleJudgesAUsersOwnShapeAndTablesWithTheMappingAndNeedsNoNamespaceForAQueryWithoutOne(LocalKafka kafka, LabNamespace ns)
            throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 2);
        Path producer = io.replaylab.kafka.testing.PythonConsumer.copy(dir, "handbook_producer.py");
        ProcessBuilder pb = new ProcessBuilder(io.replaylab.kafka.testing.PythonConsumer.python(), producer.toString()).redirectErrorStream(true);
        pb.environment().putAll(java.util.Map.of("KAFKA_BOOTSTRAP", kafka.bootstrapServers(), "KAFKA_TOPIC", ns.topic(), "COUNT", "20"));
        Process run = pb.start();
        String said = new String(run.getInputStream().readAllBytes());
        assertThat(run.waitFor()).as(said).isZero();
        // the user's own projection: no namespace, their own column names
        Path db = dir.resolve("payments.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             org.apache.kafka.clients.consumer.KafkaConsumer<String, String> consumer = Clients.consumer(kafka.bootstrapServers(), ns.group())) {
            c.createStatement().execute("CREATE TABLE payment_ledger (payment_id TEXT, amount_cents INTEGER)");
            consumer.subscribe(java.util.List.of(ns.topic()));
            int n = 0;
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            while (n < 20 && System.nanoTime() < deadline) {
                for (org.apache.kafka.clients.consumer.ConsumerRecord<String, String> r : consumer.poll(java.time.Duration.ofMillis(200))) {
                    JsonNode v = Json.mapper().readTree(r.value());
                    c.createStatement().execute("INSERT INTO payment_ledger VALUES ('" + r.key() + "', " + v.get("amountCents").asLong() + ")");
                    n++;
                }
            }
            assertThat(n).isEqualTo(20);
        }
        String query = "SELECT payment_id AS message_id, amount_cents AS amount FROM payment_ledger";
        String[] args = {"oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString(), "--target-query", query,
            "--source-id", "key", "--source-amount", "json:/amountCents"};

        String[] ok = run(args);
        assertThat(ok[0]).as(ok[1] + ok[2]).isEqualTo("0");
        assertThat(ok[1]).startsWith("Oracle PASS").contains("20 records");

        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            c.createStatement().execute("UPDATE payment_ledger SET amount_cents = amount_cents + 1 WHERE rowid = 1");
        }
        String[] tampered = run(args);
        assertThat(tampered[0]).isEqualTo("1");
        assertThat(tampered[1]).startsWith("Oracle FAIL").contains("mismatched");

        String[] unused = run(java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.stream.Stream.of("--namespace", "n1"))
                .toArray(String[]::new));
        assertThat(unused[2]).contains("warning: --namespace n1 is not used: the target query has no {namespace}");
        String[] reference = run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString());
        assertThat(reference[0]).as("the reference query needs a namespace").isEqualTo("2");
        assertThat(reference[2]).contains("uses {namespace} but no --namespace was given");
        String[] badField = run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString(),
                "--target-query", query, "--source-id", "json:paymentId");
        assertThat(badField[0]).isEqualTo("2");
        assertThat(badField[2]).contains("--source-id 'json:paymentId': a JSON pointer starts with '/'");
    }

    @Test
    void jsonNamesEveryKindAndTheExitCodeFollowsTheVerdict(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        try (KafkaProducer<String, String> p = Clients.producer(kafka.bootstrapServers())) {
            p.send(new ProducerRecord<>(ns.topic(), 0, "k", "{\"id\": \"a\", \"amount\": 5}")).get();
            p.send(new ProducerRecord<>(ns.topic(), 0, "k", "{\"id\": \"b\", \"amount\": 6}")).get();
        }
        Path db = dir.resolve("t.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            c.createStatement().execute("CREATE TABLE ledger (namespace TEXT, message_id TEXT, amount INTEGER)");
            c.createStatement().execute("INSERT INTO ledger VALUES ('n', 'a', 5), ('n', 'a', 5)");
        }
        String[] r = run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString(),
                "--namespace", "n", "--json");

        assertThat(r[0]).isEqualTo("1");
        JsonNode j = Json.mapper().readTree(r[1]);
        assertThat(j.get("status").asText()).isEqualTo("FAIL");
        assertThat(j.get("missing").get("count").asLong()).isEqualTo(1);
        assertThat(j.get("duplicated").get("examples").get(0).asText()).isEqualTo("a x2");
        for (String kind : new String[] {"unexpected", "mismatched", "malformed"}) {
            assertThat(j.get(kind).get("count").asLong()).isZero();
        }

        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            c.createStatement().execute("DELETE FROM ledger");
            c.createStatement().execute("INSERT INTO ledger VALUES ('n', 'a', 5), ('n', 'b', 6)");
        }
        String[] ok = run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString(), "--namespace", "n");
        assertThat(ok[0]).isEqualTo("0");
        assertThat(ok[1]).startsWith("Oracle PASS");

        String[] bad = run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", dir.resolve("nope.db").toString(), "--namespace", "n");
        assertThat(bad[0]).isEqualTo("2");
        assertThat(bad[2]).contains("does not exist");
        String[] both = run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString(),
                "--jdbc-url", "jdbc:sqlite:" + db, "--namespace", "n");
        assertThat(both[0]).isEqualTo("2");
        assertThat(both[2]).contains("mutually exclusive");
        String[] neither = run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--namespace", "n");
        assertThat(neither[0]).isEqualTo("2");
        assertThat(neither[2]).contains("Missing required argument");
    }

    @Test
    void aBrokerThatDoesNotAnswerIsExit5NamingItNotAVerdict() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path db = dir.resolve("empty.db");
        Files.createFile(db);

        String[] r = run("oracle", "--bootstrap-server", "127.0.0.1:" + port, "--topic", "t", "--db", db.toString(), "--namespace", "n",
                "--timeout", "PT2S");

        assertThat(r[0]).as(r[2]).isEqualTo("5");
        assertThat(r[2]).contains("the broker at 127.0.0.1:" + port + " did not answer within 2 s");
        assertThat(r[1]).doesNotContain("Oracle FAIL");
    }
}
