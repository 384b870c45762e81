package io.replaylab.harness.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.MethodPoint;
import io.replaylab.evidence.process.Platform;
import io.replaylab.harness.experiment.Experiments;
import io.replaylab.harness.experiment.ScheduleCell;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.api.Test;

/** Settings are checked when set, in the builder's words, and the barrier is chosen from the subject unless asked for. */
class LabSettingsTest {
    @Test
    void theBarrierIsTheDebuggerForJavaSubjectsAndTheWireForAnyOtherProgram() {
        assertThat(LabSettings.custom().build().barrier().choice().kind()).isEqualTo(BarrierKind.DEBUGGER);
        assertThat(LabSettings.custom().subject(Subject.command("/usr/lib/jvm/x/bin/java -jar c.jar {group}")).build().barrier().choice())
                .isEqualTo(BarrierKind.Choice.of(BarrierKind.DEBUGGER, BarrierKind.Reason.SUBJECT_IS_A_JVM));
        assertThat(LabSettings.custom().subject(Subject.command("'/usr/bin/python3' c.py {group}")).build().barrier().choice().display())
                .isEqualTo("wire (the subject's program 'python3' is not java: the JVM debugger cannot hold it)");
        assertThatThrownBy(() -> LabSettings.custom().subject(Subject.command("python3 c.py {group} {pg-uri}").env("H", "{pg-host}")).build())
                .hasMessageContaining("uses {pg-host}, {pg-uri}, which only a PostgreSQL target fills (the target is a SQLite file per experiment: {db})");
        assertThat(LabSettings.custom().subject(Subject.command("python3 c.py {group} {pg-uri}")).target("jdbc:postgresql://localhost/lab", "lab", null)
                .build().target().isSqlite()).isFalse();
        assertThat(LabSettings.custom().subject(Subject.command("python3 c.py {group}")).barrier(BarrierKind.DEBUGGER).build().barrier().choice())
                .isEqualTo(BarrierKind.Choice.of(BarrierKind.DEBUGGER, BarrierKind.Reason.ASKED_FOR));
        assertThatThrownBy(() -> BarrierKind.parse("jdwp")).hasMessage("a barrier is debugger or wire, was jdwp");
    }

    @Test
    void theExperimentsAreValuesTheReferenceThreeByDefaultAndNoNameTwice() {
        assertThat(LabSettings.custom().build().experiments()).extracting(Experiment::name).containsExactly("replay", "rebalance", "rebuild");
        Experiment mine = new Experiment("mine", List.of(), (ctx, ns, e) -> null);
        assertThat(LabSettings.custom().experiments(Experiments.rebalance(), mine).build().experiments()).extracting(Experiment::name)
                .containsExactly("rebalance", "mine");
        Experiment clash = new Experiment("replay", List.of(), (ctx, ns, e) -> null);
        assertThatThrownBy(() -> LabSettings.custom().experiments(Experiments.replay(), clash).build()).hasMessageContaining("'replay' is already part of the run");
        assertThatThrownBy(() -> LabSettings.custom().experiments(List.of()).build()).hasMessageContaining("LabSettings.experiments needs at least one");
        assertThatThrownBy(() -> new Experiment("Crash Restart", List.of(), (ctx, ns, e) -> null)).hasMessageContaining("lower case");
    }

    @Test
    void aBadCellOrDbPointIsNamedWithWhatIsValid() {
        assertThat(LabSettings.custom().build().barrier().dbCommitPoint()).hasToString("java.sql.Connection#commit");
        assertThat(LabSettings.custom().dbCommitPoint(MethodPoint.parse("org.postgresql.jdbc.PgConnection#commit")).build().barrier().dbCommitPoint().className())
                .isEqualTo("org.postgresql.jdbc.PgConnection");
        assertThat(ScheduleCell.parse(" after-offset-commit:crash")).hasToString("after-offset-commit:crash");
        assertThatThrownBy(() -> ScheduleCell.parse("after-commit:crash"))
                .hasMessage("unknown point 'after-commit' in 'after-commit:crash': use before-db-commit, after-db-commit, before-offset-commit, after-offset-commit");
        assertThatThrownBy(() -> ScheduleCell.parse("before-db-commit:pause"))
                .hasMessage("unknown fault 'pause' in 'before-db-commit:pause': use hold, freeze, crash, hold-then-crash, hold-then-late-release");
        assertThatThrownBy(() -> ScheduleCell.parse("crash")).hasMessage("a schedule cell is point:fault, e.g. after-offset-commit:crash; was 'crash'");
        assertThatThrownBy(() -> Experiments.schedules(List.of())).hasMessageContaining("the schedules experiment needs at least one cell");
        assertThatThrownBy(() -> MethodPoint.parse("commit")).hasMessageContaining("Class#method").hasMessageContaining("'commit'");
    }

