package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import io.replaylab.evidence.process.ChildProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerCommandTest {

    @Test
    void brokerPrintsAUsableBootstrapAddressAndStopsCleanlyOnSigterm(@TempDir Path dir) throws Exception {
        // stdout stays a pipe: the test reads the first line as a user's script would
        Process cli = new ProcessBuilder(ChildProcess.java(ReplayLab.JVM_OPTIONS, ReplayLab.class.getName(), "broker", "--data-dir", dir.resolve("kafka").toString()))
                .redirectError(dir.resolve("err.txt").toFile())
                .start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(cli.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).matches("bootstrap\\.servers=127\\.0\\.0\\.1:\\d+");
            String bootstrap = line.substring("bootstrap.servers=".length());

            try (Admin admin = Clients.admin(bootstrap)) {
                assertThat(admin.describeCluster().nodes().get()).hasSize(1);
            }
            List<ProcessHandle> brokers = cli.descendants().toList();
            assertThat(brokers).isNotEmpty();

            cli.destroy(); // SIGTERM

            assertThat(cli.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(brokers).noneMatch(ProcessHandle::isAlive);
            // cleanly: Kafka marks its log dir only at the end of an orderly shutdown, never after a SIGKILL
            assertThat(dir.resolve("kafka").resolve("data").resolve(".kafka_cleanshutdown")).as("clean shutdown marker").exists();
        } finally {
            cli.descendants().forEach(ProcessHandle::destroyForcibly);
            cli.destroyForcibly();
        }
    }

    @Test
    void versionNamesReplayLabKafkaClientsAndTheBroker() {
        Console c = Console.run("--version");
        assertThat(c.rc()).isZero();
        assertThat(c.out()).contains("replay-lab ").contains("kafka-clients 4.4.0").contains("kafka broker (bundled, kafka_2.13) 4.4.0");
    }

    @Test
    void unknownOptionIsABadArgumentExit2() {
        Console c = Console.run("broker", "--nope");
        assertThat(c.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(c.err()).contains("--nope");
    }
}
