package io.replaylab.harness.lab;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.barrier.wire.WitnessedCommit;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;

/**
 * What every experiment of one run shares, whichever run at the same time: the settings, the
 * broker as the harness and as subjects reach it, the recorder, the stop request, the process
 * guard, the target database, and every process started (stopped once more at the end of the run).
 * Each experiment's own things (its Admin client, its SQLite file, its meters, its processes, its
 * last step) are in its {@link LabContext}.
 */
final class LabRun {
    final LabSettings settings;
    final String bootstrap;
    final String brokerVersion;
    final LabNamespace ns;
    final RunRecorder recorder;
    /** The proxy as experiments see it (null: none). */
    final LabWire wire;
    final LabStop stop;
    final ProcessGuard guard;
    final TargetDatabase db;
    final Progress progress;
    /** The file the subjects' {@code {command-config}} names: the run's client properties, secrets included, outside the run dir. */
    final java.nio.file.Path clientConfig;
    private final List<ChildProcess> started = new ArrayList<>();
    /**
     * The run's bound on work side by side ({@link LabSettings#parallel()}): an experiment or a part holds a slot while its body
     * runs and gives it back while it waits for its own parts, so a battery never runs parallel × parallel at once.
     */
    final Slots slots;
    /** Why the run ends early for every experiment (the target query the database refused), or null. */
    private volatile String refused;
    private volatile boolean refusedInput;
    /** The custom target query ran once against a schema a subject created. */
    private volatile boolean queryChecked;

    LabRun(LabSettings settings, String bootstrap, String brokerVersion, LabNamespace ns, RunRecorder recorder, WireProxy proxy, LabStop stop,
            ProcessGuard guard, TargetDatabase db, Progress progress, java.nio.file.Path clientConfig) {
        this.settings = settings;
        this.clientConfig = clientConfig;
        this.slots = new Slots(settings.parallel());
        this.bootstrap = bootstrap;
        this.brokerVersion = brokerVersion;
        this.ns = ns;
        this.recorder = recorder;
        this.wire = proxy == null ? null : new LabWire(proxy);
        this.stop = stop;
        this.guard = guard;
        this.db = db;
        this.progress = progress;
        if (proxy != null) {
            proxy.witness().onCommit(this::witnessed);
        }
        db.proxy().ifPresent(pg -> {
            pg.owners(this::owning); // a session is the instance's whose process holds its socket
            pg.witness().onTransaction(this::witnessed);
        });
    }

    /** The instances started so far, by name, with the evidence each belongs to. */
    private final Map<String, Started> instances = new ConcurrentHashMap<>();

    private record Started(ChildProcess process, ExperimentRecorder e) {
    }

    /** Instance {@code name} runs as {@code p} for experiment {@code e} (the latest process of a name wins: a restart). */
    void instance(String name, ChildProcess p, ExperimentRecorder e) {
        instances.put(name, new Started(p, e));
    }

    /** The instance whose live process (or a descendant) holds the local TCP port {@code port}, or null. */
    private String owning(int port) {
        for (Map.Entry<String, Started> i : instances.entrySet()) {
            if (i.getValue().process().isAlive() && i.getValue().process().ownsTcpPort(port)) {
                return i.getKey();
            }
        }
        return null;
    }

    /** A transaction the PostgreSQL proxy saw end, into the evidence of its instance's experiment (setting up a session is left out). */
    private void witnessed(io.replaylab.barrier.pg.WitnessedTransaction t) {
        Started i = instances.get(t.owner());
        if (i != null && !t.setUpOnly()) { // nothing once the experiment finished
            i.e().recordIfOpen(DB_WITNESS, new LabEvent.DbTransaction(t.owner(), t.session(), t.outcome().name(), t.sqlState(), t.statements()));
        }
    }

    /** Where the database witness's events come from: the PostgreSQL proxy, in the harness's process. */
    static final Source DB_WITNESS = Source.here("database witness");

    /** Experiments (and parts) running now, by namespace: where the witness records each commit. */
    private final Map<LabNamespace, ExperimentRecorder> witnessing = new ConcurrentHashMap<>();

    /** From now on, the witness records the commits of {@code ns}'s groups into {@code e} (until {@link #unwitness}). */
    void witness(LabNamespace ns, ExperimentRecorder e) {
        witnessing.put(ns, e);
    }

    void unwitness(LabNamespace ns) {
        witnessing.remove(ns);
    }

    /** A commit the witness saw, into the experiment whose namespace (the longest that owns it: a cell's, not its matrix's) names its group. */
    private void witnessed(WitnessedCommit c) {
        LabNamespace best = null;
        for (LabNamespace ns : witnessing.keySet()) {
            if (ns.owns(c.group()) && (best == null || ns.prefix().length() > best.prefix().length())) {
                best = ns;
            }
        }
        ExperimentRecorder e = best == null ? null : witnessing.get(best);
        if (e != null) { // none: a group of no running experiment's (the probe); nothing once the experiment ended
            e.recordIfOpen(WITNESS, c.toPayload(c.clientId().isEmpty() ? "(no client id)" : c.clientId()));
        }
    }

    /** Where the witness's events come from: the proxy, in the harness's process. */
    static final Source WITNESS = Source.here("wire witness");

    /** An Admin client of one experiment's own: its request count is that experiment's alone while others run beside it. */
    KafkaOps connect() {
        return KafkaOps.connect(bootstrap, Duration.ofSeconds(15), settings.broker().client());
    }

    /** Ends the run for every experiment: those running end NOT_RUN with this reason at their next look, the rest do not start. */
    synchronized void refuse(String why) {
        refuse(why, false);
    }

    /** As {@link #refuse(String)}; {@code badInput}: the run's own settings are wrong (the caller gets {@link Lab.LabResult#refusedInput()}). */
    synchronized void refuse(String why, boolean badInput) {
        if (refused == null) {
            refused = why;
            refusedInput = badInput;
        }
    }

    String refused() {
        return refused;
    }

    /** The refusal when it was the run's own input that was wrong, else null. */
    String refusedInput() {
        return refusedInput ? refused : null;
    }

    boolean queryChecked() {
        return queryChecked;
    }

    void queryChecked(boolean checked) {
        queryChecked = checked;
    }

    synchronized void started(ChildProcess p) {
        started.add(p);
    }

    /** Every process the run started, stopped by pid (R17): SIGTERM to all at once, SIGKILL to what is left after the grace period. */
    void stopAll() {
        List<ChildProcess> all;
        synchronized (this) {
            all = List.copyOf(started);
        }
        ChildProcess.stopAll(all, grace());
    }

    /** The settings' grace (20 s) for a subject to finish its record and leave the group; 3 s when the run was asked to stop. */
    Duration grace() {
        Duration stopping = Duration.ofSeconds(3);
        return stop.requested() && settings.timeouts().stopGrace().compareTo(stopping) > 0 ? stopping : settings.timeouts().stopGrace();
    }
}