    @Test
    void theConsumerTimeoutsAreCheckedInTheBuildersWords() {
        LabSettings s = LabSettings.custom().maxPollIntervalMs(8000).sessionTimeoutMs(9000).build();
        assertThat(s.timeouts().maxPollIntervalMs()).isEqualTo(8000);
        assertThat(s.timeouts().sessionTimeoutMs()).isEqualTo(9000);
        assertThatThrownBy(() -> LabSettings.custom().maxPollIntervalMs(10).build()).hasMessage("LabSettings.maxPollIntervalMs must be 1000..300000 ms, was 10");
        assertThatThrownBy(() -> LabSettings.custom().sessionTimeoutMs(0).build()).hasMessageContaining("LabSettings.sessionTimeoutMs");
        assertThatThrownBy(() -> LabSettings.custom().records(0).build()).hasMessage("LabSettings.records must be 1..10000000, was 0");
        assertThatThrownBy(() -> LabSettings.custom().drainTimeout(java.time.Duration.ZERO).build()).hasMessageContaining("LabSettings.drainTimeout must be a positive");
    }

    @Test
    void theBuilderCollectsEveryProblemItselfAndALaterValidValueClearsItsOwn() {
        assertThatThrownBy(() -> LabSettings.custom().records(0).parallel(0).partitions(1).drainTimeout(java.time.Duration.ZERO).build())
                .isInstanceOfSatisfying(InvalidSettingsException.class, e -> assertThat(e.problems()).extracting(InvalidSettingsException.SettingProblem::setting)
                        .containsExactly("records", "parallel", "partitions", "drainTimeout"));
        assertThat(LabSettings.custom().records(0).records(5).build().records()).as("the later valid value clears the refusal").isEqualTo(5);
        assertThat(LabSettings.custom().records(7).records(0).records(8).build().records()).isEqualTo(8);
    }

    @Test
    void aTargetUrlIsCheckedBeforeAnythingStartsAndItsPasswordIsNeverShown() {
        LabSettings s = LabSettings.custom().target("jdbc:postgresql://localhost:5432/lab?user=lab&password=s3cret", null, null).build();
        assertThat(s.toString()).contains("jdbc:postgresql://localhost:5432/lab").doesNotContain("s3cret");
        assertThat(LabSettings.custom().target("jdbc:postgresql://127.0.0.1/lab", "lab", "s3cret").build().toString())
                .contains("as lab (password given)").doesNotContain("s3cret");

        assertThatThrownBy(() -> LabSettings.custom().target("jdbc:postgresql://db.example.com:5432/lab", null, null).build())
                .hasMessageContaining("LabSettings.target host(s) [db.example.com] are not loopback; allow remote ones (LabSettings.allowRemote)")
                .isInstanceOfSatisfying(InvalidSettingsException.class, e -> assertThat(e.problems()).extracting(InvalidSettingsException.SettingProblem::setting)
                        .containsExactly("target"));
        assertThat(LabSettings.custom().allowRemote(true).target("jdbc:postgresql://db.example.com:5432/lab", null, null).build().target().jdbcUrl())
                .contains("jdbc:postgresql://db.example.com:5432/lab");
        assertThatThrownBy(() -> LabSettings.custom().target("jdbc:mysql://localhost/lab?password=s3cret", null, null).build())
                .hasMessageContaining("LabSettings.target must be a jdbc:postgresql: URL").satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
        assertThatThrownBy(() -> LabSettings.custom().target("jdbc:postgresql://localhost/lab?currentSchema=mine", null, null).build())
                .hasMessageContaining("must not set currentSchema");
        assertThatThrownBy(() -> LabSettings.custom().target("localhost:5432", null, null).build())
                .hasMessageContaining("a target is a JDBC URL");
    }

