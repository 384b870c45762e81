package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.FailKind;
import io.replaylab.evidence.Status;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.evidence.MetricValue;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.subject.ReferenceLab;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.PollingConsumerMain;
import org.assertj.core.api.AbstractStringAssert;

/** What the run tests of this package share: the reference lab on the shared broker, and reading its evidence. */
final class Runs {
    private Runs() {
    }

    /** The reference subject's lab on {@code kafka}, 60 records, run directories under {@code dir}. */
    static LabSettings.Builder on(LocalKafka kafka, Path dir) {
        return ReferenceLab.settings().bootstrap(kafka.bootstrapServers()).workDir(dir).records(60);
    }

    /** A consumer that joins the group and polls, never committing an offset or a transaction (kafka-ops' PollingConsumerMain). */
    static String pollsOnly() {
        return Subject.javaCommand(PollingConsumerMain.class.getName(), ChildProcess.shortLived("-Xmx128m").toArray(String[]::new)) + " {bootstrap} {topic} {group}";
    }

    /** Runs the lab of {@code b}, which has one experiment, and returns that experiment's evidence. */
    static ExperimentEvidence only(LabSettings.Builder b) throws Exception {
        LabSettings s = b.build();
        if (s.experiments().size() != 1) {
            throw new AssertionError("not one experiment: " + s.experiments().stream().map(x -> x.name()).toList());
        }
        return experiment(Lab.run(s, null).evidence(), s.experiments().get(0).name());
    }

    /** Runs the lab of {@code b} and returns the evidence of its experiment (or cell) {@code name}. */
    static ExperimentEvidence run(LabSettings.Builder b, String name) throws Exception {
        return experiment(Lab.run(b.build(), null).evidence(), name);
    }

    /**
     * Runs each lab at once, side by side (runs that mostly wait out a consumer's timeouts), and returns the evidence of each one's
     * experiment (or cell) {@code name}, by the runs' keys.
     */
    static Map<String, ExperimentEvidence> sideBySide(Map<String, LabSettings.Builder> runs, String name) throws Exception {
        return sideBySide(runs, b -> run(b, name));
    }

    /** As above, each lab with one experiment (they may differ): the evidence of each one's experiment, by the runs' keys. */
    static Map<String, ExperimentEvidence> sideBySide(Map<String, LabSettings.Builder> runs) throws Exception {
        return sideBySide(runs, Runs::only);
    }

    /** How one of the runs side by side is run, and which of its experiments' evidence it gives. */
    private interface RunOf {
        ExperimentEvidence evidence(LabSettings.Builder b) throws Exception;
    }

    private static Map<String, ExperimentEvidence> sideBySide(Map<String, LabSettings.Builder> runs, RunOf runOf) throws Exception {
        Map<String, CompletableFuture<ExperimentEvidence>> running = new LinkedHashMap<>();
        runs.forEach((key, b) -> running.put(key, CompletableFuture.supplyAsync(() -> {
            try {
                return runOf.evidence(b);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        })));
        Map<String, ExperimentEvidence> out = new LinkedHashMap<>();
        for (Map.Entry<String, CompletableFuture<ExperimentEvidence>> r : running.entrySet()) {
            out.put(r.getKey(), r.getValue().get());
        }
        return out;
    }

    /** What {@code x} recorded, in order. */
    static java.util.List<io.replaylab.evidence.Payload> payloads(ExperimentEvidence x) {
        return x.events().stream().map(io.replaylab.evidence.Event::payload).toList();
    }

    /** The matrix that {@code x} recorded (a matrix experiment's, or the durability one's). */
    static io.replaylab.evidence.Payload.Matrix matrix(ExperimentEvidence x) {
        return payloads(x).stream().filter(io.replaylab.evidence.Payload.Matrix.class::isInstance).map(io.replaylab.evidence.Payload.Matrix.class::cast)
                .findFirst().orElseThrow(() -> new AssertionError("no matrix in " + x.name()));
    }

    static ExperimentEvidence experiment(RunEvidence r, String name) {
        return r.experiments().stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no experiment " + name + " in " + r.experiments().stream().map(ExperimentEvidence::name).toList()));
    }

    /** Asserts that {@code x} FAILed because a check failed (its fault confirmed); the reason, to assert what it names. */
    static AbstractStringAssert<?> failedItsChecks(ExperimentEvidence x) {
        return failedAs(x, FailKind.CHECK_FAILED);
    }

    /** Asserts that {@code x} FAILed (for any reason); the reason, to assert what it names. */
    static AbstractStringAssert<?> failed(ExperimentEvidence x) {
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.FAIL);
        return assertThat(x.outcome().reason());
    }

    /** Asserts that {@code x} FAILed because its fault was not observed (what the consumer did kept it from happening); the reason. */
    static AbstractStringAssert<?> faultNotObserved(ExperimentEvidence x) {
        return failedAs(x, FailKind.FAULT_NOT_OBSERVED);
    }

    private static AbstractStringAssert<?> failedAs(ExperimentEvidence x, FailKind kind) {
        failed(x);
        assertThat(x.outcome().failKind()).as(x.outcome().reason()).isEqualTo(kind);
        return assertThat(x.outcome().reason());
    }

    /** Asserts that {@code x} PASSed (its reason shown if not); its fault confirmation, to assert what it says was confirmed. */
    static AbstractStringAssert<?> passed(ExperimentEvidence x) {
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.PASS);
        return assertThat(x.outcome().confirmation().description());
    }

    /** Asserts that {@code x} was NOT_RUN; its reason, to assert what it names. */
    static AbstractStringAssert<?> wasNotRun(ExperimentEvidence x) {
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.NOT_RUN);
        return assertThat(x.outcome().reason());
    }

    /** Asserts that {@code x} FAILed, its check {@code name} among the failed; what that check found, to assert what it names. */
    static AbstractStringAssert<?> failedCheck(ExperimentEvidence x, String name) {
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.FAIL);
        Check c = check(x, name);
        assertThat(c.status()).as(c.actual()).isEqualTo(Status.FAIL);
        return assertThat(c.actual());
    }

    /** The check of that name in {@code x}'s evidence. */
    static Check check(ExperimentEvidence x, String name) {
        return x.checks().stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no check " + name + " in " + x.checks()));
    }

    static MetricValue metric(RunEvidence r, String experiment, String name, String tag, String value) {
        return experiment(r, experiment).metrics().stream().filter(m -> m.name().equals(name) && (tag == null || value.equals(m.tags().get(tag))))
                .findFirst().orElseThrow(() -> new AssertionError("no metric " + name + " in " + experiment + ": " + experiment(r, experiment).metrics()));
    }
}
