package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaylab.evidence.Json;
import io.replaylab.kafka.ClientProperties;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --command-config} / {@code --command-property} against the shared broker's SASL_PLAINTEXT (PLAIN) listener: every
 * command that reaches a broker gets there with them, the reference subjects log in through the wire proxy, and the password is
 * in no file of the run.
 */
@LocalKafkaTest
class CommandConfigTest {
    @TempDir
    Path dir;

    private Path commandConfig(LocalKafka kafka) throws IOException {
        Path f = dir.resolve("client.properties");
        kafka.saslClient(LocalKafkaTest.SASL_USER).writeTo(f);
        return f;
    }

    @Test
    void offsetsAndOracleReachASaslListenerWithTheCommandConfigAndNameItWhenTheBrokerStaysSilent(LocalKafka kafka, LabNamespace ns)
            throws Exception {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 2, 3);
        String sasl = kafka.saslBootstrapServers().orElseThrow();
        Path config = commandConfig(kafka);

        Console described = Console.run("offsets", "describe", "--bootstrap-server", sasl, "--group", ns.group(), "--command-config", config.toString());
        assertThat(described.rc()).as(described.err()).isZero();
        assertThat(described.out()).contains("Consumer group '" + ns.group() + "'");

        Console silent = Console.run("offsets", "describe", "--bootstrap-server", sasl, "--group", ns.group(), "--timeout", "PT3S");
        assertThat(silent.rc()).as("a plaintext client at a SASL listener: " + silent.err()).isEqualTo(ReplayLab.UNREACHABLE);
        assertThat(silent.err()).contains("SASL or TLS").contains("--command-config/--command-property");