    @Test
    void eachPartHasTheLabsDefaultsAndAnAbsentThingIsEmptyNeverNull() throws Exception {
        LabSettings s = LabSettings.custom().build();
        assertThat(s.broker()).isEqualTo(new BrokerSettings(Optional.empty(), io.replaylab.kafka.ClientProperties.none(), 3, GroupProtocol.CLASSIC, true));
        assertThat(s.target()).isEqualTo(new TargetSettings(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()));
        assertThat(s.target().isSqlite()).isTrue();
        assertThat(s.target()).hasToString("SQLite in the run directory");
        assertThat(s.timeouts()).isEqualTo(new Timeouts(Optional.empty(), Duration.ofSeconds(60), Duration.ofMinutes(3), Duration.ofSeconds(20), 5000, 6000,
                Timeouts.DEFAULT_CONTENTION_WINDOW, Timeouts.DEFAULT_COMMIT_INTERVAL));
        assertThat(s.barrier()).isEqualTo(new BarrierSettings(BarrierKind.Choice.of(BarrierKind.DEBUGGER, BarrierKind.Reason.NO_SUBJECT), HoldMode.THREAD,
                MethodPoint.jdbcCommit()));
        assertThat(s.subject()).isEmpty();
        assertThat(s.transformSubject()).isEmpty();
        assertThat(s.source().isReference()).isTrue();
        assertThat(List.of(s.records(), s.parallel())).containsExactly(200, LabSettings.DEFAULT_PARALLEL);
        assertThat(s.workDir()).isEqualTo(Path.of("lab-runs"));
        assertThat(s.allowRemote()).isFalse();
        assertThat(s.keep()).isFalse();
        assertThat(s.platform()).isEqualTo(Platform.host());

        for (Object value : List.of(s, s.broker(), s.target(), s.timeouts(), s.barrier())) {
            for (Method m : value.getClass().getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0) {
                    assertThat(m.invoke(value)).as(value.getClass().getSimpleName() + "." + m.getName() + "()").isNotNull();
                }
            }
        }
    }

    @Test
    void theSettersFillTheirParts() {
        Subject python = Subject.command("python3 c.py {group}");
        LabSettings s = LabSettings.custom().bootstrap("localhost:9092").partitions(4).groupProtocol(GroupProtocol.CONSUMER).witness(false)
                .handoffTimeout(Duration.ofSeconds(1)).barrierTimeout(Duration.ofSeconds(2)).drainTimeout(Duration.ofSeconds(3))
                .stopGrace(Duration.ofSeconds(4)).maxPollIntervalMs(7000).sessionTimeoutMs(8000).contentionWindow(Duration.ofSeconds(5)).commitInterval(Duration.ofSeconds(6))
                .subject(python).holdMode(HoldMode.PROCESS).target("jdbc:postgresql://localhost/lab", "lab", "s3cret").build();
        assertThat(s.broker()).isEqualTo(new BrokerSettings(Optional.of("localhost:9092"), io.replaylab.kafka.ClientProperties.none(), 4, GroupProtocol.CONSUMER, false));
        assertThat(s.timeouts()).isEqualTo(new Timeouts(Optional.of(Duration.ofSeconds(1)), Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofSeconds(4), 7000, 8000,
                Duration.ofSeconds(5), Duration.ofSeconds(6)));
        assertThat(s.subject()).containsSame(python);
        assertThat(s.barrier().choice().kind()).isEqualTo(BarrierKind.WIRE);
        assertThat(s.barrier().holdMode()).isEqualTo(HoldMode.PROCESS);
        assertThat(s.target().isSqlite()).isFalse();
        assertThat(s.target().user()).contains("lab");
        assertThat(s.target().password()).contains("s3cret");
        assertThat(s.target()).hasToString("jdbc:postgresql://localhost/lab as lab (password given)");
    }

    @Test
    void aPartMadeByHandIsHeldToTheBuildersChecks() {
        assertThatThrownBy(() -> new Timeouts(Optional.of(Duration.ZERO), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), 5000, 6000,
                Duration.ofSeconds(1), Duration.ofSeconds(1))).hasMessage("LabSettings.handoffTimeout must be a positive duration, was PT0S");
        assertThatThrownBy(() -> new Timeouts(Optional.of(Duration.ofSeconds(1)), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), 5000, 10,
                Duration.ofSeconds(1), Duration.ofSeconds(1))).hasMessage("LabSettings.sessionTimeoutMs must be 1000..300000 ms, was 10");
        assertThatThrownBy(() -> new Timeouts(Optional.of(Duration.ofSeconds(1)), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), 5000, 6000,
                Duration.ZERO, Duration.ofSeconds(1))).hasMessage("LabSettings.contentionWindow must be a positive duration, was PT0S");
        assertThatThrownBy(() -> new Timeouts(Optional.of(Duration.ofSeconds(1)), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), 5000, 6000,
                Duration.ofSeconds(1), Duration.ZERO)).hasMessage("LabSettings.commitInterval must be a positive duration, was PT0S");
        assertThatThrownBy(() -> new BrokerSettings(Optional.empty(), io.replaylab.kafka.ClientProperties.none(), 1, GroupProtocol.CLASSIC, true))
                .hasMessage("LabSettings.partitions must be 2..1000 (the rebalance needs two), was 1");
        assertThatThrownBy(() -> new TargetSettings(null, Optional.empty(), Optional.empty(), Optional.empty())).isInstanceOf(NullPointerException.class);
        assertThat(new TargetSettings(Optional.of("jdbc:postgresql://localhost/lab?password=s3cret"), Optional.empty(), Optional.of("pw2"),
                Optional.empty()).toString()).contains("jdbc:postgresql://localhost/lab").doesNotContain("s3cret").doesNotContain("pw2");
    }
}
