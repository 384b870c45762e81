package io.replaylab.harness.subject;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Starts {@code replay-lab} (or another main class) as a child JVM from the test classpath, output to files. */
final class Launch {
    private Launch() {
    }

    static Process start(Path logDir, String name, String mainClass, String... args) throws IOException {
        return start(logDir, name, Map.of(), mainClass, args);
    }

    static Process start(Path logDir, String name, Map<String, String> env, String mainClass, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        return pb
                .redirectOutput(logDir.resolve(name + ".out").toFile())
                .redirectError(logDir.resolve(name + ".err").toFile())
                .start();
    }

    static Process cli(Path logDir, String name, String... args) throws IOException {
        return start(logDir, name, "io.replaylab.harness.ReplayLab", args);
    }

    static int await(Process p, int seconds) throws InterruptedException {
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("process did not finish within " + seconds + " s");
        }
        return p.exitValue();
    }
}
