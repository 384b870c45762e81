package io.replaylab.harness.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.junit.Prerequisite;
import io.replaylab.harness.lab.Subject;

/**
 * A share consumer that is not a JVM: {@code share_consumer.c} (this package's test resources), C on librdkafka 2.15's share
 * consumer (a preview) and SQLite, compiled with gcc against the librdkafka that {@code .ci/install-librdkafka-share} builds
 * into {@link #LIBRDKAFKA} (or {@code $REPLAYLAB_LIBRDKAFKA}). Under CI ({@code CI=true}) a missing librdkafka, gcc or SQLite
 * header fails the test; elsewhere it is skipped with the command that installs it. Its twins are switches in its
 * environment: {@code NO_INBOX=1} (every delivery applied), {@code QUARANTINE_ACK=REJECT|RELEASE}, {@code ACK_FIRST=1}
 * (ACCEPT and commit before the DB transaction).
 */
final class NativeShareConsumer {
    /** The consumer's effects: one row per applied delivery. */
    static final String TARGET_QUERY = "SELECT message_id, amount FROM c_ledger WHERE ns = {namespace}";
    /** Where {@code .ci/install-librdkafka-share} puts librdkafka 2.15.1. */
    static final Path LIBRDKAFKA = Path.of(System.getenv().getOrDefault("REPLAYLAB_LIBRDKAFKA",
            System.getProperty("user.home") + "/.cache/replay-lab/librdkafka-2.15.1"));

    private NativeShareConsumer() {
    }

    /**
     * The consumer compiled into {@code target/share-consumer/} (once per source and library: a later call finds it), as the
     * lab's share subject, with its settings from the placeholders; skips (or fails under CI) without librdkafka, gcc or SQLite.
     */
    static Subject subject() {
        // positional: the lab's placeholders in the program's order (flags of its own would read as the CLI's)
        return Subject.command("'" + binary() + "' {bootstrap} {topic} {group} {db} {namespace} {instance} {logdir}/{instance}.processing.jsonl");
    }

    private static Path binary() {
        if (!Files.isRegularFile(LIBRDKAFKA.resolve("lib/librdkafka.so")) || !Files.isRegularFile(LIBRDKAFKA.resolve("include/librdkafka/rdkafka.h"))) {
            Prerequisite.missing("no librdkafka 2.15.1 in " + LIBRDKAFKA + "; build it with: .ci/install-librdkafka-share (about 40 s; "
                    + "it needs npm, make, gcc and python3)");
        }
        if (!Files.isRegularFile(Path.of("/usr/include/sqlite3.h"))) {
            Prerequisite.missing("no SQLite header (/usr/include/sqlite3.h); install it with: sudo apt-get install -y libsqlite3-dev");
        }
        Path dir = Path.of("target", "share-consumer").toAbsolutePath();
        try (InputStream in = NativeShareConsumer.class.getResourceAsStream("share_consumer.c")) {
            byte[] source = in.readAllBytes();
            // named for its source and library: another test JVM of this build may be compiling the same one right now
            Path bin = dir.resolve("share_consumer-" + Integer.toHexString(java.util.Arrays.hashCode(source) ^ LIBRDKAFKA.hashCode()));
            if (Files.isExecutable(bin)) {
                return bin;
            }
            Files.createDirectories(dir);
            long pid = ProcessHandle.current().pid();
            Path src = dir.resolve("share_consumer." + pid + ".c");
            Files.write(src, source);
            Path tmp = dir.resolve("share_consumer." + pid);
            String lib = LIBRDKAFKA.resolve("lib").toString();
            Process gcc = new ProcessBuilder(List.of("gcc", "-O2", "-o", tmp.toString(), src.toString(), "-I" + LIBRDKAFKA.resolve("include"), "-L" + lib,
                    "-Wl,-rpath," + lib, "-lrdkafka", "-lsqlite3")).redirectErrorStream(true).start();
            String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!gcc.waitFor(120, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
                throw new IllegalStateException("gcc could not build " + src + " against " + LIBRDKAFKA + ":\n" + out);
            }
            Files.move(tmp, bin, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.deleteIfExists(src);
            return bin;
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().contains("gcc")) {
                Prerequisite.missing("no gcc; install it with: sudo apt-get install -y build-essential");
            }
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while gcc built the share consumer", e);
        }
    }
}
