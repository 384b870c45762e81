package com.example.ownlab;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.harness.subject.ReferenceLab;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Status;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.experiment.Experiments;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.oracle.Comparison;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another lab's experiment, built from replay-lab's public pieces only (this package sees nothing
 * package-private): the consumer is SIGKILLed in mid-stream, a new process takes over, and the oracle
 * must find every effect exactly once. It runs next to the reference experiments, in the same run.
 */
@LocalKafkaTest
class CrashRestartExperimentTest {
    @TempDir
    Path dir;

    /** The whole experiment: a page of code. */
    static final Experiment CRASH_RESTART = new Experiment("crash-restart", List.of("R10", "R14"), (ctx, ns, e) -> {
        Experiments.produce(ctx, e, ns);
        LabContext.Instance a = ctx.subjects().start(e, ctx.subjects().consumer("crash-A", ns.topic(), ns.group(), ns.inbox(1)));
        boolean midStream = Poll.every(Duration.ofMillis(10)).upTo(ctx.settings().timeouts().drain()).until(() -> {
            ctx.subjects().checkpoint(a);
            return processed(ctx, "crash-A") >= 20; // mid-stream: some records done, most still to come
        });
        if (!midStream) {
            ctx.subjects().stop(e, a);
            return e.finish(Outcome.notRun("crash-A processed fewer than 20 records within " + ctx.settings().timeouts().drain()));
        }
        Event crashed = ctx.subjects().crash(e, a);
        ctx.step("crash-A killed after " + processed(ctx, "crash-A") + " records; crash-A2 takes over");
        LabContext.Instance a2 = ctx.subjects().start(e, ctx.subjects().consumer("crash-A2", ns.topic(), ns.group(), ns.inbox(1)));
        OffsetSnapshot drained = ctx.kafka().awaitDrained(ns.group(), ns.topic(), "after the crash", a2);
        ctx.subjects().stop(e, a2);
        if (drained == null) {
            return e.finish(Outcome.notRun("the group did not drain after the restart"));
        }
        Comparison c = ctx.target().compare(ns.topic(), ns.inbox(1), ns.group());
        e.record(io.replaylab.evidence.Source.here("crash-restart"), c.toPayload());
        c.toChecks().forEach(e::check);
        return e.finish(Outcome.judge(e.confirmFault("crash-A was killed with SIGKILL in mid-stream", crashed), e.checks()));
    });

    private static long processed(LabContext ctx, String instance) {
        return ctx.subjects().processingCounts(instance).map(m -> m.values().stream().mapToLong(Long::longValue).sum()).orElse(0L);
    }

    @Test
    void aLabsOwnExperimentRunsOnThePiecesAndIsJudgedLikeOurs(LocalKafka kafka) throws Exception {
        List<String> steps = new CopyOnWriteArrayList<>();
        Lab.LabResult r = Lab.run(ReferenceLab.settings().bootstrap(kafka.bootstrapServers()).workDir(dir).records(300)
                .experiments(CRASH_RESTART).build(), (sinceStart, message) -> steps.add(message));

        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("crash-restart");
        ExperimentEvidence x = r.evidence().experiments().get(0);
        assertThat(x.outcome().status()).as(x.outcome().reason()).isEqualTo(Status.PASS);
        assertThat(x.events()).extracting(Event::payload).filteredOn(Payload.ProcessStopped.class::isInstance)
                .map(Payload.ProcessStopped.class::cast).anySatisfy(s -> {
                    assertThat(s.instance()).isEqualTo("crash-A");
                    assertThat(s.how()).isEqualTo("SIGKILL (crash)");
                    assertThat(s.exitCode()).isEqualTo(137);
                });
        assertThat(steps).anyMatch(s -> s.startsWith("crash-restart: crash-A killed after "));
        assertThat(r.report()).exists();
    }
}
