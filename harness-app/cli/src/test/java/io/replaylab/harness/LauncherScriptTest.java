package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

class LauncherScriptTest {
    /** The bench starts whole runs with {@link ReplayLab#JVM_OPTIONS}: they must be the options a user's {@code ./replay-lab} gets. */
    @Test
    void theLauncherStartsTheCliWithItsJvmOptionsBeforeTheUsers() throws Exception {
        Path script = Path.of("../../replay-lab"); // the module's directory is the test's working directory
        String exec = Files.readAllLines(script).stream().filter(l -> l.startsWith("exec java ")).findFirst().orElseThrow();

        assertThat(exec).startsWith("exec java " + String.join(" ", ReplayLab.JVM_OPTIONS) + " ${REPLAY_LAB_JAVA_OPTS:-} $cds_opts -jar ");
    }
}
