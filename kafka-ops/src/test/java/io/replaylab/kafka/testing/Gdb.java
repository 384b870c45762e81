package io.replaylab.kafka.testing;

import java.nio.file.Files;
import java.nio.file.Path;

import io.replaylab.evidence.junit.Prerequisite;

/**
 * gdb, for the tests of the native barrier. Under CI ({@code CI=true}) a missing gdb fails the
 * test: {@code .ci/run} installs it. Elsewhere the test is skipped with the install command.
 */
public final class Gdb {
    private Gdb() {
    }

    /** The path of gdb on PATH; skips (or fails under CI) when there is none. */
    public static String require() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "gdb"))) {
                return Path.of(dir, "gdb").toString();
            }
        }
        String why = "no gdb on PATH; install it with: sudo apt-get install -y gdb";
        Prerequisite.missing(why);
        return null;
    }
}
