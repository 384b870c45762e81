package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import io.replaylab.kafka.testing.Gdb;
import io.replaylab.kafka.testing.PythonConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A signal to the harness alone (not its process group) never leaves a process of the run behind, and the run still has its report. */
@LocalKafkaTest
class InterruptedRunTest {
    @TempDir
    Path dir;

    private final List<ProcessHandle> seen = new ArrayList<>();
    private Process harness;

    @AfterEach
    void killLeftovers() {
        if (harness != null) {
            harness.destroyForcibly();
        }
        seen.forEach(ProcessHandle::destroyForcibly);
    }

    private Process run(LocalKafka kafka, String... extra) throws Exception {
        return start(List.of(), kafka, extra);
    }

    /** The harness as a CI runner starts a job: leader of a session and process group of its own (pid = PGID = SID). */
    private Process runInOwnSession(LocalKafka kafka, String... extra) throws Exception {
        return start(List.of("setsid"), kafka, extra);
    }

    private Process start(List<String> prefix, LocalKafka kafka, String... extra) throws Exception {
        // a test JVM started in the background inherits SIGINT ignored (bash does that for asynchronous commands), and a JVM
        // keeps an inherited SIG_IGN: reset it, as an interactive terminal would have it, or the SIGINT test tests nothing
        List<String> cmd = new ArrayList<>(prefix); // setsid and env both exec: the harness keeps the pid started here
        cmd.addAll(List.of("env", "--default-signal=INT"));
        // kafka null: the run starts what it needs itself (durability its own cluster)
        // -Xshare:auto (the JVM's default) keeps the harness from dumping a class-data archive at its exit: a JVM that dumps
        // does so even at Runtime.halt, which under load took over 3 s of the "killed at once" measured here (first launch)
        cmd.addAll(ChildProcess.java(ChildProcess.shortLived("-Xmx256m", "-Xshare:auto"), ReplayLab.class.getName(), "run",
                "--workdir", dir.resolve("runs").toString(), "--records", "60"));
        if (kafka != null) {
            cmd.addAll(List.of("--bootstrap-server", kafka.bootstrapServers()));
        }
        cmd.addAll(List.of(extra));
        harness = new ProcessBuilder(cmd).redirectOutput(dir.resolve("harness.out").toFile()).redirectError(dir.resolve("harness.err").toFile()).start();
        return harness;
    }

