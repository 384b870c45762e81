package io.replaylab.harness.lab;

import java.sql.SQLException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.SavedProtocol;
import io.replaylab.kafka.BrokerUnreachableException;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;

/**
 * One lab run: a fresh synthetic namespace, the chosen experiments, the protocol saved, then
 * cleanup of the run's own things only. Usable from a JUnit test: settings in, evidence out.
 *
 * <pre>{@code
 * LabResult r = Lab.run(LabSettings.custom().subject(ReferenceSubject.consume()).experiments(Experiments.replay()).workDir(tmp).build(), null);
 * assertEquals(Status.PASS, r.evidence().outcome().status());
 * }</pre>
 */
public final class Lab {
    private Lab() {
    }

    /** What a run left: its evidence and where the protocol is. */
    public record LabResult(RunEvidence evidence, Path runDir, Path report, List<String> cleaned, String refusedInput) {
        /**
         * Why the run's own input was refused once it could be checked against what the run produced
         * (a source mapping that reads none of the records), or empty: every experiment is NOT_RUN then.
         */
        public java.util.Optional<String> refused() {
            return java.util.Optional.ofNullable(refusedInput);
        }
    }

    /** @param progress told each step, or null for none */
    public static LabResult run(LabSettings settings, LabProgress progress) throws Exception {
        return run(settings, progress, LabStop.create());
    }

    /**
     * As {@link #run(LabSettings, LabProgress)}, stoppable from another thread: after
     * {@code stop.request(why)} every running experiment ends NOT_RUN "interrupted by why during
     * step", the rest are not started, every process of the run is stopped, the protocol is saved
     * and then the run's namespace is cleaned up.
     */
    public static LabResult run(LabSettings settings, LabProgress progress, LabStop stop) throws Exception {
        String runId = "run-" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
        LabNamespace ns = LabNamespace.random("rl");
        runId = runId + "-" + ns.prefix().substring(3);
        Path runDir = settings.workDir().resolve(runId);
        if (settings.subject().isPresent()) {
            settings.subject().orElseThrow().checkProgram(); // a program that is not there is named now, before a broker starts
        }
        settings.source().producer().ifPresent(producer -> producer.checkProgram("producer", RecordSource.PRODUCER));
        if (settings.broker().bootstrap().isPresent() && !settings.allowRemote()) {
            List<String> remote = io.replaylab.kafka.Bootstraps.nonLoopbackHosts(settings.broker().bootstrap().orElseThrow());
            if (!remote.isEmpty()) {
                throw new io.replaylab.evidence.BadInputException(LabSettings.BOOTSTRAP_HOSTS + " " + remote + " are not loopback; allow remote brokers ("
                        + LabSettings.ALLOW_REMOTE + ") to use that cluster", LabSettings.BOOTSTRAP_HOSTS, LabSettings.ALLOW_REMOTE);
            }
        }
        List<String> cleaned = new ArrayList<>();
        try (RunRecorder run = RunRecorder.start(runDir, runId)) {
            Progress p = new Progress(progress);
            p.step("run " + runId + " in " + runDir + " (namespace " + ns.prefix() + ")");
            try (RunFixture f = RunFixture.open(settings, runDir, ns, run, p)) {
                LabRun labRun = new LabRun(settings, f.bootstrap(), f.brokerVersion(), ns, run, f.proxy(), stop, f.guard(), f.target(), p, f.clientConfig());
                String unreachable = null;
                try {
                    f.ops().describe(ns.group("probe"));
                } catch (BrokerUnreachableException e) {
                    unreachable = e.getMessage();
                } catch (io.replaylab.evidence.BadInputException e) {
                    if (!e.settings().contains(io.replaylab.kafka.ClientProperties.SETTING)) {
                        throw e;
                    }
                    unreachable = e.getMessage(); // a login the broker refused: the lab cannot reach it either
                }
                if (unreachable == null) {
                    // journaled before any topic exists: a run killed from here on names what it left, and where
                    run.owns(Leftovers.namespace(ns, f.bootstrap(), clusterId(f.ops()), f.broker() != null));
                }
                // registered in the given order before any starts: the evidence lists them so, whichever ends first
                List<ExperimentRecorder> recorders = new ArrayList<>();
                List<Experiment> experiments = settings.experiments().stream().filter(x -> !x.onlyOnPostgres() || !settings.target().isSqlite()).toList();
                for (Experiment experiment : experiments) {
                    recorders.add(run.experiment(experiment.name(), experiment.requirements().toArray(String[]::new)));
                }
                if (unreachable != null || f.targetRefused() != null) {
                    String why = "prerequisite missing: " + (unreachable != null ? unreachable : f.targetRefused());
                    recorders.forEach(e -> e.finish(Outcome.notRun(why)));
                } else {
                    runExperiments(labRun, experiments, recorders);
                }
                SavedProtocol saved = run.save();
                p.step("protocol saved: " + saved.evidenceFile());
                cleanUp(settings, saved, f, labRun, ns, unreachable == null, cleaned, p);
                p.step("done: " + saved.evidence().outcome());
                return new LabResult(saved.evidence(), runDir, saved.reportMarkdown(), cleaned, labRun.refusedInput());
            }
        }
    }

