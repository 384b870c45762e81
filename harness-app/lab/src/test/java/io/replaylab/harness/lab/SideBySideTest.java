package io.replaylab.harness.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Experiments of one run side by side: up to the limit at once, each with its own context, in the
 * evidence in the order given whatever the order they end in; one that runs alone has nothing
 * beside it; a stop ends all that run. The bodies are the lab's own API, on a real broker.
 */
@LocalKafkaTest
class SideBySideTest {
    @TempDir
    Path dir;

    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final Map<String, Integer> besideWhenStarted = new ConcurrentHashMap<>();
    private final Set<String> threads = ConcurrentHashMap.newKeySet();
    private final Set<KafkaOps> clients = ConcurrentHashMap.newKeySet();
    private final Set<String> targets = ConcurrentHashMap.newKeySet();
    private final List<String> ended = Collections.synchronizedList(new ArrayList<>());

    private final Map<String, Boolean> met = new ConcurrentHashMap<>();

    /** An experiment that waits until the latch's count of experiments run at once (or 10 s), then {@code lingerMs}; PASS. */
    private Experiment counted(String name, CountDownLatch together, long lingerMs) {
        return counted(name, together, lingerMs, Duration.ofSeconds(10));
    }

    private Experiment counted(String name, CountDownLatch together, long lingerMs, Duration wait) {
        return new Experiment(name, List.of("R1"), (ctx, ns, e) -> {
            int now = running.incrementAndGet();
            mostAtOnce.accumulateAndGet(now, Math::max);
            besideWhenStarted.put(name, now - 1);
            threads.add(Thread.currentThread().getName());
            clients.add(ctx.kafka().ops());
            targets.add(ctx.target().describe());
            try {
                together.countDown();
                boolean all = together.await(wait.toMillis(), TimeUnit.MILLISECONDS);
                met.put(name, all);
                ctx.step(all ? "met the others" : "alone after " + wait.toSeconds() + " s");
                Thread.sleep(lingerMs);
                Event ran = e.record(Source.here("test"), new Payload.Note("ran"));
                e.check(Check.pass("ran", "R1", "ran", "ran"));
                return e.finish(Outcome.judge(e.confirmFault("it ran", ran), e.checks()));
            } finally {
                ended.add(name);
                running.decrementAndGet();
            }
        });
    }

    private LabSettings.Builder settings(LocalKafka kafka, Experiment... experiments) {
        return LabSettings.custom().bootstrap(kafka.bootstrapServers()).workDir(dir).experiments(experiments);
    }

    @Test
    void upToTheLimitRunAtOnceEachWithItsOwnContextAndTheEvidenceKeepsTheGivenOrder(LocalKafka kafka) throws Exception {
        CountDownLatch three = new CountDownLatch(3);
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Lab.LabResult r = Lab.run(settings(kafka, counted("a", three, 600), counted("b", three, 0), counted("c", three, 300),
                counted("d", new CountDownLatch(1), 0)).parallel(3).build(), (t, m) -> lines.add(m));

        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("a", "b", "c", "d");
        assertThat(met).as("a, b and c ran at once").containsOnly(Map.entry("a", true), Map.entry("b", true), Map.entry("c", true),
                Map.entry("d", true));
        assertThat(mostAtOnce).as("the limit holds").hasValue(3);
        assertThat(ended.indexOf("a")).as("a lingered longest and ended after b and c").isGreaterThan(ended.indexOf("c"));
        assertThat(clients).as("an Admin client each: their request counts are their own").hasSize(4);
        assertThat(targets).containsExactlyInAnyOrder("targets/a.db (SQLite, in the run directory, this experiment's own)",
                "targets/b.db (SQLite, in the run directory, this experiment's own)", "targets/c.db (SQLite, in the run directory, this experiment's own)",
                "targets/d.db (SQLite, in the run directory, this experiment's own)");
        assertThat(lines).as("each line names its experiment").contains("a: met the others", "b: met the others", "c: met the others",
                "d: met the others");
        assertThat(r.evidence().outcome().status()).isEqualTo(Status.PASS);
    }

