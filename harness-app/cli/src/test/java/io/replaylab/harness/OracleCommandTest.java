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
