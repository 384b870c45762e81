package io.replaylab.barrier.jdi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.LogTail;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Any Java program, started as a child process with a JDWP agent on a free loopback port, added
 * from outside through {@code JAVA_TOOL_OPTIONS}: the program and its command line stay unchanged.
 * Its stdout and stderr go to files; {@link #stop()} sends SIGTERM and waits.
 */
public final class DebuggableProcess implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DebuggableProcess.class);

    private final Process process;
    private final int port;
    private final Path stdout;
    private final Path stderr;

    private DebuggableProcess(Process process, int port, Path stdout, Path stderr) {
        this.process = process;
        this.port = port;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * Launches {@code command} with the JDWP agent and waits until the agent listens.
     *
     * @param extraEnv added to the inherited environment
     */
    public static DebuggableProcess launch(List<String> command, Map<String, String> extraEnv, Path stdout, Path stderr, Duration startTimeout) {
        return launch(command, extraEnv, stdout, stderr, startTimeout, false);
    }

    /**
     * As {@link #launch}, but the program waits before its first instruction until a debugger
     * attaches and lets it run ({@link DebuggerBarrier#resumeProgram()}): a barrier armed in between
     * catches the program's very first call of the point, with no race.
     */
    public static DebuggableProcess launchSuspended(List<String> command, Map<String, String> extraEnv, Path stdout, Path stderr,
            Duration startTimeout) {
        return launch(command, extraEnv, stdout, stderr, startTimeout, true);
    }

    private static DebuggableProcess launch(List<String> command, Map<String, String> extraEnv, Path stdout, Path stderr, Duration startTimeout,
            boolean suspended) {
        int port = freePort();
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(stdout.toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
        pb.environment().putAll(extraEnv);
        String agent = "-agentlib:jdwp=transport=dt_socket,server=y,suspend=" + (suspended ? "y" : "n") + ",address=127.0.0.1:" + port;
        String existing = pb.environment().get("JAVA_TOOL_OPTIONS");
        pb.environment().put("JAVA_TOOL_OPTIONS", existing == null || existing.isBlank() ? agent : existing + " " + agent);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command.get(0) + ": " + e.getMessage(), e);
        }
        DebuggableProcess dp = new DebuggableProcess(p, port, stdout, stderr);
        long deadline = System.nanoTime() + startTimeout.toNanos();
        String marker = "Listening for transport dt_socket at address: " + port;
        while (true) {
            if (contains(stdout, marker)) {
                log.debug("pid {} listens for a debugger on 127.0.0.1:{}", p.pid(), port);
                return dp;
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("the program exited with code " + p.exitValue() + " before its debug agent listened; "
                        + "stderr: " + tail(stderr));
            }
            if (System.nanoTime() > deadline) {
                dp.kill();
                throw new IllegalStateException("the program's debug agent did not listen on port " + port + " within " + startTimeout
                        + " (is it a JVM? does it honour JAVA_TOOL_OPTIONS?); stderr: " + tail(stderr));
            }
            sleep(20);
        }
    }

    public long pid() {
        return process.pid();
    }

    /** The JDWP port on 127.0.0.1. */
    public int port() {
        return port;
    }

    public Process process() {
        return process;
    }

    public Path stdout() {
        return stdout;
    }

    public Path stderr() {
        return stderr;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGTERM, then SIGKILL after {@code grace}; returns the exit code. */
    public int stop(Duration grace) {
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("pid {} did not stop within {}; killing it", process.pid(), grace);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        return process.isAlive() ? -1 : process.exitValue();
    }

    public int stop() {
        return stop(Duration.ofSeconds(20));
    }

    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            stop();
        }
    }

    private static boolean contains(Path file, String marker) {
        try {
            return Files.exists(file) && Files.readString(file, StandardCharsets.UTF_8).contains(marker);
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    private static String tail(Path file) {
        return String.join("\n", LogTail.lastLines(file, 10));
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