    /** Waits for a progress line, then remembers every process the harness has started so far. */
    private void awaitStep(String text) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.readString(dir.resolve("harness.out")).contains(text)) {
            assertThat(harness.isAlive()).as("the harness ended before '" + text + "':\n" + Files.readString(dir.resolve("harness.out"))
                    + Files.readString(dir.resolve("harness.err"))).isTrue();
            assertThat(System.nanoTime()).as("no '" + text + "' within 120 s").isLessThan(deadline);
            Thread.sleep(100);
        }
        harness.descendants().forEach(seen::add);
    }

    /** The harness's output, read only if an assertion's message is built. */
    private Object outputOnFailure() {
        return new Object() {
            @Override
            public String toString() {
                return outputQuietly();
            }
        };
    }

    private String outputQuietly() {
        try {
            return output();
        } catch (Exception e) {
            return "(no output: " + e + ")";
        }
    }

    private String output() throws Exception {
        return Files.readString(dir.resolve("harness.out")) + Files.readString(dir.resolve("harness.err"));
    }

    private void signal(String name) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + name, Long.toString(harness.pid())).start().waitFor()).isZero();
    }

    private void assertNothingLeftWithin(Duration d) throws Exception {
        long deadline = System.nanoTime() + d.toNanos();
        while (seen.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(seen).as("processes of the run").isNotEmpty().noneMatch(ProcessHandle::isAlive);
    }

    private RunEvidence evidence() throws Exception {
        try (Stream<Path> runs = Files.list(dir.resolve("runs"))) {
            Path runDir = runs.filter(Files::isDirectory).findFirst().orElseThrow();
            assertThat(runDir.resolve("report.md")).exists();
            assertThat(runDir.resolve("report.html")).exists();
            return Evidence.read(runDir.resolve("evidence.json"));
        }
    }

    private static ExperimentEvidence experiment(RunEvidence r, String name) {
        return r.experiments().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void sigtermWhileAIsHeldStopsEverythingSavesTheProtocolAndExits143(LocalKafka kafka) throws Exception {
        run(kafka, "--experiment", "rebalance");
        awaitStep("waiting for"); // A is held (by the debugger) and B runs: the harness waits for the handoff
        assertThat(seen).hasSizeGreaterThanOrEqualTo(2);

        harness.destroy(); // SIGTERM to the harness alone

        assertThat(harness.waitFor(15, TimeUnit.SECONDS)).as("the harness stopped within 15 s:\n%s", outputOnFailure()).isTrue();
        assertThat(harness.exitValue()).as(output()).isEqualTo(143);
        assertNothingLeftWithin(Duration.ofSeconds(15));
        ExperimentEvidence x = experiment(evidence(), "rebalance");
        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(x.outcome().reason()).startsWith("interrupted by SIGTERM during rebalance: waiting for");
        assertThat(x.events()).extracting(e -> e.type()).contains("barrier-released", "process-stopped");
        assertThat(Files.readString(dir.resolve("harness.err"))).contains("interrupted by SIGTERM; the protocol is saved");
    }

    @Test
    void sigintDuringADrainStopsEveryRunningExperimentAndTheRestIsNotStarted(LocalKafka kafka) throws Exception {
        run(kafka, "--barrier", "wire", "--parallel", "2");
        awaitStep("replay: consumer A drains");
        awaitStep("rebalance: wire barrier armed");

        signal("INT");

        // the harness's own deadline is 15 s; 30 s here so that a loaded machine shows which path it took (exit code, protocol)
        assertThat(harness.waitFor(30, TimeUnit.SECONDS)).as("the harness stopped within 30 s:\n%s", outputOnFailure()).isTrue();
        assertThat(harness.exitValue()).as(output()).isEqualTo(130);
        assertNothingLeftWithin(Duration.ofSeconds(15));
        RunEvidence r = evidence();
        assertThat(experiment(r, "replay").outcome().reason()).startsWith("interrupted by SIGINT during replay:");
        assertThat(experiment(r, "rebalance").outcome().reason()).as("it ran beside replay").startsWith("interrupted by SIGINT during rebalance:");
        assertThat(experiment(r, "rebuild").outcome().reason()).isEqualTo("not started: the run was interrupted by SIGINT");
    }

    @Test
    void aSecondSignalDuringTheShutdownKillsTheChildrenAtOnce(LocalKafka kafka) throws Exception {
        run(kafka, "--experiment", "rebalance");
        awaitStep("waiting for");

        harness.destroy();
        // the first one started the orderly stop (A and B get 3 s each to finish); the second is sent once the harness said
        // so: a fixed 100 ms between them was once too short on a loaded machine, and the 3 s below counted the first's stop
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!Files.readString(dir.resolve("harness.err")).contains("SIGTERM received: stopping the run")) { // a warning: on stderr
            assertThat(System.nanoTime()).as("the first SIGTERM not acknowledged within 30 s:\n%s", outputQuietly()).isLessThan(deadline);
            Thread.sleep(20);
        }
        harness.destroy();

        assertThat(harness.waitFor(3, TimeUnit.SECONDS)).as("out at once, no grace period:\n%s", outputQuietly()).isTrue();
        assertThat(harness.exitValue()).as(output()).isEqualTo(143);
        assertThat(output()).contains("SIGTERM during the shutdown: killing the remaining children now");
        assertNothingLeftWithin(Duration.ofSeconds(5));
    }

    @Test
    void sigkillOfTheHarnessAloneLeavesNoSubjectBehind(LocalKafka kafka) throws Exception {
        run(kafka, "--experiment", "rebalance", "--barrier", "wire");
        awaitStep("waiting for");
        assertThat(seen).hasSizeGreaterThanOrEqualTo(3); // A, B and the watchdog

        harness.destroyForcibly(); // SIGKILL: no hook, no handler runs

        assertNothingLeftWithin(Duration.ofSeconds(15));
    }

    /**
     * What a CI job's timeout does (the watchdog must not be in the group it kills), and what the
     * user does next: {@code cleanup} lists the dead run, refused it while it lived, and removes only
     * its own namespace; a topic and a group beside it stay.
     */
    @Test
    void sigkillOfTheWholeProcessGroupWhileAIsHeldLeavesNothingBehindAndCleanupRemovesOnlyTheDeadRunsNamespace(LocalKafka kafka) throws Exception {
        String sharedTopic = "shared-" + ProcessHandle.current().pid() + "-payments";
        String sharedGroup = "shared-" + ProcessHandle.current().pid() + "-group";
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(sharedTopic, 1, (short) 1))).all().get(10, TimeUnit.SECONDS);
            Clients.commit(admin, sharedGroup, new TopicPartition(sharedTopic, 0), 0);
            runInOwnSession(kafka, "--experiment", "rebalance");
            awaitStep("waiting for"); // A is held by the debugger, B runs
            assertThat(seen).hasSizeGreaterThanOrEqualTo(3); // A, B and the watchdog
            Path runs = dir.resolve("runs");
            String runId;
            try (Stream<Path> s = Files.list(runs)) {
                runId = s.findFirst().orElseThrow().getFileName().toString();
            }
            Console alive = Console.run("cleanup", "--workdir", runs.toString(), "--run", runId);
            assertThat(alive.rc()).as(alive.err()).isEqualTo(4);
            assertThat(alive.err()).contains("error: refused: run " + runId + " is still running (pid " + harness.pid() + ")");

            assertThat(new ProcessBuilder("kill", "-s", "KILL", "--", "-" + harness.pid()).start().waitFor()).isZero();

            assertNothingLeftWithin(Duration.ofSeconds(5 + 3)); // the watchdog's 2 s grace, and slack for a loaded machine
            String prefix = "rl-" + runId.substring(runId.lastIndexOf('-') + 1);
            assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).anyMatch(t -> t.startsWith(prefix + "."));
            Console listed = Console.run("cleanup", "--workdir", runs.toString());
            assertThat(listed.rc()).isEqualTo(0);
            assertThat(listed.out()).contains(runId + ": died before its protocol was saved",
                    "  topics and groups " + prefix + ".* on " + kafka.bootstrapServers(), "--run ID (or --all-dead)");

            // the dead members stay in their group until their sessions time out: until then a group is "NOT deleted", and the run stays listed
            Console removed = Console.run("cleanup", "--workdir", runs.toString(), "--all-dead");
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (removed.rc() != 0 && System.nanoTime() < deadline) {
                assertThat(removed.out()).as(removed.err()).contains("NOT deleted");
                Thread.sleep(2000);
                removed = Console.run("cleanup", "--workdir", runs.toString(), "--all-dead");
            }
            assertThat(removed.rc()).as(removed.both()).isEqualTo(0);
            assertThat(removed.out()).contains("cleaning up " + runId);
            assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).noneMatch(t -> t.startsWith(prefix + ".")).contains(sharedTopic);
            assertThat(admin.listGroups().all().get(10, TimeUnit.SECONDS)).extracting(g -> g.groupId())
                    .noneMatch(g -> g.startsWith(prefix + ".")).contains(sharedGroup);
            assertThat(dir.resolve("runs").resolve(runId).resolve("evidence.json")).exists();
            assertThat(Console.run("cleanup", "--workdir", runs.toString()).out()).contains("no run under " + runs + " left anything behind");
            admin.deleteTopics(List.of(sharedTopic)).all().get(10, TimeUnit.SECONDS);
            admin.deleteConsumerGroups(List.of(sharedGroup)).all().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * A frozen broker never reads the pipe whose end would stop it: with the harness SIGKILLed alone
     * while durability's followers are frozen, the watchdog kills the cluster's nodes by pid.
     */
    @Test
    void sigkillOfTheHarnessAloneWhileAClusterBrokerIsFrozenLeavesNoNodeBehind() throws Exception {
        runInOwnSession(null, "--experiment", "durability");
        long deadline = System.nanoTime() + 180_000_000_000L;
        boolean frozen = false;
        while (!frozen && System.nanoTime() < deadline && harness.isAlive()) {
            frozen = harness.descendants().anyMatch(InterruptedRunTest::stopped);
            Thread.sleep(20);
        }
        assertThat(frozen).as("a follower broker was frozen within 180 s:\n%s", outputOnFailure()).isTrue();
        harness.descendants().forEach(seen::add);
        assertThat(seen).as("the controller, three brokers and the watchdog").hasSizeGreaterThanOrEqualTo(5);

        harness.destroyForcibly(); // SIGKILL of the harness alone: no hook runs, the frozen node reads nothing

        assertNothingLeftWithin(Duration.ofSeconds(5 + 3));
    }

    /** State T in /proc/PID/stat: stopped by a signal. */
    private static boolean stopped(ProcessHandle p) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).charAt(0) == 'T';
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    @Test
    void sigkillOfEveryProcessInTheSessionWhileAIsFrozenLeavesNothingBehind(LocalKafka kafka) throws Exception {
        runInOwnSession(kafka, "--experiment", "schedules", "--cells", "before-offset-commit:freeze");
        awaitStep("freeze at before-offset-commit; starting B"); // A is SIGSTOPped: it reads no pipe's end
        assertThat(seen).hasSizeGreaterThanOrEqualTo(2); // A and the watchdog

        assertThat(new ProcessBuilder("pkill", "-KILL", "-s", Long.toString(harness.pid())).start().waitFor()).isZero();

        assertNothingLeftWithin(Duration.ofSeconds(5 + 3));
    }

    @Test
    void sigkillOfTheWholeProcessGroupWhileGdbHoldsAPythonSubjectAtItsDbCommitLeavesNeitherSubjectNorDebuggerBehind(LocalKafka kafka)
            throws Exception {
        Gdb.require();
        runInOwnSession(kafka, "--experiment", "schedules", "--cells", "before-db-commit:hold", "--subject-cmd", PythonConsumer.template(dir, false),
                "--target-query", PythonConsumer.TARGET_QUERY);
        awaitStep("hold at before-db-commit; starting B"); // A's thread is held by gdb at its COMMIT
        assertThat(seen).as("gdb is one of the run's processes").anyMatch(p -> p.info().command().orElse("").endsWith("gdb"));

        assertThat(new ProcessBuilder("kill", "-s", "KILL", "--", "-" + harness.pid()).start().waitFor()).isZero();

        assertNothingLeftWithin(Duration.ofSeconds(5 + 3)); // gdb detaches on the watchdog's SIGTERM, A then ends on its own
    }
}
