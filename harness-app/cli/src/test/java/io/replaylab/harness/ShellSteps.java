package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.replaylab.evidence.process.ChildProcess;

/**
 * Runs documented shell commands as written, in a directory whose {@code ./replay-lab} is this build's CLI (the launcher would
 * build the jar, which the test phase has not made yet): what a user pastes is what a test ran.
 */
final class ShellSteps {
    private static final Pattern BASH_BLOCK = Pattern.compile("(?ms)^```bash\\n(.*?)^```");

    private ShellSteps() {
    }

    /** {@code dir} with a {@code ./replay-lab} that runs the CLI on this JVM's class path. */
    static Path withLauncher(Path dir) throws IOException {
        Path launcher = dir.resolve("replay-lab");
        Files.writeString(launcher, "#!/usr/bin/env bash\nexec " + String.join(" ", ChildProcess.java(ReplayLab.JVM_OPTIONS, ReplayLab.class.getName())
                .stream().map(a -> "'" + a.replace("'", "'\\''") + "'").toList()) + " \"$@\"\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    /** Runs {@code script} as GitHub's runner runs a step ({@code bash -eo pipefail}) in {@code dir}; what it said, asserting exit 0. */
    static String run(Path dir, String name, String script) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "step", ".log");
        Process p = new ProcessBuilder("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).as(name + " ended").isTrue();
        String said = Files.readString(log);
        assertThat(p.exitValue()).as(name + ":\n" + said).isZero();
        return said;
    }

    /** The first {@code ```bash} block of a Markdown file. */
    static String firstBashBlock(Path markdown) throws IOException {
        Matcher m = BASH_BLOCK.matcher(Files.readString(markdown));
        assertThat(m.find()).as("a bash block in " + markdown).isTrue();
        return m.group(1);
    }
}