        Console wrong = Console.run("offsets", "describe", "--bootstrap-server", sasl, "--group", ns.group(), "--timeout", "PT10S",
                "--command-config", config.toString(), "--command-property",
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + LocalKafkaTest.SASL_USER
                        + "\" password=\"not-it\";");
        assertThat(wrong.rc()).as("a refused login is the client properties' fault: " + wrong.err()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(wrong.err()).contains("refused the lab's client").containsIgnoringCase("authentication")
                .contains("--command-config/--command-property").doesNotContain("not-it");

        Console typo = Console.run("offsets", "describe", "--bootstrap-server", sasl, "--group", ns.group(), "--command-propery",
                "sasl.jaas.config=x password=\"typed-" + LocalKafkaTest.SASL_PASSWORD + "\";");
        assertThat(typo.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(typo.err()).as("a mistyped flag's value is not echoed").contains("--command-propery").contains("sasl.jaas.config=…")
                .doesNotContain(LocalKafkaTest.SASL_PASSWORD);

        Console missing = Console.run("offsets", "describe", "--bootstrap-server", sasl, "--group", ns.group(), "--command-config", dir.resolve("nope").toString());
        assertThat(missing.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(missing.err()).contains("--command-config/--command-property").contains(dir.resolve("nope").toString());

        java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("empty.db")).close();
        String[] oracle = {"oracle", "--bootstrap-server", sasl, "--topic", ns.topic(), "--db", dir.resolve("empty.db").toString(), "--target-query",
            "SELECT 'x' AS message_id, 1 AS amount WHERE 0 = 1", "--source-id", "key", "--source-amount", "json:/amountCents", "--timeout", "PT5S"};
        Console read = Console.run(concat(oracle, "--command-property", "security.protocol=SASL_PLAINTEXT", "--command-property", "sasl.mechanism=PLAIN",
                "--command-property", kafka.saslClient(LocalKafkaTest.SASL_USER).asMap().entrySet().stream()
                        .filter(e -> e.getKey().equals("sasl.jaas.config")).map(e -> e.getKey() + "=" + e.getValue()).findFirst().orElseThrow()));
        assertThat(read.out() + read.err()).as("the oracle read all 6 records through the SASL listener (none a payment)")
                .containsPattern("malformed +6").doesNotContain(LocalKafkaTest.SASL_PASSWORD);
        assertThat(Console.run(oracle).rc()).as("without the login the read cannot start").isEqualTo(ReplayLab.UNREACHABLE);
    }

    @Test
    void aRunOnASaslBrokerPassesWithItsSubjectsLoggedInThroughTheProxyRecordsNoSecretAndItsLeftoversNeedTheLoginAgain(LocalKafka kafka)
            throws Exception {
        String sasl = kafka.saslBootstrapServers().orElseThrow();
        Path config = commandConfig(kafka);
        List<String> before = topics(kafka);
        // a process of its own: its journal's owner is gone when the cleanup below asks
        List<String> cmd = io.replaylab.evidence.process.ChildProcess.java(io.replaylab.evidence.process.ChildProcess.shortLived("-Xmx256m",
                "-Xshare:auto"), ReplayLab.class.getName(), "run", "--bootstrap-server", sasl, "--command-config", config.toString(),
                "--experiment", "rebalance", "--records", "30", "--workdir", dir.resolve("runs").toString(), "--keep", "--json");
        Process p = new ProcessBuilder(cmd).redirectOutput(dir.resolve("run.out").toFile()).redirectError(dir.resolve("run.err").toFile()).start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        Console run = new Console(p.exitValue(), Files.readString(dir.resolve("run.out")), Files.readString(dir.resolve("run.err")));
        assertThat(run.rc()).as(run.both()).isZero();
        JsonNode j = Json.mapper().readTree(run.out());
        assertThat(j.get("outcome").asText()).isEqualTo("PASS");
        Path runDir = Path.of(j.get("evidence").asText()).getParent();
        String evidence = Files.readString(Path.of(j.get("evidence").asText()));
        assertThat(run.out() + run.err()).as("the console").doesNotContain(LocalKafkaTest.SASL_PASSWORD);
        assertThat(evidence).as("the witness saw the subjects' commits through the proxy they logged in through")
                .contains("kafka client properties").contains("sasl.jaas.config=" + ClientProperties.HIDDEN).contains("\"type\" : \"commit-witnessed\"");
        try (Stream<Path> files = Files.walk(runDir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).as(f.toString()).doesNotContain(LocalKafkaTest.SASL_PASSWORD);
            }
        }
        List<String> kept = topics(kafka).stream().filter(t -> !before.contains(t)).toList();
        assertThat(kept).as("kept, as asked").isNotEmpty();

        java.util.regex.Matcher file = java.util.regex.Pattern.compile("/[^\"\\s]*replay-lab-client-[^/\"]+/client\\.properties")
                .matcher(Files.readString(runDir.resolve("journal.jsonl")));
        assertThat(file.find()).as("the journal names the file of the subjects' {command-config}").isTrue();
        assertThat(Path.of(file.group())).as("deleted with the run's cleanup").doesNotExist();

        String runId = runDir.getFileName().toString();
        Console without = Console.run("cleanup", "--workdir", dir.resolve("runs").toString(), "--run", runId);
        assertThat(without.out() + without.err()).as("the journal keeps no login: the cleanup cannot reach the broker without it")
                .contains("did not answer").doesNotContain(LocalKafkaTest.SASL_PASSWORD);
        assertThat(without.rc()).isEqualTo(ReplayLab.UNREACHABLE);
        Console with = Console.run("cleanup", "--workdir", dir.resolve("runs").toString(), "--run", runId, "--command-config", config.toString());
        assertThat(with.rc()).as(with.both()).isZero();
        assertThat(topics(kafka)).as("the run's topics went with its cleanup").doesNotContainAnyElementsOf(kept);
    }

