package io.replaylab.harness.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Settings are checked when set, and the barrier is chosen from the subject unless asked for. */
class LabSettingsTest {
    @Test
    void theBarrierIsTheDebuggerForJavaSubjectsAndTheWireForAnyOtherProgram() {
        assertThat(LabSettings.custom().build().barrierChoice().kind()).isEqualTo(BarrierKind.DEBUGGER);
        assertThat(LabSettings.custom().subject("/usr/lib/jvm/x/bin/java -jar c.jar {group}").build().barrierChoice())
                .isEqualTo(new BarrierKind.Choice(BarrierKind.DEBUGGER, "the subject's program is java"));
        assertThat(LabSettings.custom().subject("'/usr/bin/python3' c.py {group}").build().barrierChoice().display())
                .isEqualTo("wire (the subject's program 'python3' is not java: a debugger cannot hold it)");
        assertThat(LabSettings.custom().subject("python3 c.py {group}").barrier("debugger").build().barrierChoice())
                .isEqualTo(new BarrierKind.Choice(BarrierKind.DEBUGGER, "asked for with --barrier"));
        assertThatThrownBy(() -> LabSettings.custom().barrier("jdwp")).hasMessage("--barrier must be auto, debugger or wire, was jdwp");
    }

    @Test
    void theScheduleCellsAreAllNineByDefaultAndABadCellOrDbPointIsNamedWithWhatIsValid() {
        assertThat(LabSettings.custom().build().scheduleCells()).hasSize(9).first().hasToString("before-db-commit:hold");
        assertThat(LabSettings.custom().scheduleCells(java.util.List.of("after-offset-commit:crash", " after-offset-commit:crash")).build().scheduleCells())
                .extracting(Object::toString).containsExactly("after-offset-commit:crash");
        assertThat(LabSettings.custom().build().dbCommitPoint()).hasToString("java.sql.Connection#commit");
        assertThat(LabSettings.custom().dbCommitPoint("org.postgresql.jdbc.PgConnection#commit").build().dbCommitPoint().className())
                .isEqualTo("org.postgresql.jdbc.PgConnection");

        assertThatThrownBy(() -> LabSettings.custom().scheduleCells(java.util.List.of("after-commit:crash")))
                .hasMessage("unknown point 'after-commit' in 'after-commit:crash': use before-db-commit, before-offset-commit, after-offset-commit");
        assertThatThrownBy(() -> LabSettings.custom().scheduleCells(java.util.List.of("before-db-commit:pause")))
                .hasMessage("unknown fault 'pause' in 'before-db-commit:pause': use hold, freeze, crash");
        assertThatThrownBy(() -> LabSettings.custom().scheduleCells(java.util.List.of("crash")))
                .hasMessage("a schedule cell is point:fault, e.g. after-offset-commit:crash; was 'crash'");
        assertThatThrownBy(() -> LabSettings.custom().scheduleCells(java.util.List.of())).hasMessageContaining("--cells needs at least one");
        assertThatThrownBy(() -> LabSettings.custom().dbCommitPoint("commit")).hasMessageContaining("Class#method").hasMessageContaining("'commit'");
    }

    @Test
    void theReferenceSubjectsTimeoutsCanBeSetAndAreChecked() {
        LabSettings s = LabSettings.custom().maxPollIntervalMs(8000).sessionTimeoutMs(9000).build();

        assertThat(s.subjectTemplate().template()).contains("--max-poll-interval-ms 8000").contains("--session-timeout-ms 9000");
        assertThatThrownBy(() -> LabSettings.custom().maxPollIntervalMs(10)).hasMessageContaining("max poll interval must be 1000..300000 ms, was 10");
        assertThatThrownBy(() -> LabSettings.custom().sessionTimeoutMs(0)).hasMessageContaining("session timeout");
    }

    @Test
    void aTargetUrlIsCheckedBeforeAnythingStartsAndItsPasswordIsNeverShown() {
        LabSettings s = LabSettings.custom().target("jdbc:postgresql://localhost:5432/lab?user=lab&password=s3cret", null, null).build();
        assertThat(s.toString()).contains("jdbc:postgresql://localhost:5432/lab").doesNotContain("s3cret");
        assertThat(LabSettings.custom().target("jdbc:postgresql://127.0.0.1/lab", "lab", "s3cret").build().toString())
                .contains("as lab (password given)").doesNotContain("s3cret");

        assertThatThrownBy(() -> LabSettings.custom().target("jdbc:postgresql://db.example.com:5432/lab", null, null).build())
                .hasMessageContaining("--target-jdbc-url host(s) [db.example.com] are not loopback; pass --allow-remote");
        assertThat(LabSettings.custom().allowRemote(true).target("jdbc:postgresql://db.example.com:5432/lab", null, null).build().targetJdbcUrl())
                .isEqualTo("jdbc:postgresql://db.example.com:5432/lab");
        assertThatThrownBy(() -> LabSettings.custom().target("jdbc:mysql://localhost/lab?password=s3cret", null, null).build())
                .hasMessageContaining("--target-jdbc-url must be a jdbc:postgresql: URL").satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
        assertThatThrownBy(() -> LabSettings.custom().target("jdbc:postgresql://localhost/lab?currentSchema=mine", null, null).build())
                .hasMessageContaining("must not set currentSchema");
        assertThatThrownBy(() -> LabSettings.custom().target("localhost:5432", null, null).build())
                .hasMessageContaining("a target is a JDBC URL");
    }
}
