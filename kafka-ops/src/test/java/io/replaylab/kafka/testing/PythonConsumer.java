package io.replaylab.kafka.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.junit.Prerequisite;


/**
 * The Python subjects for tests: {@code inbox_consumer.py} (a serial inbox consumer on Debian's
 * {@code python3-confluent-kafka}, librdkafka) and its kin, {@code kafka_python_consumer.py} (on
 * {@code python3-kafka}), and the Python that can run them. Under CI ({@code CI=true}) a
 * missing package fails the test: {@code .ci/run} installs it. Elsewhere the test is skipped with
 * the install command.
 */
public final class PythonConsumer {
    /** The consumer's effects: one row per applied delivery. */
    public static final String TARGET_QUERY = "SELECT message_id, amount FROM py_ledger WHERE ns = {namespace}";

    private static final List<String> CANDIDATES = List.of("/usr/bin/python3", "python3");
    private static final String INSTALL = "install it with: sudo apt-get install -y python3-confluent-kafka";

    private PythonConsumer() {
    }

    /** A Python that imports confluent_kafka; skips (or fails under CI) when there is none. */
    public static String python() {
        return pythonWith("confluent_kafka", "confluent_kafka (librdkafka)", INSTALL);
    }

    /** A Python that imports {@code module}; skips (or fails under CI) when there is none, saying {@code install}. */
    private static String pythonWith(String module, String what, String install) {
        for (String p : CANDIDATES) {
            if (runs(p, "import " + module)) {
                return p;
            }
        }
        Prerequisite.missing("no Python with " + what + " found among " + CANDIDATES + "; " + install);
        return null;
    }

    private static boolean runs(String python, String code) {
        try {
            Process p = new ProcessBuilder(python, "-c", code).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The handbook-like consumer's effects ({@code handbook_consumer.py}: configured by its environment, its own shape and tables). */
    public static final String HANDBOOK_TARGET_QUERY = "SELECT payment_id AS message_id, amount_cents AS amount FROM payment_ledger WHERE ns = {namespace}";

    /** What the serial test consumers share (arguments, timeouts, the poll loop, a retried SQLite transaction), copied beside each. */
    private static final String KIT = "consumer_kit.py";

    /** Copies the consumer script into {@code dir} and returns its path. */
    public static Path script(Path dir) {
        return copy(dir, "inbox_consumer.py");
    }

    /**
     * Copies one of the test scripts ({@code inbox_consumer.py}, {@code handbook_consumer.py},
     * {@code handbook_producer.py}) into {@code dir}, executable, and returns its path.
     */
    public static Path copy(Path dir, String name) {
        if (!name.equals(KIT)) {
            copy(dir, KIT); // the module the serial consumers import
        }
        Path target = dir.resolve(name);
        try (InputStream in = PythonConsumer.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not on the test classpath (kafka-ops test-jar)");
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            target.toFile().setExecutable(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return target;
    }

    /** A {@code --subject-cmd} template that runs the consumer ({@code noInbox}: its twin without the inbox check). */
    public static String template(Path dir, boolean noInbox) {
        return template(dir, noInbox ? "--no-inbox" : "");
    }

    /** The template with the script's own flags ({@code --no-inbox}, {@code --commit-first}: its twins). */
    public static String template(Path dir, String flags) {
        return "'" + python() + "' '" + script(dir) + "' --bootstrap {bootstrap} --topic {topic} --group {group} --db {db}"
                + " --namespace {namespace} --instance {instance}" + (flags.isEmpty() ? "" : " " + flags);
    }

    /** The PostgreSQL consumer's effects ({@code pg_inbox_consumer.py}). */
    public static final String PG_TARGET_QUERY = "SELECT message_id, amount FROM pg_ledger WHERE ns = {namespace}";

    /**
     * A template that runs {@code pg_inbox_consumer.py}: a librdkafka consumer on psycopg2 that finds its database in libpq's
     * environment alone (no {@code {db}}), with its own flags ({@code --no-inbox}, {@code --skip-on-error}: its twins); skips
     * (or fails under CI) without psycopg2.
     */
    public static String pgTemplate(Path dir, String flags) {
        String python = python();
        if (!runs(python, "import psycopg2")) {
            Prerequisite.missing("no psycopg2 for " + python + "; install it with: sudo apt-get install -y python3-psycopg2");
        }
        return "'" + python + "' '" + copy(dir, "pg_inbox_consumer.py") + "' --bootstrap {bootstrap} --topic {topic} --group {group}"
                + " --namespace {namespace} --instance {instance}" + (flags.isEmpty() ? "" : " " + flags);
    }

    /** The command for one instance outside the harness. */
    public static List<String> command(Path dir, String bootstrap, String topic, String group, Path db, String namespace, String instance) {
        return List.of(python(), script(dir).toString(), "--bootstrap", bootstrap, "--topic", topic, "--group", group, "--db", db.toString(),
                "--namespace", namespace, "--instance", instance);
    }

    /** The kafka-python consumer's effects ({@code kafka_python_consumer.py}). */
    public static final String KAFKA_PYTHON_TARGET_QUERY = "SELECT message_id, amount FROM kp_ledger WHERE ns = {namespace}";

    /**
     * A template that runs {@code kafka_python_consumer.py}: a serial inbox consumer on kafka-python (Debian's python3-kafka, a
     * client of its own, not librdkafka) with that client's defaults; skips (or fails under CI) without it.
     */
    public static String kafkaPythonTemplate(Path dir) {
        String python = pythonWith("kafka", "kafka-python", "install it with: sudo apt-get install -y python3-kafka");
        return "'" + python + "' '" + copy(dir, "kafka_python_consumer.py") + "' --bootstrap {bootstrap} --topic {topic} --group {group} --db {db}"
                + " --namespace {namespace} --instance {instance}";
    }
}
