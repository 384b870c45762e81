package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import io.replaylab.evidence.BadInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientPropertiesTest {
    @TempDir
    Path dir;

    @Test
    void onlyValuesKafkaDefinesAsNoPasswordAreShownEveryOtherIsHidden() {
        ClientProperties p = ClientProperties.of(Map.of("security.protocol", "SASL_SSL", "sasl.jaas.config", "x password=\"s3cret\";",
                "ssl.truststore.password", "tpw", "ssl.keystore.location", "/k.jks", "sasl.vendor.user.info", "KEY:SECRET", "sasl.mechanism", "PLAIN"));

        assertThat(p.redacted()).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("ssl.keystore.location", "/k.jks").containsEntry("sasl.jaas.config", ClientProperties.HIDDEN)
                .containsEntry("ssl.truststore.password", ClientProperties.HIDDEN).containsEntry("sasl.vendor.user.info", ClientProperties.HIDDEN);
        assertThat(p.toString()).doesNotContain("s3cret").doesNotContain("=tpw").doesNotContain("KEY:SECRET").contains("=SASL_SSL");
        assertThat(p.asMap()).containsEntry("sasl.jaas.config", "x password=\"s3cret\";");
    }

    @Test
    void onlyHowToConnectIsTakenAKeyThatChangesWhatAClientDoesIsRefusedNamingIt() {
        ClientProperties p = ClientProperties.none().with("security.protocol", "SASL_PLAINTEXT").with("client.dns.lookup", "use_all_dns_ips");
        assertThat(p.plus(Map.of("bootstrap.servers", "127.0.0.1:9092"))).containsEntry("bootstrap.servers", "127.0.0.1:9092")
                .containsEntry("security.protocol", "SASL_PLAINTEXT");

        for (String key : java.util.List.of("group.instance.id", "transactional.id", "isolation.level", "bootstrap.servers", "enable.auto.commit")) {
            assertThatThrownBy(() -> p.with(key, "x")).as(key).isInstanceOf(BadInputException.class).hasMessageContaining("'" + key + "'")
                    .hasMessageContaining("not how to connect");
        }
    }

    @Test
    void aFileIsReadAsKafkasToolsReadItAndWrittenForItsOwnerOnly() throws Exception {
        Path f = dir.resolve("client.properties");
        Files.writeString(f, "# a comment\nsecurity.protocol = SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=a \\\\ b \"c\";\n");
        ClientProperties p = ClientProperties.load(f).withAssignment("client.dns.lookup=use_all_dns_ips");
        assertThat(p.asMap()).containsOnlyKeys("security.protocol", "sasl.mechanism", "sasl.jaas.config", "client.dns.lookup")
                .containsEntry("security.protocol", "SASL_PLAINTEXT").containsEntry("sasl.jaas.config", "a \\ b \"c\";");

        Path out = dir.resolve("copy.properties");
        p.writeTo(out);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out))).isEqualTo("rw-------");
        assertThat(ClientProperties.load(out)).isEqualTo(p);
    }

    @Test
    void badInputNamesTheFileOrTheAssignmentWithoutEchoingAValue() {
        assertThatThrownBy(() -> ClientProperties.load(dir.resolve("nope.properties"))).isInstanceOf(BadInputException.class)
                .hasMessageContaining("nope.properties").hasMessageContaining("client properties file");
        assertThatThrownBy(() -> ClientProperties.none().withAssignment("hunter2")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("take key=value").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> ClientProperties.none().withAssignment("=v")).isInstanceOf(BadInputException.class);
        assertThatThrownBy(() -> ClientProperties.none().withAssignment("sasl.password hunter2=x")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("whitespace").hasMessageNotContaining("hunter2");
    }
}
