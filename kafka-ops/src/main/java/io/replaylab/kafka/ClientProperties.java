package io.replaylab.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

import io.replaylab.evidence.BadInputException;
import io.replaylab.evidence.Setting;

/**
 * Properties every Kafka client the lab makes itself takes on top of its own: how to reach a cluster
 * that needs SASL or TLS ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}), as Kafka's tools
 * take them from {@code --command-config}. Only how to connect: a key that would change what a client
 * does ({@code group.instance.id}, {@code transactional.id}, {@code isolation.level}, ...) is refused,
 * as the lab's clients and subjects set those themselves ({@link #CONNECTION_KEYS}). Secret values
 * never leave this object in text: {@link #toString()} and {@link #redacted()} show only a value Kafka
 * defines as other than a PASSWORD, and hide every other.
 *
 * <pre>{@code
 * ClientProperties sasl = ClientProperties.load(Path.of("client.properties")).with("sasl.mechanism", "PLAIN");
 * try (KafkaOps ops = KafkaOps.connect("broker:9093", KafkaOps.DEFAULT_TIMEOUT, sasl)) { ... }
 * }</pre>
 */
public final class ClientProperties {
    /** The properties a client of the lab's takes, as refusals name them. */
    public static final Setting SETTING = Setting.of("KafkaOps", "clientProperties").saidAs("the client properties");
    /** How a hidden value reads. */
    public static final String HIDDEN = "[hidden]";

    /** The keys these take: their prefixes and whole names (how a client connects, authenticates, resolves and retries). */
    public static final String CONNECTION_KEYS = "security.*, sasl.*, ssl.*, socket.*, reconnect.backoff.*, retry.backoff.*, metadata.*, "
            + "client.dns.lookup, client.rack, connections.max.idle.ms, request.timeout.ms, send.buffer.bytes, receive.buffer.bytes";

    private static final ClientProperties NONE = new ClientProperties(Map.of());
    /** The keys Kafka's client configs define with a type other than PASSWORD: their values may be shown (each configDef() is a copy). */
    private static final java.util.Set<String> PLAIN_KEYS = java.util.stream.Stream.of(ConsumerConfig.configDef(), ProducerConfig.configDef(),
            AdminClientConfig.configDef()).flatMap(d -> d.configKeys().values().stream()).filter(k -> k.type != ConfigDef.Type.PASSWORD)
            .map(k -> k.name).collect(java.util.stream.Collectors.toUnmodifiableSet());
    private static final Pattern CONNECTION_KEY = Pattern.compile("(security|sasl|ssl|socket|reconnect\\.backoff|retry\\.backoff|metadata)\\..+"
            + "|client\\.dns\\.lookup|client\\.rack|connections\\.max\\.idle\\.ms|request\\.timeout\\.ms|send\\.buffer\\.bytes|receive\\.buffer\\.bytes");

    private final Map<String, String> values;

    private ClientProperties(Map<String, String> values) {
        this.values = Collections.unmodifiableMap(new TreeMap<>(values));
    }

    public static ClientProperties none() {
        return NONE;
    }

    /** @throws BadInputException when a key is blank */
    public static ClientProperties of(Map<String, String> values) {
        values.forEach((k, v) -> check(k, v, "a property"));
        return values.isEmpty() ? NONE : new ClientProperties(values);
    }

    /**
     * The properties of a Java properties file (Kafka's {@code --command-config} format).
     *
     * @throws BadInputException naming the file when it is missing, unreadable or not properties text
     */
    public static ClientProperties load(Path file) {
        Properties p = new Properties();
        try (var in = Files.newInputStream(file)) {
            p.load(in); // as Kafka's tools load it (ISO-8859-1, escapes)
        } catch (IOException | IllegalArgumentException e) {
            throw new BadInputException("cannot read the client properties file " + file + ": " + e, e, SETTING);
        }
        Map<String, String> m = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> m.put(k.trim(), p.getProperty(k).trim()));
        m.forEach((k, v) -> check(k, v, "the client properties file " + file));
        return of(m);
    }

    /** These with {@code key=value} added or replaced. */
    public ClientProperties with(String key, String value) {
        check(key, value, "a property");
        Map<String, String> m = new TreeMap<>(values);
        m.put(key, value);
        return new ClientProperties(m);
    }

    /**
     * These with one {@code key=value} assignment added.
     *
     * @throws BadInputException naming the text when it has no {@code =} or no key
     */
    public ClientProperties withAssignment(String assignment) {
        int eq = assignment.indexOf('=');
        if (eq <= 0) {
            // not echoed: a value pasted without its key may be a secret
            throw new BadInputException(SETTING + " take key=value; one of " + assignment.length() + " characters has no key", SETTING);
        }
        return with(assignment.substring(0, eq).trim(), assignment.substring(eq + 1).trim());
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    /** The properties with their secrets' values, for a client only. */
    public Map<String, String> asMap() {
        return values;
    }

    /** A new client configuration holding these; the caller puts its own settings after (they win). */
    public Properties properties() {
        Properties p = new Properties();
        p.putAll(values);
        return p;
    }

    /** These, then {@code own} over them: a client configuration. */
    public Map<String, Object> plus(Map<String, ?> own) {
        Map<String, Object> m = new java.util.HashMap<>(values);
        m.putAll(own);
        return m;
    }

    /** The properties with every secret's value {@link #HIDDEN}: what evidence and logs may say. */
    public Map<String, String> redacted() {
        Map<String, String> m = new TreeMap<>();
        values.forEach((k, v) -> m.put(k, isSecret(k) ? HIDDEN : v));
        return Collections.unmodifiableMap(m);
    }

    /**
     * Writes these as a properties file only its owner may read (a program the lab starts reads the
     * secrets there, never from a command line the evidence records), in ISO-8859-1 with escapes as
     * Kafka's own tools read one.
     */
    public void writeTo(Path file) throws IOException {
        Properties p = properties();
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file);
        }
        try (var out = Files.newOutputStream(file)) {
            p.store(out, "replay-lab client properties");
        }
    }

    /** Whether {@code key}'s value is hidden: all but a value Kafka's client configs define with a type other than PASSWORD. */
    public static boolean isSecret(String key) {
        return !PLAIN_KEYS.contains(key); // a key Kafka does not define (a vendor's, a typo's) may hold anything
    }

    private static void check(String key, String value, String where) {
        Objects.requireNonNull(value, "value");
        if (key == null || key.isBlank() || key.chars().anyMatch(Character::isWhitespace)) {
            // not echoed: a key with whitespace in it may be a secret pasted in the wrong place
            throw new BadInputException(where + " has a blank key or one with whitespace in it", SETTING);
        }
        if (!CONNECTION_KEY.matcher(key).matches()) {
            throw new BadInputException(where + " has '" + key + "', which is not how to connect: " + SETTING + " take only " + CONNECTION_KEYS
                    + " (the lab's clients and subjects set the rest themselves)", SETTING);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClientProperties c && c.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /** The properties, secrets hidden. */
    @Override
    public String toString() {
        return redacted().toString();
    }
}