    /**
     * The run's own things, in the saved protocol's journal one by one: its processes stopped, the
     * proxy closed, its schema, topics and groups removed (unless kept), the local broker stopped. A
     * failed step is journaled and reported, never fatal: the protocol is saved.
     */
    private static void cleanUp(LabSettings settings, SavedProtocol saved, RunFixture f, LabRun labRun, LabNamespace ns, boolean reachable,
            List<String> cleaned, Progress p) {
        saved.cleanup("stop every process the run started", labRun::stopAll);
        if (f.proxy() != null) {
            saved.cleanup("close the wire proxy", f.proxy()::close);
        }
        if (!settings.broker().client().isEmpty()) {
            saved.cleanup("delete the run's client properties (" + f.clientConfig() + ")", f::deleteClientConfig);
        }
        if (settings.keep()) {
            saved.cleanup("keep the run's own topics, groups and schema, as asked (they stay until removed as its leftovers)", () -> { });
        }
        TargetDatabase target = f.target();
        if (!settings.keep() && target.schema() != null) {
            try {
                saved.cleanup("drop the run's own target schema " + target.schema(), () -> {
                    try {
                        target.dropSchema();
                    } catch (SQLException ex) {
                        throw new IllegalStateException("cannot drop schema " + target.schema() + ": " + ex.getMessage(), ex);
                    }
                });
            } catch (RuntimeException ex) {
                p.step("cleanup incomplete: " + ex.getMessage());
            }
        }
        if (!settings.keep() && reachable) {
            try {
                saved.cleanup("delete the run's own topics and groups (" + ns.prefix() + ".*)", () -> cleaned.addAll(f.ops().deleteNamespace(ns).lines()));
            } catch (RuntimeException ex) {
                p.step("cleanup incomplete: " + ex.getMessage());
            }
        }
        LocalKafka b = f.broker();
        if (b != null) {
            saved.cleanup("stop the local broker (pid " + b.pid() + "), keep broker.log", () -> {
                if (settings.keep()) {
                    b.stop();
                } else {
                    b.stopAndDeleteData();
                }
            });
            f.brokerStopped();
        }
        saved.cleanupDone();
    }

    /** The cluster's id for the journal, or null if the broker will not say (the cleanup of a dead run then cannot compare it). */
    private static String clusterId(KafkaOps ops) {
        try {
            return ops.clusterId();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Up to {@link LabSettings#parallel()} experiments at a time, in the given order; one that
     * {@linkplain Experiment#runsAlone() runs alone} waits for those before it and runs by itself.
     */
    private static void runExperiments(LabRun run, List<Experiment> experiments, List<ExperimentRecorder> recorders) {
        List<Callable<Outcome>> batch = new ArrayList<>();
        for (int i = 0; i < experiments.size(); i++) {
            Experiment x = experiments.get(i);
            ExperimentRecorder e = recorders.get(i);
            LabNamespace ns = LabNamespace.of(run.ns.prefix() + "." + x.name());
            Callable<Outcome> task = () -> LabContext.run(run, e, ns, x.body());
            if (x.runsAlone()) {
                sideBySide(batch, run.settings.parallel(), "experiments");
                batch.clear();
                if (run.settings.parallel() > 1) {
                    run.progress.step(x.name() + ": runs alone (it needs the machine to itself)");
                }
                sideBySide(List.of(task), 1, x.name());
            } else {
                batch.add(task);
            }
        }
        sideBySide(batch, run.settings.parallel(), "experiments");
    }

    /**
     * Runs the tasks, up to {@code limit} at a time, and returns their results in the tasks' order.
     * With a limit of 1 (or one task) they run on the calling thread, one after another. The
     * threads are never interrupted: an interrupt would close the journal's file channel mid-write
     * (a stop goes through {@link LabStop}).
     */
    static <T> List<T> sideBySide(List<Callable<T>> tasks, int limit, String what) {
        List<T> out = new ArrayList<>();
        if (tasks.isEmpty()) {
            return out;
        }
        if (limit <= 1 || tasks.size() == 1) {
            for (Callable<T> t : tasks) {
                out.add(call(t));
            }
            return out;
        }
        int threads = Math.min(limit, tasks.size());
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "lab-" + what + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> t : tasks) {
                futures.add(pool.submit(t));
            }
            for (Future<T> f : futures) {
                out.add(await(f));
            }
            return out;
        } finally {
            pool.shutdown();
        }
    }

    private static <T> T call(Callable<T> task) {
        try {
            return task.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> T await(Future<T> f) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true; // the experiments are stopped through LabStop, never by interrupt: wait on
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException r) {
                        throw r;
                    }
                    if (e.getCause() instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