    @Test
    void aLibrdkafkaConsumerLogsInThroughTheProxyWithItsOwnSaslSettingsAndPasses(LocalKafka kafka) throws Exception {
        String python = io.replaylab.kafka.testing.PythonConsumer.python(); // skips, saying how to install it, where there is none
        Path consumer = io.replaylab.kafka.testing.PythonConsumer.copy(dir, "handbook_consumer.py");
        Console r = Console.run("run", "--bootstrap-server", kafka.saslBootstrapServers().orElseThrow(), "--command-config", commandConfig(kafka).toString(),
                "--experiment", "replay,rebalance", "--records", "30", "--workdir", dir.resolve("runs").toString(), "--json",
                "--subject-cmd", "'" + python + "' '" + consumer + "'",
                "--subject-env", "KAFKA_BOOTSTRAP={bootstrap}", "--subject-env", "KAFKA_TOPIC={topic}", "--subject-env", "KAFKA_GROUP={group}",
                "--subject-env", "CLIENT_ID={instance}", "--subject-env", "DB_PATH={db}", "--subject-env", "LEDGER_NS={namespace}",
                "--subject-env", "KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT", "--subject-env", "KAFKA_SASL_USERNAME=" + LocalKafkaTest.SASL_USER,
                "--subject-env", "KAFKA_SASL_PASSWORD=" + LocalKafkaTest.SASL_PASSWORD,
                "--record-key", "{id}", "--record-value", "{\"paymentId\":\"{id}\",\"amountCents\":{amount},\"currency\":\"EUR\"}",
                "--source-id", "key", "--source-amount", "json:/amountCents",
                "--target-query", "SELECT payment_id AS message_id, amount_cents AS amount FROM payment_ledger WHERE ns = {namespace}");

        assertThat(r.rc()).as(r.both()).isZero();
        JsonNode j = Json.mapper().readTree(r.out());
        assertThat(j.get("outcome").asText()).isEqualTo("PASS");
        Path runDir = Path.of(j.get("evidence").asText()).getParent();
        assertThat(Files.readString(runDir.resolve("evidence.json"))).as("held on the wire, its SASL exchange passed through")
                .contains("\"type\" : \"commit-witnessed\"").contains("\"type\" : \"commit-rejected\"");
        try (Stream<Path> files = Files.walk(runDir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)).as(f.toString()).doesNotContain(LocalKafkaTest.SASL_PASSWORD);
            }
        }
    }

    @Test
    void aLoginTheBrokerRefusesMakesEveryExperimentNotRunWithTheBrokersReasonAndTheEvidenceSaved(LocalKafka kafka) throws Exception {
        Path wrong = dir.resolve("wrong.properties");
        ClientProperties.none().with("security.protocol", "SASL_PLAINTEXT").with("sasl.mechanism", "PLAIN").with("sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + LocalKafkaTest.SASL_USER + "\" password=\"not-it\";")
                .writeTo(wrong);
        Console r = Console.run("run", "--bootstrap-server", kafka.saslBootstrapServers().orElseThrow(), "--command-config", wrong.toString(), "--experiment",
                "replay", "--workdir", dir.resolve("runs").toString(), "--json");

        assertThat(r.rc()).as(r.both()).isEqualTo(ReplayLab.NOT_RUN);
        JsonNode j = Json.mapper().readTree(r.out());
        assertThat(j.get("experiments").get(0).get("reason").asText()).contains("refused the lab's client").containsIgnoringCase("authentication");
        assertThat(Path.of(j.get("evidence").asText())).exists();
    }

    @Test
    void tlsWhichTheWireProxyCannotReadAndAKeyThatIsNotHowToConnectAreRefusedNamingTheFlags() {
        Console tls = Console.run("run", "--bootstrap-server", "127.0.0.1:9", "--command-property", "security.protocol=SASL_SSL", "--workdir", dir.toString());
        assertThat(tls.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(tls.err()).contains("--command-config/--command-property").contains("cannot read").contains("--no-witness")
                .contains("--barrier debugger");
        Console behaviour = Console.run("run", "--bootstrap-server", "127.0.0.1:9", "--command-property", "group.instance.id=A", "--workdir", dir.toString());
        assertThat(behaviour.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(behaviour.err()).contains("'group.instance.id', which is not how to connect");
    }

    @Test
    void clientPropertiesForTheRunsOwnBrokerAreRefusedNamingTheFlag() {
        Console r = Console.run("run", "--command-property", "security.protocol=SASL_PLAINTEXT", "--workdir", dir.toString());
        assertThat(r.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(r.err()).contains("--command-config/--command-property").contains("the broker the run starts itself takes none");
        Console bad = Console.run("run", "--command-property", "no-equals-sign", "--bootstrap-server", "127.0.0.1:9", "--workdir", dir.toString());
        assertThat(bad.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(bad.err()).contains("--command-config/--command-property take key=value").doesNotContain("no-equals-sign");
    }

    private static List<String> topics(LocalKafka kafka) throws Exception {
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            return List.copyOf(admin.listTopics().names().get(10, TimeUnit.SECONDS));
        }
    }

    private static String[] concat(String[] a, String... b) {
        return Stream.concat(Stream.of(a), Stream.of(b)).toArray(String[]::new);
    }
}
