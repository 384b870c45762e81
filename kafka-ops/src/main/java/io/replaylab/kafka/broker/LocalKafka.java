package io.replaylab.kafka.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import io.replaylab.evidence.process.ChildProcess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Apache Kafka broker (KRaft, combined broker + controller) on 127.0.0.1, run in
 * its own JVM from the Kafka jars on the classpath. Use it in try-with-resources:
 *
 * <pre>{@code
 * try (LocalKafka kafka = LocalKafka.create().start()) {
 *     String bootstrap = kafka.bootstrapServers();
 * }
 * }</pre>
 *
 * <p>{@link #kill()} and {@link #restart()} exist so that tests can take the broker away and bring
 * it back on the same data dir and port. The broker log goes to {@code broker.log} in the data
 * dir's parent, never to the caller's output.
 */
public final class LocalKafka implements AutoCloseable {
    /** The single node's id (broker and controller in one). */
    private static final int NODE_ID = 1;

    private static final Logger log = LoggerFactory.getLogger(LocalKafka.class);
    private static final Pattern VERSION_LINE = Pattern.compile("Kafka version: (\\S+)");
    /** The brokers this JVM runs, by bootstrap: a run handed one's address still knows its version ({@link #versionAt}). */
    private static final Map<String, LocalKafka> RUNNING = new ConcurrentHashMap<>();

    private final LocalKafkaConfig config;
    private final Path workDir;
    private final boolean ownsWorkDir;
    private int brokerPort;
    private int controllerPort;
    /** The SASL_PLAINTEXT listener's port, when the config has SASL users; kept across a restart as the others are. */
    private int saslPort;
    private boolean formatted;
    private ChildProcess process;
    private Thread shutdownHook;

    private LocalKafka(LocalKafkaConfig config) {
        this.config = config;
        try {
            this.ownsWorkDir = config.workDir() == null;
            this.workDir = ownsWorkDir ? Files.createTempDirectory("replay-lab-kafka-") : config.workDir().toAbsolutePath();
            Files.createDirectories(workDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker work dir", e);
        }
        this.brokerPort = config.port();
        this.formatted = Files.exists(dataDir().resolve("meta.properties"));
    }

    /** A broker with lab defaults: free port, fresh temp dir, lab-friendly group settings. */
    public static LocalKafka create() {
        return new LocalKafka(LocalKafkaConfig.ofDefaults());
    }

    public static LocalKafka create(LocalKafkaConfig config) {
        return new LocalKafka(Objects.requireNonNull(config, "config"));
    }

    /**
     * Starts the broker and returns once an Admin client's {@code describeCluster} succeeds.
     *
     * @throws LocalKafkaException naming the cause (port taken, Kafka jars missing, old Java, the
     *     broker's own last log lines) if it cannot start; no process is left behind.
     */
    public synchronized LocalKafka start() {
        if (isRunning()) {
            return this;
        }
        // its half-formatted data goes with the ports it could not bind
        return KafkaNode.startTakingNewPortsOnce(brokerPort == 0 && controllerPort == 0 && !formatted, this::startOnce, () -> {
            removeHook();
            brokerPort = 0;
            controllerPort = 0;
            saslPort = 0;
            KafkaNode.deleteRecursively(workDir.resolve("data"));
        });
    }

    private LocalKafka startOnce() {
        KafkaNode.checkJava();
        KafkaNode.checkKafkaOnClasspath(config.classpath());
        if (brokerPort == 0) {
            brokerPort = KafkaNode.freePort();
        } else {
            KafkaNode.requirePortFree(brokerPort, "broker");
        }
        if (saslPort == 0 && !config.saslPlainUsers().isEmpty()) {
            saslPort = KafkaNode.freePort();
        } else if (saslPort != 0) {
            KafkaNode.requirePortFree(saslPort, "SASL");
        }
        if (controllerPort == 0) {
            controllerPort = KafkaNode.freePort();
        } else {
            KafkaNode.requirePortFree(controllerPort, "controller");
        }
        writeServerProperties();
        KafkaNode.writeLog4jConfig(workDir, config.logLevel(), config.requestLog());
        long t0 = System.nanoTime();
        process = KafkaNode.launch("the Kafka broker", workDir, config.jvmOptions(), config.classpath(),
                formatted ? List.of() : List.of(Uuid.randomUuid().toString(), "--standalone"));
        // the JVM's exit stops the broker cleanly too (SIGTERM, SIGKILL only after the stop timeout); the hook and a
        // stop() from another hook are serialized, so the second finds the broker stopped and never kills it mid-shutdown
        shutdownHook = new Thread(this::stop, "replay-lab-kafka-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            awaitReady();
        } catch (RuntimeException e) {
            destroyQuietly();
            throw e;
        }
        formatted = true;
        RUNNING.put(bootstrapServers(), this);
        log.info("Kafka broker ready at {} (pid {}) in {} ms; dir {}", bootstrapServers(), process.pid(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), workDir);
        return this;
    }

    /** The SASL_PLAINTEXT (PLAIN) listener's address, when the config has SASL users ({@link LocalKafkaConfig.Builder#saslPlainUser}). */
    public Optional<String> saslBootstrapServers() {
        bootstrapServers(); // started?
        return saslPort == 0 ? Optional.empty() : Optional.of("127.0.0.1:" + saslPort);
    }

    /** What a client takes to log in at {@link #saslBootstrapServers()} as {@code user} (one of the config's SASL users). */
    public io.replaylab.kafka.ClientProperties saslClient(String user) {
        String password = config.saslPlainUsers().get(user);
        if (password == null) {
            throw new IllegalArgumentException("no SASL user '" + user + "' on this broker (its users: " + config.saslPlainUsers().keySet() + ")");
        }
        return io.replaylab.kafka.ClientProperties.none().with("security.protocol", "SASL_PLAINTEXT").with("sasl.mechanism", "PLAIN")
                .with("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                        + "\" password=\"" + password + "\";");
    }

    /** {@code 127.0.0.1:PORT}, for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        if (brokerPort == 0) {
            throw new IllegalStateException("the broker has not been started; call start() first");
        }
        return "127.0.0.1:" + brokerPort;
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** The broker process id. */
    public long pid() {
        if (process == null) {
            throw new IllegalStateException("the broker has not been started");
        }
        return process.pid();
    }

    /** The Kafka log dir (the broker's data). */
    public Path dataDir() {
        return workDir.resolve("data");
    }

    /** The directory holding data, config and logs. */
    public Path workDir() {
        return workDir;
    }

    public Path logFile() {
        return workDir.resolve("broker.log");
    }

    /** The broker's version as it logged it at start, e.g. {@code 4.4.0}. */
    public Optional<String> brokerVersion() {
        return grepLog(VERSION_LINE);
    }

    /**
     * The version of the broker this JVM runs at {@code bootstrap} (a {@link LocalKafka} started here), as
     * {@link #brokerVersion()}; empty for any other address.
     */
    public static Optional<String> versionAt(String bootstrap) {
        LocalKafka k = RUNNING.get(bootstrap);
        return k == null || !k.isRunning() ? Optional.empty() : k.brokerVersion();
    }

    /** Stops the broker with SIGTERM and waits for a clean shutdown (SIGKILL after the stop timeout). */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        RUNNING.remove(bootstrapServers(), this);
        process.stop(config.stopTimeout());
        removeHook();
        process = null;
    }

    /** Kills the broker with SIGKILL, as a crash would: no clean shutdown. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        RUNNING.remove(bootstrapServers(), this);
        process.kill();
        removeHook();
        process = null;
    }

    /** Stops (if running) and starts again on the same data dir and the same ports. */
    public synchronized LocalKafka restart() {
        stop();
        return start();
    }

    /** Stops the broker and deletes its data (topics, offsets); its config and {@code broker.log} stay in the work dir. */
    public synchronized void stopAndDeleteData() {
        stop();
        deleteDataOf(workDir);
    }

    /**
     * Deletes the data of a broker that ran in {@code workDir} (its log stays): for whoever cleans
     * up after a run that died with its broker. Nothing there is fine.
     */
    public static void deleteDataOf(Path workDir) {
        KafkaNode.deleteRecursively(workDir.resolve("data"));
    }

    /** Stops the broker; deletes its dir if this fixture created it. */
    @Override
    public synchronized void close() {
        stop();
        if (ownsWorkDir && !config.keepWorkDir()) {
            KafkaNode.deleteRecursively(workDir);
        }
    }

    private void awaitReady() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        try (Admin admin = Admin.create(p)) {
            KafkaNode.awaitRegistered(admin, Set.of(NODE_ID), config.startTimeout(),
                    () -> process.isAlive() ? null : "the broker exited with code " + process.exitCode().orElseThrow() + " before it was ready. " + diagnosis(),
                    () -> "the broker did not answer describeCluster within " + config.startTimeout() + ". " + diagnosis());
        }
    }

    private String diagnosis() {
        return KafkaNode.diagnosis(workDir, "broker " + brokerPort + ", controller " + controllerPort + (saslPort == 0 ? "" : ", SASL " + saslPort));
    }

    private void writeServerProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(NODE_ID));
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
        String sasl = saslPort == 0 ? "" : ",SASL_PLAINTEXT://127.0.0.1:" + saslPort;
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort + sasl);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + sasl);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT" + (sasl.isEmpty() ? "" : ",SASL_PLAINTEXT:SASL_PLAINTEXT"));
        if (!sasl.isEmpty()) {
            p.put("sasl.enabled.mechanisms", "PLAIN");
            StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
            config.saslPlainUsers().forEach((u, pw) -> jaas.append(" user_").append(u).append("=\"").append(pw).append('"'));
            p.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", jaas.append(';').toString());
        }
        p.put("log.dirs", dataDir().toString());
        p.putAll(LocalKafkaConfig.LAB_BROKER_DEFAULTS);
        p.putAll(config.brokerProperties());
        KafkaNode.writeProperties(workDir, p);
    }

    private Optional<String> grepLog(Pattern pattern) {
        try (Stream<String> lines = Files.lines(logFile(), StandardCharsets.UTF_8)) {
            return lines.map(pattern::matcher).filter(Matcher::find).map(m -> m.group(1)).reduce((a, b) -> b);
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    private void destroyQuietly() {
        ChildProcess p = process;
        if (p != null && p.isAlive()) {
            p.kill();
        }
    }

    private void removeHook() {
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
            shutdownHook = null;
        }
    }

}
