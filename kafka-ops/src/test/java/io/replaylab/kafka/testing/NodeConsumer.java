package io.replaylab.kafka.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import io.replaylab.evidence.junit.Prerequisite;

/**
 * The Node subject for tests: {@code inbox_consumer.js} (a serial inbox consumer on KafkaJS and
 * better-sqlite3, which bundles SQLite in its addon) beside the {@code node_modules} that
 * {@code .ci/run} installs into {@link #DIR} (or {@code $REPLAYLAB_NODE_CONSUMER}). Under CI
 * ({@code CI=true}) a missing install fails the test; elsewhere it is skipped with the command.
 */
public final class NodeConsumer {
    /** The consumer's effects: one row per applied delivery. */
    public static final String TARGET_QUERY = "SELECT message_id, amount FROM js_ledger WHERE ns = {namespace}";
    /** Where the consumer and its node_modules live. */
    public static final Path DIR = Path.of(System.getenv().getOrDefault("REPLAYLAB_NODE_CONSUMER",
            System.getProperty("user.home") + "/.cache/replay-lab/node-consumer"));

    private NodeConsumer() {
    }

    /** A {@code --subject-cmd} template that runs the consumer; skips (or fails under CI) when it is not installed. */
    public static String template() {
        Path modules = DIR.resolve("node_modules");
        if (!Files.isDirectory(modules.resolve("kafkajs")) || !Files.isDirectory(modules.resolve("better-sqlite3/build/Release"))) {
            String why = "no KafkaJS and better-sqlite3 in " + modules + "; install them with: npm install --prefix " + DIR
                    + " kafkajs@2 better-sqlite3@12 (better-sqlite3 builds from source: it needs make, g++ and python3)";
            Prerequisite.missing(why);
        }
        Path script = install("inbox_consumer.js");
        return "node '" + script + "' --bootstrap {bootstrap} --topic {topic} --group {group} --db {db} --namespace {namespace} --instance {instance}";
    }

    /**
     * A template that runs {@code pg_inbox_consumer.js}: a KafkaJS consumer on node-postgres that finds its database in libpq's
     * environment alone (no {@code {db}}); {@code flags}: its own ({@code --no-inbox}). Skips (or fails under CI) without pg.
     */
    public static String pgTemplate(String flags) {
        Path modules = DIR.resolve("node_modules");
        if (!Files.isDirectory(modules.resolve("kafkajs")) || !Files.isDirectory(modules.resolve("pg"))) {
            Prerequisite.missing("no KafkaJS and pg in " + modules + "; install them with: npm install --prefix " + DIR + " kafkajs@2 pg@8");
        }
        return "node '" + install("pg_inbox_consumer.js") + "' --bootstrap {bootstrap} --topic {topic} --group {group} --namespace {namespace} "
                + "--instance {instance}" + (flags.isEmpty() ? "" : " " + flags);
    }

    /** What the Node test consumers share (their arguments), copied beside each. */
    private static final String KIT = "consumer_kit.js";

    /**
     * Copies a script of the tests, and the kit it requires, beside node_modules, where require() finds them; moved whole, as another
     * test fork may be starting it.
     */
    private static Path install(String name) {
        if (!name.equals(KIT)) {
            install(KIT);
        }
        Path script = DIR.resolve(name);
        Path tmp = DIR.resolve(name + "." + ProcessHandle.current().pid());
        try (InputStream in = NodeConsumer.class.getResourceAsStream(name)) {
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, script, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return script;
    }
}
