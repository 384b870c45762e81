package io.replaylab.kafka.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Uuid;
import io.replaylab.evidence.LogTail;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.evidence.process.ChildProcessException;
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
    private static final Logger log = LoggerFactory.getLogger(LocalKafka.class);
    private static final Pattern VERSION_LINE = Pattern.compile("Kafka version: (\\S+)");

    private final LocalKafkaConfig config;
    private final Path workDir;
    private final boolean ownsWorkDir;
    private int brokerPort;
    private int controllerPort;
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
        checkJava();
        checkKafkaOnClasspath();
        if (brokerPort == 0) {
            brokerPort = freePort();
        } else {
            requirePortFree(brokerPort, "broker");
        }
        if (controllerPort == 0) {
            controllerPort = freePort();
        } else {
            requirePortFree(controllerPort, "controller");
        }
        Path props = writeServerProperties();
        Path log4j = writeLog4jConfig();
        List<String> cmd = new ArrayList<>();
        cmd.add(ChildProcess.javaExecutable());
        cmd.addAll(config.jvmOptions());
        cmd.add("-Dlog4j2.configurationFile=" + log4j.toUri());
        cmd.add("-Dkafka.logs.dir=" + workDir);
        cmd.add("-cp");
        cmd.add(config.classpath());
        cmd.add(BrokerMain.class.getName());
        cmd.add(props.toString());
        if (!formatted) {
            cmd.add("--format");
            cmd.add(Uuid.randomUuid().toString());
        }
        long t0 = System.nanoTime();
        try {
            process = ChildProcess.of(cmd).name("the Kafka broker").output(workDir.resolve("broker.out"), workDir.resolve("broker.err")).start();
        } catch (ChildProcessException e) {
            throw new LocalKafkaException("cannot launch the broker JVM: " + e.getMessage(), e);
        }
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
        log.info("Kafka broker ready at {} (pid {}) in {} ms; dir {}", bootstrapServers(), process.pid(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), workDir);
        return this;
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

    /** The broker's version as it logged it at start, e.g. {@code 4.1.2}. */
    public Optional<String> brokerVersion() {
        return grepLog(VERSION_LINE);
    }

    /** Stops the broker with SIGTERM and waits for a clean shutdown (SIGKILL after the stop timeout). */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.stop(config.stopTimeout());
        removeHook();
        process = null;
    }

    /** Kills the broker with SIGKILL, as a crash would: no clean shutdown. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
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
        deleteRecursively(dataDir());
    }

    /** Stops the broker; deletes its dir if this fixture created it. */
    @Override
    public synchronized void close() {
        stop();
        if (ownsWorkDir && !config.keepWorkDir()) {
            deleteRecursively(workDir);
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + config.startTimeout().toNanos();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        try (Admin admin = Admin.create(p)) {
            while (true) {
                if (!process.isAlive()) {
                    throw new LocalKafkaException("the broker exited with code " + process.exitCode().orElseThrow()
                            + " before it was ready. " + diagnosis());
                }
                try {
                    admin.describeCluster(new DescribeClusterOptions().timeoutMs(1000)).clusterId().get(1500, TimeUnit.MILLISECONDS);
                    return;
                } catch (ExecutionException | TimeoutException e) {
                    // not ready yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LocalKafkaException("interrupted while waiting for the broker", e);
                }
                if (System.nanoTime() > deadline) {
                    throw new LocalKafkaException("the broker did not answer describeCluster within "
                            + config.startTimeout() + ". " + diagnosis());
                }
                sleep(100);
            }
        }
    }

    private String diagnosis() {
        StringBuilder sb = new StringBuilder();
        String err = tail(workDir.resolve("broker.err"), 15) + tail(workDir.resolve("broker.out"), 15);
        String brokerLog = tail(logFile(), 200);
        if (err.contains("ClassNotFoundException") || err.contains("Could not find or load main class")) {
            sb.append("The Kafka broker jars are not on the classpath: add org.apache.kafka:kafka_2.13 and a log4j2 binding. ");
        }
        if (brokerLog.contains("Address already in use") || err.contains("Address already in use")) {
            sb.append("A port is already in use (broker ").append(brokerPort).append(", controller ").append(controllerPort).append("). ");
        }
        if (err.contains("UnsupportedClassVersionError")) {
            sb.append("The Java runtime is too old for these Kafka jars (Kafka 4.1 needs Java 17). ");
        }
        sb.append("Last broker output:\n").append(err);
        List<String> errors = brokerLog.lines().filter(l -> l.contains("ERROR") || l.contains("FATAL")).toList();
        if (!errors.isEmpty()) {
            sb.append(String.join("\n", errors.subList(Math.max(0, errors.size() - 5), errors.size())));
        }
        sb.append("\n(full log: ").append(logFile()).append(')');
        return sb.toString();
    }

    private Path writeServerProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        p.put("log.dirs", dataDir().toString());
        p.putAll(LocalKafkaConfig.LAB_BROKER_DEFAULTS);
        p.putAll(config.brokerProperties());
        StringBuilder sb = new StringBuilder("# written by replay-lab LocalKafka\n");
        p.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        Path file = workDir.resolve("server.properties");
        try {
            Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    private Path writeLog4jConfig() {
        String cfg = String.join("\n",
                "status = warn",
                "appender.file.type = File",
                "appender.file.name = file",
                "appender.file.fileName = " + logFile().toString().replace("\\", "/"),
                "appender.file.append = true",
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = " + config.logLevel(),
                "rootLogger.appenderRef.file.ref = file",
                "logger.req.name = kafka.request.logger",
                "logger.req.level = " + (config.requestLog() ? "DEBUG" : "WARN"),
                "");
        Path file = workDir.resolve("log4j2.properties");
        try {
            Files.writeString(file, cfg, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    private void checkKafkaOnClasspath() {
        if (!config.classpath().equals(System.getProperty("java.class.path"))) {
            return; // a custom classpath is checked by the child itself; diagnosis() explains a failure
        }
        try {
            Class.forName("kafka.Kafka", false, LocalKafka.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new LocalKafkaException("The Kafka broker jars are not on the classpath (kafka.Kafka not found). "
                    + "Add org.apache.kafka:kafka_2.13:4.1.x and org.apache.logging.log4j:log4j-slf4j2-impl "
                    + "(test scope is enough for tests).");
        }
    }

    private static void checkJava() {
        if (Runtime.version().feature() < 17) {
            throw new LocalKafkaException("Kafka 4.1 needs Java 17 or newer; this JVM is " + Runtime.version());
        }
    }

    private static void requirePortFree(int port, String what) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            throw new LocalKafkaException("The " + what + " port 127.0.0.1:" + port
                    + " is already in use; stop whatever holds it or choose another port (0 picks a free one).");
        }
    }

    private static int freePort() {
        try {
            return ChildProcess.freeLoopbackPort();
        } catch (UncheckedIOException e) {
            throw new LocalKafkaException("no free loopback port: " + e.getMessage(), e);
        }
    }

    private Optional<String> grepLog(Pattern pattern) {
        try (Stream<String> lines = Files.lines(logFile(), StandardCharsets.UTF_8)) {
            return lines.map(pattern::matcher).filter(Matcher::find).map(m -> m.group(1)).reduce((a, b) -> b);
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    private static String tail(Path file, int lines) {
        List<String> last = LogTail.lastLines(file, lines);
        return last.isEmpty() ? "" : String.join("\n", last) + "\n";
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

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalKafkaException("interrupted while waiting for the broker", e);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.warn("could not delete {}: {}", dir, e.getMessage());
        }
    }
}
