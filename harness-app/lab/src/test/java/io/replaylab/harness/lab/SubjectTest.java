package io.replaylab.harness.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.experiment.ForeignSubjectMain;
import org.junit.jupiter.api.Test;

class SubjectTest {
    @Test
    void aCommandThatCannotStartAnInstanceIsRefusedBeforeAnythingStarts() {
        assertThatThrownBy(() -> Subject.command(" ")).hasMessage("the subject command must not be empty");
        assertThatThrownBy(() -> LabSettings.custom().subject(Subject.command("python3 consumer.py --topic {topic}")).build())
                .hasMessageContaining("must get {group} through its command or its environment");
        assertThatThrownBy(() -> Subject.command("python3 c.py").env("1BAD", "{group}")).hasMessageContaining("'1BAD' is not NAME");
        assertThatThrownBy(() -> Subject.command("python3 'consumer.py --group {group}")).hasMessageContaining("unclosed quote");
    }

    @Test
    void aConsumerConfiguredOnlyByItsEnvironmentGetsTheGroupThereAndTheEvidenceMasksSecrets() {
        Subject s = Subject.command("python3 consumer.py").env("KAFKA_GROUP", "{group}").env("KAFKA_BOOTSTRAP", "{bootstrap}")
                .env("DB_PASSWORD", "{target-password}").env("API_TOKEN", "literal-secret").env("PGPASS", "pw1").env("API_KEY", "k1")
                .env("DATABASE_URL", "postgres://lab:pw2@localhost/lab").env("JDBC", "jdbc:postgresql://h/lab?user=u&password=pw3");
        assertThat(s.uses("{group}")).isTrue();
        assertThat(LabSettings.custom().subject(s).build().subject()).containsSame(s);
        assertThat(s.env(Map.of("group", "g1", "bootstrap", "127.0.0.1:9", "target-password", "pw")))
                .containsEntry("KAFKA_GROUP", "g1").containsEntry("KAFKA_BOOTSTRAP", "127.0.0.1:9").containsEntry("DB_PASSWORD", "pw")
                .containsEntry("API_TOKEN", "literal-secret");
        assertThat(s.envForEvidence()).containsEntry("KAFKA_GROUP", "{group}").containsEntry("DB_PASSWORD", "***").containsEntry("API_TOKEN", "***");
        assertThat(s.description()).contains("KAFKA_GROUP={group}").doesNotContain("literal-secret").doesNotContain("pw1").doesNotContain("k1")
                .doesNotContain("pw2").doesNotContain("pw3").contains("postgres://lab:***@localhost/lab").contains("password=***");
    }

    @Test
    void aRelativeProgramIsResolvedAgainstTheWorkingDirectoryAndAMissingOneIsNamed(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path bin = java.nio.file.Files.createDirectories(dir.resolve(".venv/bin"));
        java.nio.file.Path python = java.nio.file.Files.createSymbolicLink(bin.resolve("python"), java.nio.file.Path.of("/bin/sh"));
        Subject venv = Subject.command(".venv/bin/python consumer.py --group {group}").directory(dir);
        venv.checkProgram();
        assertThat(venv.command(Map.of("group", "g")).get(0)).as("absolute, the link itself kept (a venv finds itself by its path)")
                .isEqualTo(python.toString());
        assertThat(venv.directory()).isEqualTo(dir.toAbsolutePath());
        assertThatThrownBy(() -> Subject.command("./missing.sh {group}").directory(dir).checkProgram())
                .hasMessageContaining("'./missing.sh' is not an executable file").hasMessageContaining(dir.resolve("./missing.sh").toString());
        assertThatThrownBy(() -> Subject.command("sh {group}").directory(dir.resolve("nope")).checkProgram()).hasMessageContaining("is no directory");
    }

    @Test
    void everyPlaceholderIsFilledAndAQuotedPathWithSpacesStaysOneArgument() {
        Subject t = Subject.command("sh -c 'exec \"/opt/my venv/bin/python\" c.py' --db {db} --group {group} --id {instance}");
        assertThat(t.command(Map.of("db", "/tmp/run dir/target.db", "group", "g1", "instance", "A")))
                .containsExactly("sh", "-c", "exec \"/opt/my venv/bin/python\" c.py", "--db", "/tmp/run dir/target.db", "--group", "g1", "--id", "A");
        assertThat(t.jvm()).isFalse();
        assertThat(Subject.command("/usr/lib/jvm/x/bin/java -jar c.jar {group}").jvm()).isTrue();
    }

    @Test
    void aJavaMainRunsOnThisJvmAndClassPathWithTheLabsSettingsAsPlaceholders() {
        Subject s = Subject.javaMain(ForeignSubjectMain.class, "{bootstrap}", "{group}", "--max-poll {max.poll.interval.ms}");
        List<String> cmd = s.command(Map.of("bootstrap", "127.0.0.1:1", "group", "g", "max.poll.interval.ms", "4000"));
        assertThat(cmd.get(0)).isEqualTo(ChildProcess.javaExecutable());
        assertThat(cmd).containsSequence("-cp", System.getProperty("java.class.path"), ForeignSubjectMain.class.getName(), "127.0.0.1:1", "g",
                "--max-poll 4000");
        assertThat(s.jvm()).isTrue();
        assertThat(s.description()).isEqualTo("ForeignSubjectMain");
    }

    @Test
    void aRunRefusesASubjectWhoseProgramIsNotOnThisMachineBeforeAnythingStarts(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        assertThatThrownBy(() -> Lab.run(LabSettings.custom().workDir(dir).subject(Subject.command("/no/such/consumer --group {group}")).build(), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the subject command's program '/no/such/consumer' is not an executable file");
        assertThatThrownBy(() -> Lab.run(LabSettings.custom().workDir(dir).subject(Subject.command("pyhton3 c.py --group {group}")).build(), null))
                .hasMessageStartingWith("the subject command's program 'pyhton3' is on none of the PATH's directories (");
        assertThat(dir.toFile().list()).as("nothing started, nothing written").isEmpty();
    }
}
