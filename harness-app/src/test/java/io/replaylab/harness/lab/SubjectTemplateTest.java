package io.replaylab.harness.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import io.replaylab.evidence.process.ChildProcess;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.api.Test;

class SubjectTemplateTest {
    @Test
    void aTemplateThatCannotStartAnInstanceIsRefusedBeforeAnythingStarts() {
        assertThatThrownBy(() -> SubjectTemplate.custom(" ")).hasMessage("--subject-cmd must not be empty");
        assertThatThrownBy(() -> SubjectTemplate.custom("python3 consumer.py --topic {topic}")).hasMessageContaining("must use at least {group}");
        assertThatThrownBy(() -> SubjectTemplate.custom("python3 'consumer.py --group {group}")).hasMessageStartingWith("--subject-cmd: ")
                .hasMessageContaining("unclosed quote");
    }

    @Test
    void everyPlaceholderIsFilledAndAQuotedPathWithSpacesStaysOneArgument() {
        SubjectTemplate t = SubjectTemplate.custom("sh -c 'exec \"/opt/my venv/bin/python\" c.py' --db {db} --group {group} --id {instance}");
        assertThat(t.command(Map.of("db", "/tmp/run dir/target.db", "group", "g1", "instance", "A")))
                .containsExactly("sh", "-c", "exec \"/opt/my venv/bin/python\" c.py", "--db", "/tmp/run dir/target.db", "--group", "g1", "--id", "A");
    }

    @Test
    void theReferenceSubjectRunsOnThisJvmWithTheLabsTimeouts() {
        List<String> cmd = SubjectTemplate.reference(GroupProtocol.CLASSIC, 4000, 3000)
                .command(Map.of("bootstrap", "127.0.0.1:1", "topic", "t", "group", "g", "db", "d", "namespace", "n", "instance", "A", "logdir", "/l"));
        assertThat(cmd.get(0)).isEqualTo(ChildProcess.javaExecutable());
        assertThat(cmd).containsSequence("-cp", System.getProperty("java.class.path")).containsSequence("--max-poll-interval-ms", "4000")
                .containsSequence("--session-timeout-ms", "3000").containsSequence("--assignment-log", "/l/A.assignments.jsonl");
        assertThat(SubjectTemplate.reference(GroupProtocol.CONSUMER, 4000, 3000).template()).doesNotContain("--session-timeout-ms");
    }
}
