package io.replaylab.kafka.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.replaylab.evidence.LogTail;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.evidence.process.ChildProcessException;
import io.replaylab.evidence.process.Poll;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka JVM (a broker, a controller, or both) in a directory of its own: its
 * {@code server.properties}, its log4j config and {@code broker.log}, its launch through
 * {@link BrokerMain}, and what went wrong when it did not start. {@link LocalKafka} runs one;
 * {@link LocalKafkaCluster} runs a controller and N brokers.
 */
final class KafkaNode {
    private static final Logger log = LoggerFactory.getLogger(KafkaNode.class);

    private KafkaNode() {
    }

    /** Writes {@code server.properties} into {@code dir}. */
    static void writeProperties(Path dir, Map<String, String> properties) {
        StringBuilder sb = new StringBuilder("# written by replay-lab\n");
        properties.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        write(dir.resolve("server.properties"), sb.toString());
    }

    /** Writes a log4j2 config that sends the node's whole log to {@code broker.log} in {@code dir}. */
    static void writeLog4jConfig(Path dir, String level, boolean requestLog) {
        String cfg = String.join("\n",
                "status = warn",
                "appender.file.type = File",
                "appender.file.name = file",
                "appender.file.fileName = " + dir.resolve("broker.log").toString().replace("\\", "/"),
                "appender.file.append = true",
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = " + level,
                "rootLogger.appenderRef.file.ref = file",
                "logger.req.name = kafka.request.logger",
                "logger.req.level = " + (requestLog ? "DEBUG" : "WARN"),
                "");
        write(dir.resolve("log4j2.properties"), cfg);
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Launches the node's JVM from the written config in {@code dir}: {@code format} (a cluster id and
     * maybe {@code --standalone}) formats its storage first; empty when it is formatted already.
     */
    static ChildProcess launch(String name, Path dir, List<String> jvmOptions, String classpath, List<String> format) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ChildProcess.javaExecutable());
        cmd.addAll(jvmOptions);
        cmd.add("-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties").toUri());
        cmd.add("-Dkafka.logs.dir=" + dir);
        cmd.add("-cp");
        cmd.add(withBrokerMain(classpath));
        cmd.add(BrokerMain.class.getName());
        cmd.add(dir.resolve("server.properties").toString());
        if (!format.isEmpty()) {
            cmd.add("--format");
            cmd.addAll(format);
        }
        try {
            return ChildProcess.of(cmd).name(name).output(dir.resolve("broker.out"), dir.resolve("broker.err")).start();
        } catch (ChildProcessException e) {
            throw new LocalKafkaException("cannot launch " + name + "'s JVM: " + e.getMessage(), e);
        }
    }

    /**
     * {@code classpath} with the jar (or directory) that holds {@link BrokerMain} after it, unless it is there already: a classpath
     * of other Kafka jars (another version's broker, LocalKafkaConfig's {@code classpath}) needs it, and nothing else of ours.
     */
    static String withBrokerMain(String classpath) {
        java.security.CodeSource source = BrokerMain.class.getProtectionDomain().getCodeSource();
        if (source == null) {
            return classpath;
        }
        String own;
        try {
            own = Path.of(source.getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException | IllegalArgumentException e) {
            return classpath;
        }
        List<String> entries = List.of(classpath.split(java.io.File.pathSeparator));
        return entries.contains(own) ? classpath : classpath + java.io.File.pathSeparator + own;
    }

    /**
     * {@code start}, and once more after {@code forgetPorts} when it failed on a port taken before the node bound it (by
     * another process, or a client's ephemeral port: free ports are picked first and bound later). Only for ports the lab
     * picked itself ({@code portsOfItsOwn}); a port the caller chose stays its error.
     */
    static <T> T startTakingNewPortsOnce(boolean portsOfItsOwn, Supplier<T> start, Runnable forgetPorts) {
        try {
            return start.get();
        } catch (LocalKafkaException e) {
            if (!portsOfItsOwn || e.getMessage() == null || !e.getMessage().contains(PORT_TAKEN)) {
                throw e;
            }
            log.warn("a port picked for a Kafka node was taken before it bound it; starting once more on new ports");
            forgetPorts.run();
            return start.get();
        }
    }

    private static final String PORT_TAKEN = "A port is already in use";

    /** Why a node in {@code dir} did not start, from its output and log: jars, ports ({@code ports} in words), Java version, last errors. */
    static String diagnosis(Path dir, String ports) {
        StringBuilder sb = new StringBuilder();
        Path logFile = dir.resolve("broker.log");
        String err = tail(dir.resolve("broker.err"), 15) + tail(dir.resolve("broker.out"), 15);
        String brokerLog = tail(logFile, 200);
        java.util.Optional<String> mismatch = versionMismatch(System.getProperty("java.class.path"));
        if (mismatch.isPresent() && (err.contains("ClassNotFoundException") || err.contains("NoClassDefFoundError")
                || err.contains("NoSuchMethodError") || err.contains("Could not find or load main class"))) {
            sb.append(mismatch.get()).append(' ');
        } else if (err.contains("ClassNotFoundException") || err.contains("Could not find or load main class")) {
            sb.append("The Kafka broker jars are not on the classpath: add org.apache.kafka:kafka_2.13 and a log4j2 binding. ");
        }
        if (brokerLog.contains("Address already in use") || err.contains("Address already in use")) {
            sb.append(PORT_TAKEN).append(" (").append(ports).append("). ");
        }
        if (err.contains("UnsupportedClassVersionError")) {
            sb.append("The Java runtime is too old for these Kafka jars (Kafka 4 needs Java 17). ");
        }
        sb.append("Last broker output:\n").append(err);
        List<String> errors = brokerLog.lines().filter(l -> l.contains("ERROR") || l.contains("FATAL")).toList();
        if (!errors.isEmpty()) {
            sb.append(String.join("\n", errors.subList(Math.max(0, errors.size() - 5), errors.size())));
        }
        sb.append("\n(full log: ").append(logFile).append(')');
        return sb.toString();
    }

    /**
     * Asks {@code admin} to describe the cluster until it lists every node in {@code wanted}.
     * {@code died} is asked before each try: a message (a node process exited, with why) ends the
     * wait at once; {@code late} gives the message when {@code timeout} passes.
     */
    static void awaitRegistered(Admin admin, Set<Integer> wanted, Duration timeout, Supplier<String> died, Supplier<String> late) {
        boolean registered;
        try {
            registered = Poll.every(Duration.ofMillis(100)).upTo(timeout).until(() -> {
                String dead = died.get();
                if (dead != null) {
                    throw new LocalKafkaException(dead);
                }
                try {
                    return admin.describeCluster(new DescribeClusterOptions().timeoutMs(1000)).nodes().get(1500, TimeUnit.MILLISECONDS)
                            .stream().map(Node::id).collect(Collectors.toSet()).containsAll(wanted);
                } catch (ExecutionException | TimeoutException e) {
                    return false; // not ready yet
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalKafkaException("interrupted while waiting for Kafka to start", e);
        }
        if (!registered) {
            throw new LocalKafkaException(late.get());
        }
    }

    private static final java.util.regex.Pattern JAR = java.util.regex.Pattern.compile("(kafka_2\\.13|kafka-clients)-(\\d[^/\\\\]*?)\\.jar$");

    /**
     * A class path whose broker jar ({@code kafka_2.13}) and client jar ({@code kafka-clients}) differ in version (a build that
     * pins one of them): the broker then fails on a class or method the other version lacks, though both are there. What to
     * do, or empty.
     */
    static java.util.Optional<String> versionMismatch(String classpath) {
        java.util.Map<String, String> versions = new java.util.HashMap<>();
        for (String entry : classpath.split(java.io.File.pathSeparator)) {
            java.util.regex.Matcher m = JAR.matcher(entry);
            if (m.find()) {
                versions.putIfAbsent(m.group(1), m.group(2));
            }
        }
        String broker = versions.get("kafka_2.13");
        String clients = versions.get("kafka-clients");
        if (broker == null || clients == null || broker.equals(clients)) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("The Kafka broker jars are on the classpath, but org.apache.kafka:kafka_2.13 is " + broker
                + " and org.apache.kafka:kafka-clients is " + clients + ": the broker needs both at one version (pin kafka_2.13 to " + clients
                + ", or both to one version).");
    }

    /** The Kafka jars must be on this JVM's classpath when the nodes use it. */
    static void checkKafkaOnClasspath(String classpath) {
        if (!classpath.equals(System.getProperty("java.class.path"))) {
            return; // a custom classpath is checked by the child itself; diagnosis() explains a failure
        }
        try {
            Class.forName("kafka.Kafka", false, KafkaNode.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            java.util.Optional<String> mismatch = versionMismatch(classpath);
            if (mismatch.isPresent()) {
                throw new LocalKafkaException(mismatch.get());
            }
            throw new LocalKafkaException("The Kafka broker jars are not on the classpath (kafka.Kafka not found). "
                    + "Add org.apache.kafka:kafka_2.13:4.4.x and org.apache.logging.log4j:log4j-slf4j2-impl "
                    + "(test scope is enough for tests).");
        }
    }

    static void checkJava() {
        if (Runtime.version().feature() < 17) {
            throw new LocalKafkaException("Kafka 4 needs Java 17 or newer; this JVM is " + Runtime.version());
        }
    }

    static void requirePortFree(int port, String what) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        } catch (IOException e) {
            throw new LocalKafkaException("The " + what + " port 127.0.0.1:" + port
                    + " is already in use; stop whatever holds it or choose another port (0 picks a free one).");
        }
    }

    static int freePort() {
        try {
            return ChildProcess.freeLoopbackPort();
        } catch (UncheckedIOException e) {
            throw new LocalKafkaException("no free loopback port: " + e.getMessage(), e);
        }
    }

    private static String tail(Path file, int lines) {
        List<String> last = LogTail.lastLines(file, lines);
        return last.isEmpty() ? "" : String.join("\n", last) + "\n";
    }

    static void deleteRecursively(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.warn("could not delete {}: {}", dir, e.getMessage());
        }
    }
}
