package io.replaylab.harness.lab;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;

import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.kafka.ClientProperties;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.broker.LocalKafkaConfig;
import io.replaylab.oracle.OracleReadException;
import io.replaylab.oracle.TargetSpec;

/**
 * What a run stands on, opened in order and closed in reverse: the broker (a local one started for
 * the run, or the one given), the target database, the run's own Admin client (the probe and the
 * cleanup), the wire proxy when subjects talk through one, and the process guard. A target the run
 * cannot use is not an exception: {@link #targetRefused()} says why, and every experiment is then
 * NOT_RUN with it. Closing stops a local broker the cleanup did not take ({@link #brokerStopped()}).
 */
final class RunFixture implements AutoCloseable {
    private LocalKafka broker;
    private final String bootstrap;
    private final String brokerVersion;
    private final TargetDatabase target;
    private final String targetRefused;
    private KafkaOps ops;
    private WireProxy proxy;
    private ProcessGuard guard;
    /** The client properties as a file only the run's user reads, outside the run dir: what {@code {command-config}} names. */
    private Path clientConfig;

    private RunFixture(LocalKafka broker, String bootstrap, String brokerVersion, TargetDatabase target, String targetRefused) {
        this.broker = broker;
        this.bootstrap = bootstrap;
        this.brokerVersion = brokerVersion;
        this.target = target;
        this.targetRefused = targetRefused;
    }

    /** Opens everything; what was opened before a failure is closed again before it is thrown. */
    static RunFixture open(LabSettings settings, Path runDir, LabNamespace ns, RunRecorder run, Progress p) throws Exception {
        LocalKafka broker = null;
        String bootstrap = settings.broker().bootstrap().orElse(null);
        // a broker this JVM started (a test's shared LocalKafka) is handed over by address: its version is still known
        String brokerVersion = bootstrap == null ? "unknown" : LocalKafka.versionAt(bootstrap).orElse("external (not known)");
        RunFixture f = null;
        try {
            if (bootstrap == null) {
                p.step("starting a local Kafka broker");
                run.owns(Leftovers.brokerData("broker"));
                broker = LocalKafka.create(LocalKafkaConfig.custom().workDir(runDir.resolve("broker")).build()).start();
                bootstrap = broker.bootstrapServers();
                brokerVersion = broker.brokerVersion().orElse("unknown");
                p.step("broker ready at " + bootstrap);
            }
            String targetRefused = null;
            TargetDatabase db;
            if (settings.target().isSqlite()) {
                db = TargetDatabase.sqlite(runDir, settings.target().query(), settings.source().mapping().amountScale());
            } else {
                TargetSpec base = TargetDatabase.check(settings.target(), settings.allowRemote());
                p.step("target: " + base.displayUrl() + (base.user() != null ? " as " + base.user() : ""));
                TargetDatabase pg = null;
                try {
                    pg = TargetDatabase.postgres(base, ns, settings.target().query(), settings.source().mapping().amountScale());
                    run.owns(Leftovers.schema(pg.schema(), base));
                    pg.target(ns.prefix()); // the oracle's pool, opened now: a refusal is named before any experiment starts
                    p.step("target schema " + pg.schema() + " created (dropped at cleanup unless the run keeps its things)");
                    db = pg;
                } catch (SQLException | OracleReadException e) {
                    if (pg != null) {
                        pg.dropQuietly();
                    }
                    targetRefused = "cannot use the target database (" + base.displayUrl() + (base.user() != null ? " as " + base.user() : "")
                            + "): " + e.getMessage();
                    // never used: every experiment is NOT_RUN
                    db = TargetDatabase.sqlite(runDir, settings.target().query(), settings.source().mapping().amountScale());
                    p.step(targetRefused);
                }
            }
            f = new RunFixture(broker, bootstrap, brokerVersion, db, targetRefused);
            ClientProperties client = settings.broker().client();
            // the temp dir is its owner's alone; journaled before a secret is in it, so that a killed run's cleanup deletes it
            f.clientConfig = Files.createTempDirectory(Leftovers.CLIENT_PROPERTIES_DIR).resolve(Leftovers.CLIENT_PROPERTIES_FILE);
            if (!client.isEmpty()) {
                run.owns(Leftovers.clientProperties(f.clientConfig));
                p.step("client properties for the lab's Kafka clients and the subjects' {command-config}: " + client);
            }
            client.writeTo(f.clientConfig);
            f.ops = KafkaOps.connect(bootstrap, Duration.ofSeconds(15), client);
            BarrierKind.Choice barrier = settings.barrier().choice();
            f.proxy = barrier.kind() == BarrierKind.WIRE || settings.broker().witness() ? WireProxy.start(bootstrap, client.asMap()) : null;
            f.guard = ProcessGuard.start(runDir.resolve("logs").resolve("process-groups"), settings.platform());
            // the run's barrier is chosen for its subject; a share consumer that is not a JVM is held on the wire all the same
            String share = settings.shareSubject().filter(s -> !s.jvm()).isPresent() ? "; the share consumer, not a JVM, on the wire" : "";
            if (f.proxy != null) {
                p.step("barrier: " + barrier.display() + share + "; subjects connect through the wire proxy at " + f.proxy.bootstrapServers()
                        + ", the witness of every offset commit and share acknowledgement");
            } else {
                p.step("barrier: " + barrier.display() + share + "; subjects connect straight to the broker (no witness)");
            }
            return f;
        } catch (Exception | Error e) {
            if (f != null) {
                f.close();
            } else if (broker != null) {
                broker.stop();
            }
            throw e;
        }
    }

    String bootstrap() {
        return bootstrap;
    }

    String brokerVersion() {
        return brokerVersion;
    }

    TargetDatabase target() {
        return target;
    }

    /** Why the target database cannot be used, or null. */
    String targetRefused() {
        return targetRefused;
    }

    KafkaOps ops() {
        return ops;
    }

    /** The file of the subjects' {@code {command-config}}. */
    Path clientConfig() {
        return clientConfig;
    }

    /** Deletes the client properties' file and its directory (a cleanup step, and once more at close). */
    void deleteClientConfig() {
        if (clientConfig != null) {
            try {
                Files.deleteIfExists(clientConfig);
                Files.deleteIfExists(clientConfig.getParent());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot delete the client properties " + clientConfig + ": " + e.getMessage(), e);
            }
        }
    }

    /** The wire proxy, or null when subjects connect straight to the broker. */
    WireProxy proxy() {
        return proxy;
    }

    ProcessGuard guard() {
        return guard;
    }

    /** The local broker the run started, or null. */
    LocalKafka broker() {
        return broker;
    }

    /** The saved protocol's cleanup stopped the local broker: closing no longer stops it. */
    void brokerStopped() {
        broker = null;
    }

    @Override
    public void close() {
        try (TargetDatabase t = target; KafkaOps o = ops; WireProxy w = proxy; ProcessGuard g = guard) {
            // closed in reverse: the guard, the proxy, the Admin client, the target
        } finally {
            try {
                deleteClientConfig();
            } catch (java.io.UncheckedIOException e) {
                org.slf4j.LoggerFactory.getLogger(RunFixture.class).warn("{}", e.getMessage());
            }
            if (broker != null) {
                broker.stop();
            }
        }
    }
}
