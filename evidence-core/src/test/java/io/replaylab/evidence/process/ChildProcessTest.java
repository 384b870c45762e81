package io.replaylab.evidence.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.replaylab.evidence.junit.Prerequisite;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildProcessTest {
    /** Prints "ready", then a tick every 50 ms; on SIGTERM says so and exits 3. */
    private static final String POLITE = "trap 'echo got-term; exit 3' TERM; echo ready; i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.05; done";
    /** Ignores SIGTERM. */
    private static final String STUBBORN = "trap '' TERM; echo ready; while true; do sleep 0.05; done";

    @TempDir
    Path dir;

    private ChildProcess sh(String name, String script) {
        return ChildProcess.of(List.of("/bin/sh", "-c", script)).name(name).output(dir.resolve(name + ".out"), dir.resolve(name + ".err")).start();
    }

    /**
     * A wrapper that did not {@code exec} its program, in a process group of its own ({@code setsid}, as
     * the lab starts subjects): the shell is the child's pid, the program its child. The program prints
     * its own pid, then a tick every 50 ms; on SIGTERM it says so and exits.
     */
    private ChildProcess wrapper(String name) {
        String program = "trap \"echo program-got-term; exit 0\" TERM; echo program $$; while true; do echo tick; sleep 0.05; done";
        String wrapper = "/bin/sh -c '" + program + "'; echo wrapper-after-program";
        return ChildProcess.of(List.of("/usr/bin/setsid", "/bin/sh", "-c", wrapper)).ownProcessGroup(true).name(name)
                .output(dir.resolve(name + ".out"), dir.resolve(name + ".err")).start();
    }

    private static long ticks(ChildProcess p) {
        try {
            return Files.readAllLines(p.stdout()).stream().filter("tick"::equals).count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** setsid(1) makes the process groups these tests signal ({@code .ci/run} installs util-linux). */
    private static void requireSetsid() {
        if (!Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            Prerequisite.missing("no /usr/bin/setsid; install it with: sudo apt-get install -y util-linux");
        }
    }

    private long programPid(ChildProcess p) throws Exception {
        p.awaitOutput("program ", Duration.ofSeconds(10));
        String line = Files.readAllLines(p.stdout()).stream().filter(l -> l.startsWith("program ")).findFirst().orElseThrow();
        return Long.parseLong(line.substring("program ".length()).trim());
    }

    @Test
    void aWrappersProgramIsFrozenThawedStoppedAndKilledWithItBecauseSignalsGoToTheProcessGroup() throws Exception {
        requireSetsid();
        ChildProcess p = wrapper("wrapped");
        long program = programPid(p);
        assertThat(program).isNotEqualTo(p.pid());

        p.freeze();
        assertThat(p.isFrozen()).isTrue();
        long ticks = Files.readAllLines(p.stdout()).stream().filter("tick"::equals).count();
        Thread.sleep(300);
        assertThat(Files.readAllLines(p.stdout()).stream().filter("tick"::equals).count()).as("the program is stopped too, not only the wrapper")
                .isEqualTo(ticks);
        p.thaw();
        Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(5)).until(() -> ticks(p) > ticks);

        assertThat(p.stop(Duration.ofSeconds(10)).how()).isEqualTo("SIGTERM");
        assertThat(Files.readString(p.stdout())).as("SIGTERM reached the program under the wrapper").contains("program-got-term");
        assertThat(ProcessHandle.of(program).map(ProcessHandle::isAlive).orElse(false)).isFalse();

        ChildProcess q = wrapper("crashed");
        long other = programPid(q);
        q.kill();
        Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(other).map(h -> !h.isAlive()).orElse(true));
        assertThat(ProcessHandle.of(other).map(ProcessHandle::isAlive).orElse(false)).as("SIGKILL took the program with the wrapper").isFalse();
        assertThat(Files.readString(q.stdout())).doesNotContain("program-got-term").doesNotContain("wrapper-after-program");
    }

    @Test
    void aGroupWhoseLeaderExitedIsStillStoppedWhenTheProgramSaidItLeadsItsGroup() throws Exception {
        requireSetsid();
        // the leader starts its program in the background and exits at once: only the group still names the program
        ChildProcess p = ChildProcess.of(List.of("/usr/bin/setsid", "/bin/sh", "-c", "sleep 300 & echo program $!")).ownProcessGroup(true)
                .name("leaves").output(dir.resolve("leaves.out"), dir.resolve("leaves.err")).start();
        long program = programPid(p);
        p.process().waitFor();
        assertThat(ProcessHandle.of(program).map(ProcessHandle::isAlive)).contains(true);

        assertThat(p.stop(Duration.ofSeconds(10)).how()).isEqualTo("SIGTERM");
        Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(program).map(h -> !h.isAlive()).orElse(true));
        assertThat(ProcessHandle.of(program).map(ProcessHandle::isAlive).orElse(false)).as("the group's program was stopped too").isFalse();
    }

    @Test
    void aProgramStartsInTheWorkingDirectoryItIsGivenAndAMissingOneIsNamed() throws Exception {
        Path work = Files.createDirectories(dir.resolve("work"));
        ChildProcess p = ChildProcess.of(List.of("/bin/sh", "-c", "pwd")).directory(work).output(dir.resolve("pwd.out"), dir.resolve("pwd.err")).start();
        p.process().waitFor();
        assertThat(Files.readString(p.stdout()).trim()).isEqualTo(work.toRealPath().toString());
        assertThatThrownBy(() -> ChildProcess.of(List.of("/bin/true")).directory(dir.resolve("nope")).start())
                .isInstanceOf(ChildProcessException.class).hasMessageContaining("its working directory").hasMessageContaining("is no directory");
    }

    @Test
    void aTemplateSplitsLikeAShellAndAValueWithSpacesStaysOneWord() {
        assertThat(ChildProcess.commandLine("'/opt/my java' -cp {cp} --db {db} --x \"a b\" ''", Map.of("cp", "lib/*", "db", "/tmp/x y.db")))
                .containsExactly("/opt/my java", "-cp", "lib/*", "--db", "/tmp/x y.db", "--x", "a b", "");
        assertThatThrownBy(() -> ChildProcess.commandLine("java 'oops", Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unclosed quote");
    }

    @Test
    void theTailOfStderrSaysWhatWentWrongWithoutTheStackFrames() throws Exception {
        ChildProcess p = sh("crashing", "printf 'starting\\nfatal: KafkaException: Unexpected error in commit\\n\\tat a.B.c(B.java:1)\\n"
                + "\\tat a.B.d(B.java:2)\\nCaused by: x.Y: why\\n\\t... 3 more\\n' >&2; exit 1");
        p.process().waitFor();

        assertThat(p.stderrTail(2)).isEqualTo("fatal: KafkaException: Unexpected error in commit | Caused by: x.Y: why");
        assertThat(p.stderrTail(5)).isEqualTo("starting | fatal: KafkaException: Unexpected error in commit | Caused by: x.Y: why");
    }

    @Test
    void stopSendsSigtermAndTheProgramFinishesOnItsOwnTerms() throws Exception {
        ChildProcess p = sh("polite", POLITE);
        p.awaitOutput("ready", Duration.ofSeconds(10));
        ChildProcess.Stopped s = p.stop(Duration.ofSeconds(10));
        assertThat(s).isEqualTo(new ChildProcess.Stopped(3, "SIGTERM"));
        assertThat(Files.readString(p.stdout())).contains("got-term");
        assertThat(p.stop(Duration.ofSeconds(1)).how()).isEqualTo("its own exit");
    }

    @Test
    void stopKillsAProgramThatIgnoresSigtermAfterTheGracePeriod() {
        ChildProcess p = sh("stubborn", STUBBORN);
        p.awaitOutput("ready", Duration.ofSeconds(10));
        ChildProcess.Stopped s = p.stop(Duration.ofSeconds(1));
        assertThat(s).isEqualTo(new ChildProcess.Stopped(137, "SIGKILL after 1 s"));
        assertThat(p.isAlive()).isFalse();
    }

    @Test
    void stopAllEndsEveryProgramAndSaysHowTheSlowestEnded() {
        ChildProcess a = sh("a", POLITE);
        ChildProcess b = sh("b", STUBBORN);
        a.awaitOutput("ready", Duration.ofSeconds(10));
        b.awaitOutput("ready", Duration.ofSeconds(10));
        assertThat(ChildProcess.stopAll(List.of(a, b), Duration.ofSeconds(1))).isEqualTo("SIGKILL after 1 s");
        assertThat(a.exitCode()).hasValue(3);
        assertThat(b.exitCode()).hasValue(137);
    }

    @Test
    void killIsSigkillWithNoCleanShutdown() throws Exception {
        ChildProcess p = sh("crash", POLITE);
        p.awaitOutput("ready", Duration.ofSeconds(10));
        p.kill();
        assertThat(p.exitCode()).hasValue(137);
        assertThat(Files.readString(p.stdout())).doesNotContain("got-term");
    }

    @Test
    void aFrozenProgramMakesNoProgressUntilThawed() throws Exception {
        ChildProcess p = sh("frozen", POLITE);
        try {
            p.awaitOutput("tick 2", Duration.ofSeconds(10));
            p.freeze();
            assertThat(p.isFrozen()).isTrue();
            long size = Files.size(p.stdout());
            Thread.sleep(300); // six ticks' worth: none may appear
            assertThat(Files.size(p.stdout())).isEqualTo(size);
            p.thaw();
            assertThat(p.isFrozen()).isFalse();
            long ticks = Files.readAllLines(p.stdout()).stream().filter(l -> l.startsWith("tick")).count();
            p.awaitOutput("tick " + (ticks + 2), Duration.ofSeconds(10));
        } finally {
            p.kill();
        }
    }

    @Test
    void stopThawsAFrozenProgramSoThatItCanActOnSigterm() throws Exception {
        ChildProcess p = sh("frozen-stop", POLITE);
        p.awaitOutput("ready", Duration.ofSeconds(10));
        p.freeze();
        assertThat(p.stop(Duration.ofSeconds(10))).isEqualTo(new ChildProcess.Stopped(3, "SIGTERM"));
        assertThat(Files.readString(p.stdout())).contains("got-term");
    }

    @Test
    void freezingAnExitedProgramSaysItHasExited() {
        ChildProcess p = sh("gone", "exit 5");
        assertThatThrownBy(() -> {
            p.process().waitFor();
            p.freeze();
        }).isInstanceOf(ChildProcessException.class).hasMessageContaining("has exited with code 5");
    }

    @Test
    void awaitingOutputOfAProgramThatExitsQuotesItsExitCodeAndStderr() {
        ChildProcess p = sh("early", "echo 'config missing: /etc/x' >&2; exit 4");
        assertThatThrownBy(() -> p.awaitOutput("ready", Duration.ofSeconds(10))).isInstanceOf(ChildProcessException.class)
                .hasMessageContaining("early exited with code 4").hasMessageContaining("config missing: /etc/x");
    }

    @Test
    void awaitingOutputThatNeverComesEndsAtTheDeadline() {
        ChildProcess p = sh("silent", STUBBORN);
        try {
            assertThatThrownBy(() -> p.awaitOutput("never", Duration.ofMillis(300))).isInstanceOf(ChildProcessException.class)
                    .hasMessageContaining("did not print \"never\" within PT0.3S");
            assertThat(p.isAlive()).isTrue();
        } finally {
            p.kill();
        }
    }

    @Test
    void aProgramThatCannotStartIsNamedInTheError() {
        assertThatThrownBy(() -> ChildProcess.of(List.of(dir.resolve("no-such-program").toString())).name("subject A").start())
                .isInstanceOf(ChildProcessException.class).hasMessageContaining("cannot start subject A").hasMessageContaining("no-such-program");
        assertThatThrownBy(() -> ChildProcess.of(List.of())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
    }

    @Test
    void theEnvironmentIsInheritedWithAdditionsAndRemovals() throws Exception {
        ChildProcess p = ChildProcess.of(List.of("/bin/sh", "-c", "echo \"a=$REPLAYLAB_A home=${HOME:-none}\""))
                .env(Map.of("REPLAYLAB_A", "1")).withoutEnv("HOME").output(dir.resolve("env.out"), dir.resolve("env.err")).start();
        p.process().waitFor();
        assertThat(Files.readString(p.stdout())).contains("a=1 home=none");
    }

    @Test
    void aSuspendedJvmWaitsForItsDebuggerBeforeMain() throws Exception {
        try (ChildProcess p = ChildProcess.of(ChildProcess.java(List.of("-Xmx32m"), HelloMain.class.getName())).name("debuggee")
                .output(dir.resolve("d.out"), dir.resolve("d.err")).debuggerAgent(true, Duration.ofSeconds(60)).start()) {
            int port = p.debugPort().orElseThrow();
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                assertThat(s.isConnected()).isTrue();
            }
            Thread.sleep(500); // main would have run by now, were the JVM not suspended
            assertThat(Files.readString(p.stdout())).doesNotContain("main ran");
        }
    }

    @Test
    void aJvmStartedWithARunningAgentRunsMainAtOnce() {
        try (ChildProcess p = ChildProcess.of(ChildProcess.java(List.of("-Xmx32m"), HelloMain.class.getName())).name("debuggee")
                .output(dir.resolve("r.out"), dir.resolve("r.err")).debuggerAgent(false, Duration.ofSeconds(60)).start()) {
            assertThat(p.debugPort()).isPresent();
            p.awaitOutput("main ran", Duration.ofSeconds(30));
        }
    }

    @Test
    void aProgramThatIsNotAJvmNeverListensForADebuggerAndIsNotLeftRunning() throws IOException {
        ChildProcess.Builder b = ChildProcess.of(List.of("/bin/sh", "-c", "sleep 30")).name("python consumer")
                .output(dir.resolve("n.out"), dir.resolve("n.err")).debuggerAgent(false, Duration.ofMillis(500));
        assertThatThrownBy(b::start).isInstanceOf(ChildProcessException.class).hasMessageContaining("python consumer")
                .hasMessageContaining("is it a JVM?");
        assertThat(ProcessHandle.current().children().filter(h -> h.info().commandLine().orElse("").contains("sleep 30")).count()).isZero();
    }

    @Test
    void withoutAnAgentThereIsNoDebugPort() throws Exception {
        ChildProcess p = ChildProcess.of(List.of("/bin/true")).start();
        p.process().waitFor();
        assertThat(p.debugPort()).isEmpty();
        assertThat(p.exitCode()).hasValue(0);
        assertThat(p.name()).isEqualTo("true");
    }

    @Test
    void theResidentSetSizeIsReadForALiveProcessAndEmptyForAGoneOne() throws Exception {
        ChildProcess p = ChildProcess.of(List.of("sh", "-c", "exit 0")).name("short").start();
        long pid = p.pid();
        p.process().waitFor();

        assertThat(ChildProcess.residentKb(ProcessHandle.current().pid()).orElseThrow()).isGreaterThan(1024);
        assertThat(ChildProcess.residentKb(pid)).isEmpty();
    }

    @Test
    void aFreePortIsNeverHandedOutTwiceByOneJvm() {
        java.util.Set<Integer> ports = new java.util.HashSet<>();
        for (int i = 0; i < 300; i++) {
            assertThat(ports.add(ChildProcess.freeLoopbackPort())).as("port number " + i + " is new").isTrue();
        }
    }
}
