package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

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

        Console ok = Console.run(args);
        assertThat(ok.rc()).as(ok.both()).isEqualTo(0);
        assertThat(ok.out()).startsWith("Oracle PASS").contains("20 records");

        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            c.createStatement().execute("UPDATE payment_ledger SET amount_cents = amount_cents + 1 WHERE rowid = 1");
        }
        Console tampered = Console.run(args);
        assertThat(tampered.rc()).isEqualTo(1);
        assertThat(tampered.out()).startsWith("Oracle FAIL").contains("mismatched");

        Console unused = Console.run(java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.stream.Stream.of("--namespace", "n1"))
                .toArray(String[]::new));
        assertThat(unused.err()).contains("warning: --namespace n1 is not used: the target query has no {namespace}");
        Console reference = Console.run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString());
        assertThat(reference.rc()).as("the reference query needs a namespace").isEqualTo(2);
        assertThat(reference.err()).contains("uses {namespace} but no --namespace was given");
        Console badField = Console.run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString(),
                "--target-query", query, "--source-id", "json:paymentId");
        assertThat(badField.rc()).isEqualTo(2);
        assertThat(badField.err()).contains("--source-id 'json:paymentId': a JSON pointer starts with '/'");
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
        Console r = Console.run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString(),
                "--namespace", "n", "--json");

        assertThat(r.rc()).isEqualTo(1);
        JsonNode j = Json.mapper().readTree(r.out());
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
        Console ok = Console.run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString(), "--namespace", "n");
        assertThat(ok.rc()).isEqualTo(0);
        assertThat(ok.out()).startsWith("Oracle PASS");

        Console bad = Console.run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", dir.resolve("nope.db").toString(), "--namespace", "n");
        assertThat(bad.rc()).isEqualTo(2);
        assertThat(bad.err()).contains("does not exist");
        Console both = Console.run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--db", db.toString(),
                "--jdbc-url", "jdbc:sqlite:" + db, "--namespace", "n");
        assertThat(both.rc()).isEqualTo(2);
        assertThat(both.err()).contains("mutually exclusive");
        Console neither = Console.run("oracle", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--namespace", "n");
        assertThat(neither.rc()).isEqualTo(2);
        assertThat(neither.err()).contains("Missing required argument");
    }

    @Test
    void aBrokerThatDoesNotAnswerIsExit5NamingItNotAVerdict() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path db = dir.resolve("empty.db");
        Files.createFile(db);

        Console r = Console.run("oracle", "--bootstrap-server", "127.0.0.1:" + port, "--topic", "t", "--db", db.toString(), "--namespace", "n",
                "--timeout", "PT2S");

        assertThat(r.rc()).as(r.err()).isEqualTo(5);
        assertThat(r.err()).contains("the broker at 127.0.0.1:" + port + " did not answer within 2 s");
        assertThat(r.out()).doesNotContain("Oracle FAIL");
    }
}
