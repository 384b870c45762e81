package io.replaylab.kafka.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.evidence.process.Poll;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.FileLogInputStream;
import org.apache.kafka.common.record.internal.FileRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real multi-broker Apache Kafka cluster on 127.0.0.1: one KRaft controller node of its own and
 * N broker nodes (default 3), each in its own JVM with its own data dir and fixed loopback ports,
 * so a broker can be killed, frozen and restarted while the quorum stays up (with combined nodes,
 * freezing two followers would freeze the quorum too). Same habits as {@link LocalKafka}: lean
 * JVMs, logs in each node's dir, every node exits when its parent dies, clear errors.
 *
 * <pre>{@code
 * try (LocalKafkaCluster cluster = LocalKafkaCluster.custom().brokers(3).build().start()) {
 *     int leader = cluster.leaderOf(new TopicPartition("t", 0));
 *     cluster.kill(leader);                 // SIGKILL
 *     cluster.awaitLeaderOtherThan(new TopicPartition("t", 0), leader, Duration.ofSeconds(30));
 *     cluster.restart(leader);              // same data, same ports
 * }
 * }</pre>
 */
public final class LocalKafkaCluster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LocalKafkaCluster.class);
    /** The controller's node id (brokers are 1..N). */
    public static final int CONTROLLER_ID = 100;

    /**
     * Cluster settings on top of {@link LocalKafkaConfig#LAB_BROKER_DEFAULTS}: internal topics
     * replicated on three brokers, a follower stays in the ISR for 30 s without fetching, a
     * follower's fetch waits at most 500 ms at the leader for new data, and the controller fences a
     * broker that misses its heartbeats for 6 s.
     */
    public static final Map<String, String> CLUSTER_DEFAULTS = Map.of(
            "replica.lag.time.max.ms", "30000",
            "replica.fetch.wait.max.ms", "500",
            "broker.heartbeat.interval.ms", "1000",
            "broker.session.timeout.ms", "6000");

    private final int brokers;
    private final Path workDir;
    private final boolean ownsWorkDir;
    private final Map<String, String> properties;
    private final List<String> jvmOptions;
    private final String classpath;
    private final Duration startTimeout;
    private final Duration stopTimeout;
    private final String clusterId;
    private int controllerPort;
    private final Map<Integer, Integer> ports = new TreeMap<>();
    private final Map<Integer, ChildProcess> nodes = new TreeMap<>();
    private boolean formatted;
    private Admin admin;
    private Thread shutdownHook;

    private LocalKafkaCluster(Builder b) {
        this.brokers = b.brokers;
        this.properties = Map.copyOf(b.properties);
        this.jvmOptions = b.jvmOptions;
        this.classpath = b.classpath;
        this.startTimeout = b.startTimeout;
        this.stopTimeout = b.stopTimeout;
        try {
            this.ownsWorkDir = b.workDir == null;
            this.workDir = ownsWorkDir ? Files.createTempDirectory("replay-lab-cluster-") : b.workDir.toAbsolutePath();
            Files.createDirectories(workDir);
            Path id = workDir.resolve("cluster.id");
            this.formatted = Files.exists(id);
            this.clusterId = formatted ? Files.readString(id).trim() : Uuid.randomUuid().toString();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the cluster work dir", e);
        }
    }

    /** Three brokers and a controller, free ports, a fresh temp dir. */
    public static LocalKafkaCluster create() {
        return custom().build();
    }

    public static Builder custom() {
        return new Builder();
    }

    /**
     * Starts the controller and every broker (all at once) and returns when an Admin client sees all
     * N brokers. Throws {@link LocalKafkaException} naming the node and its last log lines if one
     * cannot start; nothing is left running then.
     */
    public synchronized LocalKafkaCluster start() {
        if (admin != null) {
            return this;
        }
        // the ports are the cluster's own choice until it has started once (then they stay: a restart keeps its brokers' ports)
        return KafkaNode.startTakingNewPortsOnce(!formatted, this::startOnce, () -> {
            ports.clear();
            nodes.keySet().forEach(id -> KafkaNode.deleteRecursively(nodeDir(id)));
            nodes.clear();
        });
    }

    private LocalKafkaCluster startOnce() {
        KafkaNode.checkJava();
        KafkaNode.checkKafkaOnClasspath(classpath);
        controllerPort = KafkaNode.freePort();
        for (int id = 1; id <= brokers; id++) {
            ports.put(id, KafkaNode.freePort());
        }
        long t0 = System.nanoTime();
        shutdownHook = new Thread(this::stopNodes, "replay-lab-cluster-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            launch(CONTROLLER_ID);
            for (int id = 1; id <= brokers; id++) {
                launch(id);
            }
            admin = Admin.create(adminProperties(bootstrapServers()));
            awaitBrokers(Set.copyOf(ports.keySet()), startTimeout);
            Files.writeString(workDir.resolve("cluster.id"), clusterId);
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        formatted = true;
        log.info("Kafka cluster ready at {} ({} brokers, controller pid {}) in {} ms; dir {}", bootstrapServers(), brokers,
                nodes.get(CONTROLLER_ID).pid(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), workDir);
        return this;
    }

    /** Every broker's {@code 127.0.0.1:PORT}, comma separated. */
    public String bootstrapServers() {
        if (ports.isEmpty()) {
            throw new IllegalStateException("the cluster has not been started; call start() first");
        }
        return ports.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** The broker ids, 1..N. */
    public List<Integer> brokerIds() {
        return List.copyOf(ports.keySet());
    }

    /** A broker's PLAINTEXT port (fixed across restarts). */
    public int port(int brokerId) {
        return Optional.ofNullable(ports.get(brokerId)).orElseThrow(() -> unknown(brokerId));
    }

    /** A node's process id ({@link #CONTROLLER_ID} for the controller), while it runs. */
    public long pid(int nodeId) {
        ChildProcess p = nodes.get(nodeId);
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("node " + nodeId + " is not running");
        }
        return p.pid();
    }

    public boolean isRunning(int nodeId) {
        ChildProcess p = nodes.get(nodeId);
        return p != null && p.isAlive();
    }

    /** A node's directory: {@code server.properties}, {@code broker.log}, {@code data/}. */
    public Path nodeDir(int nodeId) {
        return workDir.resolve(nodeId == CONTROLLER_ID ? "controller" : "broker-" + nodeId);
    }

    /** A node's {@code log.dirs}. */
    private Path dataDir(int nodeId) {
        return nodeDir(nodeId).resolve("data");
    }

    public Path workDir() {
        return workDir;
    }

    /** SIGKILL, as a crash: no clean shutdown, the data dir stays. */
    public synchronized void kill(int brokerId) {
        process(brokerId).kill();
    }

    /** SIGSTOP: the broker stops answering and heartbeating; returns once {@code /proc} shows it stopped. */
    public synchronized void freeze(int brokerId) {
        process(brokerId).freeze();
    }

    /** SIGCONT after {@link #freeze}. */
    public synchronized void thaw(int brokerId) {
        process(brokerId).thaw();
    }

    /** Starts a killed or stopped broker again on the same data and the same port, and waits until the cluster sees it. */
    public synchronized void restart(int brokerId) {
        port(brokerId);
        ChildProcess p = nodes.get(brokerId);
        if (p != null && p.isAlive()) {
            p.stop(stopTimeout);
        }
        KafkaNode.requirePortFree(ports.get(brokerId), "broker " + brokerId);
        launch(brokerId);
        awaitBrokers(Set.of(brokerId), startTimeout);
    }

    /** The current leader's broker id of a partition, or -1 when it has none. */
    public int leaderOf(TopicPartition tp) {
        Node leader = partition(tp).leader();
        return leader == null || leader.isEmpty() ? -1 : leader.id();
    }

    /** The in-sync replicas of a partition, by broker id. */
    public List<Integer> isr(TopicPartition tp) {
        return partition(tp).isr().stream().map(Node::id).toList();
    }

    /** The replicas of a partition, by broker id, the preferred leader first. */
    public List<Integer> replicas(TopicPartition tp) {
        return partition(tp).replicas().stream().map(Node::id).toList();
    }

    /** The partition's high watermark: the offset below which every in-sync replica holds the log. */
    public long highWatermark(TopicPartition tp) {
        try {
            return admin().listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(20, TimeUnit.SECONDS).offset();
        } catch (ExecutionException | TimeoutException e) {
            throw new LocalKafkaException("cannot read the high watermark of " + tp + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalKafkaException("interrupted while reading the high watermark of " + tp, e);
        }
    }

    /**
     * The offset after the last record in {@code brokerId}'s own copy of the partition, read from
     * its log files (frozen or killed brokers included). Unlike the {@link #highWatermark}, it
     * counts records the leader acknowledged that its followers do not hold yet: no reader sees
     * those until the high watermark reaches this offset.
     */
    public long logEndOffset(TopicPartition tp, int brokerId) {
        port(brokerId);
        Path dir = dataDir(brokerId).resolve(tp.topic() + "-" + tp.partition());
        Path last;
        // segment files are named by their zero-padded base offset: the last by name holds the newest records, and an empty one
        // (just rolled) starts where the log ends
        try (var files = Files.list(dir)) {
            last = files.filter(f -> f.getFileName().toString().endsWith(".log")).max(Path::compareTo)
                    .orElseThrow(() -> new LocalKafkaException("broker " + brokerId + " has no log segment of " + tp + " in " + dir));
        } catch (IOException e) {
            throw new LocalKafkaException("broker " + brokerId + " has no log of " + tp + " in " + dir + ": " + e, e);
        }
        String name = last.getFileName().toString();
        long end = Long.parseLong(name.substring(0, name.length() - ".log".length()));
        try (FileRecords records = FileRecords.open(last.toFile(), false)) {
            for (FileLogInputStream.FileChannelRecordBatch batch : records.batches()) {
                end = batch.nextOffset();
            }
        } catch (IOException e) {
            throw new LocalKafkaException("cannot read " + last + ": " + e, e);
        }
        return end;
    }

    /** Waits until the partition's high watermark reaches {@code offset} (every in-sync replica holds the log up to it). */
    public void awaitHighWatermark(TopicPartition tp, long offset, Duration timeout) throws InterruptedException {
        long hw = Poll.every(Duration.ofMillis(50)).upTo(timeout).until(() -> highWatermark(tp), h -> h >= offset);
        if (hw < offset) {
            throw new LocalKafkaException("the high watermark of " + tp + " stayed at " + hw + " below " + offset + " for " + timeout);
        }
    }

    /** Waits until the partition has a leader other than {@code previous}; the new leader's id. */
    public int awaitLeaderOtherThan(TopicPartition tp, int previous, Duration timeout) throws InterruptedException {
        int leader = Poll.every(Duration.ofMillis(100)).upTo(timeout).until(() -> {
            try {
                return leaderOf(tp);
            } catch (LocalKafkaException e) {
                return -1; // the metadata is moving; ask again
            }
        }, l -> l >= 0 && l != previous);
        if (leader < 0 || leader == previous) {
            throw new LocalKafkaException("partition " + tp + " had no leader other than broker " + previous + " within " + timeout);
        }
        return leader;
    }

    /** Waits until {@code brokerId} is in the partition's ISR again. */
    public void awaitInIsr(TopicPartition tp, int brokerId, Duration timeout) throws InterruptedException {
        boolean back = Poll.every(Duration.ofMillis(100)).upTo(timeout).until(() -> {
            try {
                return isr(tp).contains(brokerId);
            } catch (LocalKafkaException e) {
                return false; // ask again
            }
        });
        if (!back) {
            throw new LocalKafkaException("broker " + brokerId + " did not rejoin the ISR of " + tp + " within " + timeout);
        }
    }

    /** Stops every node (brokers first, then the controller) and deletes the dir if this cluster created it. */
    @Override
    public synchronized void close() {
        stopNodes();
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
            shutdownHook = null;
        }
        if (ownsWorkDir) {
            KafkaNode.deleteRecursively(workDir);
        }
    }

    private synchronized void stopNodes() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
            admin = null;
        }
        List<ChildProcess> running = nodes.entrySet().stream().filter(x -> x.getKey() != CONTROLLER_ID).map(Map.Entry::getValue)
                .filter(ChildProcess::isAlive).toList();
        running.forEach(p -> {
            if (p.isFrozen()) {
                p.thaw();
            }
        });
        ChildProcess.stopAll(running, stopTimeout);
        ChildProcess controller = nodes.get(CONTROLLER_ID);
        if (controller != null && controller.isAlive()) {
            controller.stop(stopTimeout);
        }
    }

    private static Properties adminProperties(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        // short requests and connection setups: a frozen broker accepts a connection (the kernel does) but answers nothing
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 1000);
        p.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000L);
        p.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 1000L);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        return p;
    }

    /**
     * The partition as the cluster describes it, asked through a fresh Admin client that knows only the
     * brokers that run and are not frozen: it sends its requests over the connection it has, never to a
     * frozen broker, which would take the connection and never answer.
     */
    private TopicPartitionInfo partition(TopicPartition tp) {
        admin();
        String responsive = ports.entrySet().stream().filter(x -> nodes.get(x.getKey()) != null && nodes.get(x.getKey()).isAlive()
                && !nodes.get(x.getKey()).isFrozen()).map(x -> "127.0.0.1:" + x.getValue()).collect(Collectors.joining(","));
        if (responsive.isEmpty()) {
            throw new LocalKafkaException("cannot describe " + tp + ": no broker runs unfrozen");
        }
        try (Admin asking = Admin.create(adminProperties(responsive))) {
            TopicDescription d = asking.describeTopics(List.of(tp.topic())).allTopicNames().get(20, TimeUnit.SECONDS).get(tp.topic());
            if (tp.partition() >= d.partitions().size()) {
                throw new IllegalArgumentException("topic " + tp.topic() + " has no partition " + tp.partition());
            }
            return d.partitions().get(tp.partition());
        } catch (ExecutionException | TimeoutException e) {
            throw new LocalKafkaException("cannot describe " + tp + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalKafkaException("interrupted while describing " + tp, e);
        }
    }

    private Admin admin() {
        if (admin == null) {
            throw new IllegalStateException("the cluster is not running; call start() first");
        }
        return admin;
    }

    private ChildProcess process(int brokerId) {
        port(brokerId);
        ChildProcess p = nodes.get(brokerId);
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("broker " + brokerId + " is not running");
        }
        return p;
    }

    private static IllegalArgumentException unknown(int id) {
        return new IllegalArgumentException("no broker " + id + " in this cluster (brokers are 1..N)");
    }

    private void launch(int nodeId) {
        Path dir = nodeDir(nodeId);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> p = new LinkedHashMap<>();
        p.put("node.id", Integer.toString(nodeId));
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("log.dirs", dataDir(nodeId).toString());
        if (nodeId == CONTROLLER_ID) {
            p.put("process.roles", "controller");
            p.put("listeners", "CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT");
        } else {
            int port = ports.get(nodeId);
            p.put("process.roles", "broker");
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        }
        p.putAll(LocalKafkaConfig.LAB_BROKER_DEFAULTS);
        String rf = Integer.toString(Math.min(3, brokers));
        p.put("offsets.topic.replication.factor", rf);
        p.put("transaction.state.log.replication.factor", rf);
        p.put("share.coordinator.state.topic.replication.factor", rf);
        p.put("default.replication.factor", rf);
        p.putAll(CLUSTER_DEFAULTS);
        p.putAll(properties);
        KafkaNode.writeProperties(dir, p);
        KafkaNode.writeLog4jConfig(dir, "INFO", false);
        List<String> format = formatted || Files.exists(dataDir(nodeId).resolve("meta.properties")) ? List.of()
                : nodeId == CONTROLLER_ID ? List.of(clusterId, "--standalone") : List.of(clusterId);
        nodes.put(nodeId, KafkaNode.launch(nodeId == CONTROLLER_ID ? "the KRaft controller" : "Kafka broker " + nodeId, dir, jvmOptions, classpath,
                format));
    }

    private void awaitBrokers(Set<Integer> wanted, Duration timeout) {
        KafkaNode.awaitRegistered(admin(), wanted, timeout, () -> {
            for (Map.Entry<Integer, ChildProcess> n : nodes.entrySet()) {
                if ((wanted.contains(n.getKey()) || n.getKey() == CONTROLLER_ID) && !n.getValue().isAlive()) {
                    return (n.getKey() == CONTROLLER_ID ? "the controller" : "broker " + n.getKey()) + " exited with code "
                            + n.getValue().exitCode().orElseThrow() + " before the cluster was ready. " + KafkaNode.diagnosis(nodeDir(n.getKey()),
                                    "controller " + controllerPort + ", brokers " + ports.values());
                }
            }
            return null;
        }, () -> {
            List<String> why = new ArrayList<>();
            wanted.forEach(id -> why.add("broker " + id + ": " + KafkaNode.diagnosis(nodeDir(id), "port " + ports.get(id))));
            return "broker(s) " + wanted + " did not register within " + timeout + ". " + String.join("\n", why);
        });
    }

    public static final class Builder {
        private int brokers = 3;
        private Path workDir;
        private final Map<String, String> properties = new LinkedHashMap<>();
        private List<String> jvmOptions = LocalKafkaConfig.DEFAULT_JVM_OPTIONS;
        private String classpath = System.getProperty("java.class.path");
        private Duration startTimeout = Duration.ofSeconds(90);
        private Duration stopTimeout = LocalKafkaConfig.DEFAULT_STOP_TIMEOUT;

        private Builder() {
        }

        /** How many brokers (1..9; default 3), besides the controller. */
        public Builder brokers(int n) {
            if (n < 1 || n > 9) {
                throw new IllegalArgumentException("a local cluster has 1..9 brokers, was " + n);
            }
            this.brokers = n;
            return this;
        }

        /** A directory for every node's data, config and logs; reusing one restarts on its data. Default: a temp dir, deleted on close. */
        public Builder workDir(Path dir) {
            this.workDir = Objects.requireNonNull(dir, "workDir");
            return this;
        }

        /** Overrides one property on every node (e.g. {@code replica.lag.time.max.ms}). */
        public Builder property(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public Builder jvmOptions(List<String> options) {
            this.jvmOptions = List.copyOf(options);
            return this;
        }

        public Builder classpath(String cp) {
            this.classpath = Objects.requireNonNull(cp, "classpath");
            return this;
        }

        public Builder startTimeout(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("startTimeout must be positive, was " + d);
            }
            this.startTimeout = d;
            return this;
        }

        public LocalKafkaCluster build() {
            return new LocalKafkaCluster(this);
        }
    }
}