    @Test
    void parallelOneRunsThemOneAfterAnotherOnTheCallersThread(LocalKafka kafka) throws Exception {
        CountDownLatch two = new CountDownLatch(2);
        Lab.LabResult r = Lab.run(settings(kafka, counted("a", two, 0, Duration.ofSeconds(2)), counted("b", two, 0)).parallel(1).build(), null);

        assertThat(mostAtOnce).hasValue(1);
        assertThat(threads).containsExactly(Thread.currentThread().getName());
        assertThat(ended).containsExactly("a", "b");
        assertThat(met).as("a waited in vain for b; b found a's count").containsOnly(Map.entry("a", false), Map.entry("b", true));
        assertThat(r.evidence().experiments().get(1).started()).as("b's time starts when b begins, not when it was registered with a")
                .isAfterOrEqualTo(r.evidence().experiments().get(0).ended());
    }

    @Test
    void anExperimentThatRunsAloneWaitsForThoseBeforeItAndThoseAfterItWaitForIt(LocalKafka kafka) throws Exception {
        CountDownLatch two = new CountDownLatch(2);
        CountDownLatch after = new CountDownLatch(2);
        Lab.LabResult r = Lab.run(settings(kafka, counted("a", two, 200), counted("b", two, 0), counted("alone", new CountDownLatch(1), 200).alone(),
                counted("c", after, 0), counted("d", after, 0)).parallel(3).build(), null);

        assertThat(besideWhenStarted).containsEntry("alone", 0);
        assertThat(ended.indexOf("alone")).isGreaterThan(Math.max(ended.indexOf("a"), ended.indexOf("b"))).isLessThan(ended.indexOf("c"));
        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("a", "b", "alone", "c", "d");
        assertThat(r.evidence().outcome().status()).isEqualTo(Status.PASS);
    }

    @Test
    void aStopEndsEveryRunningExperimentNotRunWithItsOwnStepAndTheRestAreNotStarted(LocalKafka kafka) throws Exception {
        LabStop stop = LabStop.create();
        CountDownLatch both = new CountDownLatch(2);
        Experiment.Body waits = (ctx, ns, e) -> {
            ctx.step("waiting for the stop");
            both.countDown();
            while (true) {
                ctx.subjects().checkpoint();
                Thread.sleep(50);
            }
        };
        Thread stopper = new Thread(() -> {
            try {
                if (both.await(30, TimeUnit.SECONDS)) {
                    stop.request("the test");
                }
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        });
        stopper.start();
        Lab.LabResult r = Lab.run(settings(kafka, new Experiment("a", List.of(), waits), new Experiment("b", List.of(), waits),
                new Experiment("c", List.of(), waits)).parallel(2).build(), null, stop);
        stopper.join(Duration.ofSeconds(5).toMillis());

        assertThat(r.evidence().experiments()).extracting(x -> x.outcome().status()).containsOnly(Status.NOT_RUN);
        assertThat(r.evidence().experiments()).extracting(x -> x.outcome().reason()).containsExactly(
                "interrupted by the test during a: waiting for the stop", "interrupted by the test during b: waiting for the stop",
                "not started: the run was interrupted by the test");
    }

    @Test
    void partsOfAnExperimentRunSideBySideRegisteredInTheirOrderBeforeAnyStarts(LocalKafka kafka) throws Exception {
        CountDownLatch two = new CountDownLatch(2);
        Experiment matrix = new Experiment("matrix", List.of("R1"), (ctx, ns, e) -> {
            List<LabContext.Part> parts = new ArrayList<>();
            for (String p : List.of("p1", "p2", "p3")) {
                Experiment cell = counted(p, p.equals("p3") ? new CountDownLatch(1) : two, p.equals("p1") ? 300 : 0);
                parts.add(new LabContext.Part("matrix." + p, cell.requirements(), ns, cell.body()));
            }
            List<Outcome> outcomes = ctx.parts(parts);
            Event done = e.record(Source.here("test"), new Payload.Note(outcomes.stream().map(o -> o.status().name()).toList().toString()));
            return e.finish(Outcome.judge(e.confirmFault("its parts ran", done), List.of(Check.pass("parts", "R1", "3", "" + outcomes.size()))));
        });
        Lab.LabResult r = Lab.run(settings(kafka, matrix).parallel(2).build(), null);

        assertThat(r.evidence().experiments()).extracting(ExperimentEvidence::name).containsExactly("matrix", "matrix.p1", "matrix.p2", "matrix.p3");
        assertThat(r.evidence().experiments()).extracting(x -> x.outcome().status()).containsOnly(Status.PASS);
        assertThat(met).containsOnly(Map.entry("p1", true), Map.entry("p2", true), Map.entry("p3", true));
        assertThat(mostAtOnce).hasValue(2);
        assertThat(ended.indexOf("p1")).as("p1 lingered and ended after p2").isGreaterThan(ended.indexOf("p2"));
    }
}
