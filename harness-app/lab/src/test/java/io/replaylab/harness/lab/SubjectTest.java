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
        assertThatThrownBy(() -> Subject.command("python3 consumer.py --topic {topic}")).hasMessageContaining("must use at least {group}");
        assertThatThrownBy(() -> Subject.command("python3 'consumer.py --group {group}")).hasMessageContaining("unclosed quote");
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
