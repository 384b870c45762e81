package io.replaylab.kafka.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Immutable settings of a {@link LocalKafka}; build with {@link #custom()}. */
public record LocalKafkaConfig(
        int port,
        Path workDir,
        boolean keepWorkDir,
        Map<String, String> brokerProperties,
        List<String> jvmOptions,
        String classpath,
        Duration startTimeout,
        Duration stopTimeout,
        String logLevel,
        boolean requestLog,
        Map<String, String> saslPlainUsers) {

    /**
     * Lab-friendly broker settings: no initial rebalance delay, no linger before an offset commit's
     * write, short session timeouts allowed (both group protocols), share-group record locks down to 1 s, replication factor 1, a small log-cleaner buffer (it is most of the
     * default heap).
     */
    public static final Map<String, String> LAB_BROKER_DEFAULTS = Map.ofEntries(
            Map.entry("offsets.topic.replication.factor", "1"),
            Map.entry("offsets.topic.num.partitions", "5"),
            Map.entry("transaction.state.log.replication.factor", "1"),
            Map.entry("transaction.state.log.min.isr", "1"),
            // a transaction past its timeout is aborted within a second, not within the default ten
            Map.entry("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000"),
            Map.entry("share.coordinator.state.topic.replication.factor", "1"),
            Map.entry("share.coordinator.state.topic.min.isr", "1"),
            // share groups are on by default in 4.4 (the share.version feature, 2 in a freshly formatted store); a lab share
            // group may set share.record.lock.duration.ms as low as 1 s (the broker's floor is 15 s) to see a lock expire quickly
            Map.entry("group.share.min.record.lock.duration.ms", "1000"),
            // as for consumer groups: a share member gets its assignment within a second, a dead one is gone after 6 s
            Map.entry("group.share.heartbeat.interval.ms", "1000"),
            Map.entry("group.share.min.heartbeat.interval.ms", "500"),
            Map.entry("group.share.session.timeout.ms", "6000"),
            Map.entry("group.share.min.session.timeout.ms", "1000"),
            Map.entry("group.initial.rebalance.delay.ms", "0"),
            // the group coordinator writes each offset commit at once instead of lingering 5 ms for more to batch:
            // the subjects commit per record, one at a time
            Map.entry("group.coordinator.append.linger.ms", "0"),
            Map.entry("group.min.session.timeout.ms", "1000"),
            Map.entry("group.consumer.session.timeout.ms", "6000"),
            Map.entry("group.consumer.min.session.timeout.ms", "1000"),
            Map.entry("group.consumer.heartbeat.interval.ms", "1000"),
            Map.entry("group.consumer.min.heartbeat.interval.ms", "500"),
            Map.entry("log.cleaner.dedupe.buffer.size", "8388608"),
            Map.entry("num.partitions", "1"),
            Map.entry("auto.create.topics.enable", "false"));

    /** Modest JVM flags: the broker idles near 170 MB RSS with these (KAFKA-NOTES.md §1). */
    public static final List<String> DEFAULT_JVM_OPTIONS = List.of(
            "-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k",
            "-Djava.awt.headless=true");

    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(15);

    public LocalKafkaConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 (any free port) or 1..65535, was " + port);
        }
        brokerProperties = Map.copyOf(brokerProperties);
        saslPlainUsers = Map.copyOf(saslPlainUsers);
        jvmOptions = List.copyOf(jvmOptions);
        Objects.requireNonNull(classpath, "classpath");
        Objects.requireNonNull(startTimeout, "startTimeout");
        Objects.requireNonNull(stopTimeout, "stopTimeout");
        Objects.requireNonNull(logLevel, "logLevel");
    }

    public static LocalKafkaConfig ofDefaults() {
        return custom().build();
    }

    public static Builder custom() {
        return new Builder();
    }

    public static final class Builder {
        private int port;
        private Path workDir;
        private boolean keepWorkDir;
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();
        private List<String> jvmOptions = DEFAULT_JVM_OPTIONS;
        private String classpath = System.getProperty("java.class.path");
        private Duration startTimeout = DEFAULT_START_TIMEOUT;
        private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
        private String logLevel = "INFO";
        private boolean requestLog;
        private final Map<String, String> saslPlainUsers = new LinkedHashMap<>();

        private Builder() {
        }

        /** The PLAINTEXT port on 127.0.0.1; 0 (the default) picks a free one. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0 (any free port) or 1..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * A directory for data, config and logs; reusing one restarts on existing data, with the same or a newer Kafka only (a
         * newer kafka-storage formats data an older broker may not read). Default: a new temp dir, deleted on close.
         */
        public Builder workDir(Path workDir) {
            this.workDir = Objects.requireNonNull(workDir, "workDir");
            return this;
        }

        /** Keep a temp work dir on close (for post-mortems). */
        public Builder keepWorkDir(boolean keep) {
            this.keepWorkDir = keep;
            return this;
        }

        /** Overrides one broker property (e.g. {@code group.min.session.timeout.ms}). */
        public Builder brokerProperty(String key, String value) {
            brokerProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public Builder jvmOptions(List<String> options) {
            this.jvmOptions = List.copyOf(options);
            return this;
        }

        /**
         * The classpath for the broker JVM; by default this JVM's own, which must hold kafka_2.13. Another Kafka's jars (e.g.
         * {@code dir/*}) run that version's broker: the jar of {@code LocalKafka} itself is added to it, nothing else of ours.
         */
        public Builder classpath(String classpath) {
            this.classpath = Objects.requireNonNull(classpath, "classpath");
            return this;
        }

        public Builder startTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("startTimeout must be positive, was " + timeout);
            }
            this.startTimeout = timeout;
            return this;
        }

        public Builder stopTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("stopTimeout must be positive, was " + timeout);
            }
            this.stopTimeout = timeout;
            return this;
        }

        /** Root log level of the broker's own log file (default INFO). */
        public Builder logLevel(String level) {
            this.logLevel = Objects.requireNonNull(level, "level");
            return this;
        }

        /** Log every request at DEBUG (kafka.request.logger): shows each OFFSET_COMMIT and its error code. */
        public Builder requestLog(boolean on) {
            this.requestLog = on;
            return this;
        }

        /**
         * A second listener, SASL_PLAINTEXT with the PLAIN mechanism, that lets in {@code user} with {@code password} (repeatable
         * for more users): {@link LocalKafka#saslBootstrapServers()} and {@link LocalKafka#saslClient(String)}. The PLAINTEXT
         * listener stays (the broker's own, and every client that needs no login).
         */
        public Builder saslPlainUser(String user, String password) {
            // both go into a JAAS line between quotes, in a properties file: plain printable ASCII, no quote, backslash or space
            for (String v : new String[] {Objects.requireNonNull(user, "user"), Objects.requireNonNull(password, "password")}) {
                if (!v.matches("[!#-\\[\\]-~&&[^=:]]+")) {
                    throw new IllegalArgumentException("a SASL user and password must be printable ASCII without quotes, backslashes, spaces, '=' or ':'");
                }
            }
            saslPlainUsers.put(user, password);
            return this;
        }

        public LocalKafkaConfig build() {
            return new LocalKafkaConfig(port, workDir, keepWorkDir, brokerProperties, jvmOptions, classpath,
                    startTimeout, stopTimeout, logLevel, requestLog, saslPlainUsers);
        }

        /** Builds the config and creates (not starts) the broker. */
        public LocalKafka create() {
            return LocalKafka.create(build());
        }
    }
}
