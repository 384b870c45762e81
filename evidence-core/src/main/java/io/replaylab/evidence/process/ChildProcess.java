package io.replaylab.evidence.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.LogTail;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A program the lab starts, holds and kills: a broker, a subject, a debuggee. Its stdout and stderr
 * go to files (appended), so that evidence can point at them and an error can quote their last lines.
 * It is the one place that knows how to stop a process (SIGTERM, then SIGKILL after a grace period),
 * crash it (SIGKILL), freeze and thaw it (SIGSTOP / SIGCONT), and attach a JDWP agent to a JVM
 * from outside (through {@code JAVA_TOOL_OPTIONS}, so the program's own command line stays as it is).
 *
 * <pre>{@code
 * try (ChildProcess p = ChildProcess.of(ChildProcess.java(List.of("-Xmx128m"), "com.example.Main", "a1"))
 *         .name("consumer A").output(dir.resolve("a.out"), dir.resolve("a.err")).start()) {
 *     p.awaitOutput("ready", Duration.ofSeconds(30));
 *     p.freeze();
 *     ...
 * }
 * }</pre>
 */
public final class ChildProcess implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ChildProcess.class);
    /** How long {@link #close()} lets a program finish before SIGKILL. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(20);
    private static final String JAVA_TOOL_OPTIONS = "JAVA_TOOL_OPTIONS";

    private final String name;
    private final List<String> command;
    private final Process process;
    private final Path stdout;
    private final Path stderr;
    private final int debugPort;
    private volatile boolean frozen;
    /** Whether it leads a process group of its own (the command runs it under setsid); set once, at the start. */
    private volatile boolean ownGroup;

    private ChildProcess(String name, List<String> command, Process process, Path stdout, Path stderr, int debugPort) {
        this.name = name;
        this.command = command;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.debugPort = debugPort;
    }

    /** A process running {@code command} (program and arguments, no shell). */
    public static Builder of(List<String> command) {
        return new Builder(command);
    }

    /**
     * A command line from a template: split like a shell would on white space (honouring '…' and "…",
     * no other shell syntax), then every {@code {key}} in a word replaced by its value. A value with
     * spaces stays one word.
     */
    public static List<String> commandLine(String template, Map<String, String> values) {
        List<String> out = new ArrayList<>();
        for (String word : split(template)) {
            out.add(render(word, values));
        }
        return out;
    }

    /** {@code text} with every {@code {key}} replaced by its value (e.g. an environment variable's template). */
    public static String render(String text, Map<String, String> values) {
        String w = text;
        for (Map.Entry<String, String> e : values.entrySet()) {
            w = w.replace("{" + e.getKey() + "}", e.getValue());
        }
        return w;
    }

    /**
     * JVM options for a short-lived child (a subject, a test's helper program): {@code first} (e.g. a heap size), then C1
     * only and the serial collector. C2 compiling beside the brokers and subjects on 2 cores costs more than it saves: a
     * consumer draining 20 records took 1.39–1.54 CPU-s so against 2.29–2.51 with both compilers.
     */
    public static List<String> shortLived(String... first) {
        List<String> options = new ArrayList<>(List.of(first));
        options.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        return List.copyOf(options);
    }

    /** The {@code java} of this JVM. */
    public static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * A child JVM of this JVM's Java and class path running {@code mainClass}, started from a
     * class-data archive of its jars once there is one ({@link #withClassData}).
     */
    public static List<String> java(List<String> jvmOptions, String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaExecutable());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return withClassData(cmd);
    }

    /**
     * The JVM option that names which program of a main class with subcommands a child JVM runs (e.g. {@code consume}):
     * it gets a class-data archive of its own ({@link #withClassData}), so a consumer does not map a producer's classes.
     */
    public static String program(String name) {
        if (name == null || !name.matches("[A-Za-z0-9_-]+")) {
            throw new IllegalArgumentException("a program's name is letters, digits, '_' and '-', was '" + name + "'");
        }
        return ClassDataArchive.PROGRAM + name;
    }

    /**
     * {@code command} with the options that start its JVM (this JVM's {@code java ... -cp CLASSPATH Main},
     * anywhere in it, e.g. after {@code setsid}) from a class-data archive of its jars, which cuts
     * the CPU a short-lived JVM spends starting by about a third; the first launch dumps the archive
     * at its own exit. A directory on the class path is replaced by a jar of its content (a JVM archives
     * classes only from jars). Any other command (a wildcard or missing entry on the class path, a
     * command that chose CDS options itself) is returned as it is. On unless {@code REPLAYLAB_CDS=off} (or
     * {@code -Dreplaylab.cds=off}); the archives live in {@code ~/.cache/replay-lab/cds}.
     */
    public static List<String> withClassData(List<String> command) {
        return ClassDataArchive.apply(command);
    }

    /** A process's resident set size in KiB, from {@code /proc/PID/status}; empty when it is gone or there is no {@code /proc}. */
    public static java.util.OptionalLong residentKb(long pid) {
        return ProcFs.residentKb(pid);
    }

    /**
     * Whether this program, or a process it started, holds the TCP socket whose local port is
     * {@code localPort} (the client side of a connection to this machine): which program sent what
     * a proxy read on that connection. Linux only ({@code /proc/net/tcp[6]} and the processes' file
     * descriptors); false where there is no {@code /proc} or the socket is gone.
     */
    public boolean ownsTcpPort(int localPort) {
        java.util.Set<String> inodes = ProcFs.socketInodes(localPort);
        if (inodes.isEmpty()) {
            return false;
        }
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(process.toHandle()), process.descendants())
                .anyMatch(h -> ProcFs.holdsAny(h.pid(), inodes));
    }

    /** A loopback port that was free a moment ago (a program told to listen on it will most likely get it). */
    public static int freeLoopbackPort() {
        return ProcFs.freeLoopbackPort();
    }

    public String name() {
        return name;
    }

    public List<String> command() {
        return command;
    }

    public long pid() {
        return process.pid();
    }

    /** The underlying process, e.g. to watch it with {@link Process#onExit()}. */
    public Process process() {
        return process;
    }

    public Path stdout() {
        return stdout;
    }

    public Path stderr() {
        return stderr;
    }

    /** The port on 127.0.0.1 where its JDWP agent listens; empty when started without one. */
    public OptionalInt debugPort() {
        return debugPort < 0 ? OptionalInt.empty() : OptionalInt.of(debugPort);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Its exit code once it has exited; empty while it runs. */
    public OptionalInt exitCode() {
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    /**
     * Up to {@code lines} last lines of its stderr, joined by " | ", leaving out a Java stack
     * trace's frames ({@code at ...}, {@code ... 3 more}: the line that says what went wrong is
     * above them); "(empty)" when there are none.
     */
    public String stderrTail(int lines) {
        List<String> said = LogTail.lastLines(stderr, lines * 40).stream().filter(l -> !STACK_FRAME.matcher(l).find()).toList();
        List<String> last = said.subList(Math.max(0, said.size() - lines), said.size());
        return last.isEmpty() ? "(empty)" : String.join(" | ", last);
    }

    private static final java.util.regex.Pattern STACK_FRAME = java.util.regex.Pattern.compile("^\\s+(at |\\.\\.\\. \\d+ more)");

    /**
     * Waits until its stdout holds {@code marker}.
     *
     * @throws ChildProcessException when it exits first (with its exit code and stderr) or the marker
     *     does not appear within {@code timeout}; the process is left as it is
     */
    public void awaitOutput(String marker, Duration timeout) {
        boolean printed = interruptible(() -> Poll.every(Duration.ofMillis(20)).upTo(timeout).until(() -> {
            if (contains(stdout, marker)) {
                return true;
            }
            if (!process.isAlive()) {
                throw new ChildProcessException(name + " exited with code " + process.exitValue() + " before it printed \"" + marker
                        + "\"; last lines of its stderr: " + stderrTail(10));
            }
            return false;
        }));
        if (!printed) {
            throw new ChildProcessException(name + " (pid " + pid() + ") did not print \"" + marker + "\" within " + timeout
                    + "; last lines of its stderr: " + stderrTail(10));
        }
    }

    /** How a stop ended: the exit code (null if it still runs) and how, e.g. "SIGTERM" or "SIGKILL after 20 s". */
    public record Stopped(Integer exitCode, String how) {
    }

    /** SIGTERM, then SIGKILL after {@code grace}; "its own exit" when it had already exited. */
    public Stopped stop(Duration grace) {
        if (!process.isAlive() && !(ownGroup && groupAlive())) {
            return new Stopped(process.exitValue(), "its own exit");
        }
        thawQuietly(); // a frozen process cannot act on SIGTERM
        String how = terminate(List.of(this), grace);
        return new Stopped(process.isAlive() ? null : process.exitValue(), how);
    }

    /**
     * Stops them all at once (R17): SIGTERM to each, SIGKILL to those still running when {@code grace}
     * has passed. Returns how the slowest ended.
     */
    public static String stopAll(Collection<ChildProcess> processes, Duration grace) {
        List<ChildProcess> alive = processes.stream().filter(p -> p.isAlive() || p.ownGroup && p.groupAlive()).toList();
        alive.forEach(ChildProcess::thawQuietly);
        return terminate(alive, grace);
    }

    private static String terminate(List<ChildProcess> processes, Duration grace) {
        processes.forEach(p -> p.send("TERM"));
        long deadline = System.nanoTime() + grace.toNanos();
        String how = "SIGTERM";
        for (ChildProcess p : processes) {
            try {
                if (!p.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS) || !p.awaitGroupGone(deadline)) {
                    log.warn("{} (pid {}) did not stop within {}; killing it", p.name, p.pid(), grace);
                    p.kill();
                    how = "SIGKILL after " + grace.toSeconds() + " s";
                }
            } catch (InterruptedException e) {
                p.kill();
                how = "SIGKILL (interrupted)";
                Thread.currentThread().interrupt();
            }
        }
        return how;
    }

    /**
     * SIGKILL, as a crash would: no clean shutdown. A program in a process group of its own (started
     * under {@code setsid}) gets it as a group, so a wrapper script that did not {@code exec} its
     * program takes the program with it. Waits up to 10 s for the exit.
     */
    public void kill() {
        if (ownGroup) {
            sendQuietly("KILL", true);
        }
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
            awaitGroupGone(System.nanoTime() + TimeUnit.SECONDS.toNanos(10)); // at once unless it leads a group
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until no process of its group is left (a group's members may outlive the leader); true when none is. */
    private boolean awaitGroupGone(long deadlineNanos) throws InterruptedException {
        if (!ownGroup) {
            return true;
        }
        while (groupAlive()) {
            if (System.nanoTime() >= deadlineNanos) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** {@code kill -0 -PGID}: whether any process of its group still exists. */
    private boolean groupAlive() {
        try {
            return kill("0", true) == null;
        } catch (ChildProcessException e) {
            return false;
        }
    }

    /** Sends a signal to its group when it leads one, else to it alone (SIGTERM through the JDK then). */
    private void send(String sig) {
        if (ownGroup) {
            if (!sendQuietly(sig, true) && sig.equals("TERM")) {
                process.destroy(); // the group could not be signalled: the program itself still gets its SIGTERM
            }
        } else if (sig.equals("TERM")) {
            process.destroy();
        } else {
            sendQuietly(sig, false);
        }
    }

    /** {@code kill -SIG [-]PID} through the shell's builtin (no procps needed); whether it was delivered. */
    private boolean sendQuietly(String sig, boolean group) {
        try {
            return kill(sig, group) == null;
        } catch (ChildProcessException e) {
            log.warn("cannot signal {} (pid {}) with SIG{}: {}", name, pid(), sig, e.getMessage());
            return false;
        }
    }

    /** Sends the signal; null when delivered, else what the shell said. The one way this class signals. */
    private String kill(String sig, boolean group) {
        try {
            Process k = new ProcessBuilder("/bin/sh", "-c", "kill -s " + sig + " -- \"$1\"", "sh", (group ? "-" : "") + pid())
                    .redirectErrorStream(true).start();
            String out = new String(k.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            // waited for whatever the thread's interrupt flag says: a cleanup on an interrupted thread must still know the answer
            boolean interrupted = false;
            while (true) {
                try {
                    k.waitFor();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return k.exitValue() == 0 ? null : out.isEmpty() ? "exit " + k.exitValue() : out;
        } catch (IOException e) {
            throw new ChildProcessException("cannot run /bin/sh to send SIG" + sig + ": " + e.getMessage(), e);
        }
    }

    /**
     * SIGSTOP: every thread stops at once, sockets stay open (a GC pause or a VM freeze as seen from
     * outside). Returns once the kernel shows it stopped, so that a fault is confirmed, not assumed.
     */
    public void freeze() {
        frozen = true; // before the signal: a stop() racing this call still thaws first
        signal("STOP");
        awaitState(true);
    }

    /** SIGCONT after {@link #freeze()}; returns once it runs again. */
    public void thaw() {
        signal("CONT");
        frozen = false;
        awaitState(false);
    }

    private void awaitState(boolean stopped) {
        if (!interruptible(() -> Poll.every(Duration.ofMillis(5)).upTo(Duration.ofSeconds(5)).until(() -> !process.isAlive() || isFrozen() == stopped))) {
            throw new ChildProcessException(name + " (pid " + pid() + ") is " + (stopped ? "not stopped" : "still stopped")
                    + " 5 s after SIG" + (stopped ? "STOP" : "CONT"));
        }
    }

    /**
     * Whether it is stopped by a signal now (Linux: state T in /proc/PID/stat); for a program in a
     * group of its own, whether every process it started is stopped too.
     */
    public boolean isFrozen() {
        // a child that exited just before the stop (a zombie, Z, or gone) runs nothing
        return ProcFs.state(pid()) == 'T' && (!ownGroup || process.descendants().allMatch(h -> "TZX-".indexOf(ProcFs.state(h.pid())) >= 0));
    }

    private void signal(String sig) {
        if (!process.isAlive()) {
            throw new ChildProcessException(name + " (pid " + pid() + ") has exited with code " + process.exitValue() + "; cannot send SIG" + sig);
        }
        // the group when it leads one: SIGSTOP to a wrapper alone would leave its program running
        String failed = kill(sig, ownGroup);
        if (failed != null) {
            throw new ChildProcessException("kill -s " + sig + " " + (ownGroup ? "-" : "") + pid() + " failed: " + failed);
        }
    }

    private void thawQuietly() {
        if (process.isAlive() && (frozen || isFrozen())) {
            try {
                thaw();
            } catch (ChildProcessException e) {
                log.debug("could not thaw {}: {}", name, e.getMessage());
            }
        }
    }

    /** Stops it (SIGTERM, SIGKILL after {@link #DEFAULT_GRACE}) if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            stop(DEFAULT_GRACE);
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + pid() + ")";
    }

    /** How to start a {@link ChildProcess}. */
    public static final class Builder {
        private final List<String> command;
        private final Map<String, String> env = new LinkedHashMap<>();
        private final Set<String> removed = new LinkedHashSet<>();
        private String name;
        private Path stdout;
        private Path stderr;
        private boolean agent;
        private boolean suspended;
        private Duration agentTimeout = Duration.ofSeconds(60);
        private Path directory;
        private boolean ownGroup;

        private Builder(List<String> command) {
            Objects.requireNonNull(command, "command");
            if (command.isEmpty() || command.get(0).isBlank()) {
                throw new IllegalArgumentException("the command is empty");
            }
            this.command = List.copyOf(command);
            this.name = Path.of(command.get(0)).getFileName().toString();
        }

        /** What messages and logs call it (default: the program's file name). */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Files its stdout and stderr are appended to (their directory must exist). Default: discarded. */
        public Builder output(Path stdout, Path stderr) {
            this.stdout = Objects.requireNonNull(stdout, "stdout");
            this.stderr = Objects.requireNonNull(stderr, "stderr");
            return this;
        }

        /** Adds to (or overrides in) the environment it inherits. */
        public Builder env(Map<String, String> values) {
            values.forEach(this::env);
            return this;
        }

        public Builder env(String key, String value) {
            env.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value of " + key));
            removed.remove(key);
            return this;
        }

        /**
         * The command makes the program the leader of a process group of its own ({@code setsid}): its
         * signals go to the whole group, and a stop or a kill waits for the group, even once the leader
         * itself has exited (a wrapper's program outlives the wrapper).
         */
        public Builder ownProcessGroup(boolean own) {
            this.ownGroup = own;
            return this;
        }

        /** Its working directory (default: this JVM's); it must exist. */
        public Builder directory(Path dir) {
            this.directory = Objects.requireNonNull(dir, "directory");
            return this;
        }

        /** Removes a variable it would inherit. */
        public Builder withoutEnv(String key) {
            env.remove(key);
            removed.add(key);
            return this;
        }

        /**
         * Starts a JVM with a JDWP agent on a free loopback port ({@link #debugPort()}), added through
         * {@code JAVA_TOOL_OPTIONS}; {@link #start()} returns once the agent listens. With
         * {@code suspended}, the program waits before its first instruction until a debugger lets it
         * run, so a breakpoint set in between catches its very first call.
         */
        public Builder debuggerAgent(boolean suspended, Duration listenTimeout) {
            this.agent = true;
            this.suspended = suspended;
            this.agentTimeout = Objects.requireNonNull(listenTimeout, "listenTimeout");
            return this;
        }

        /**
         * Starts it.
         *
         * @throws ChildProcessException when the program cannot be started, or (with a debugger
         *     agent) exits or does not listen in time; nothing is left running then
         */
        public ChildProcess start() {
            ProcessBuilder pb = new ProcessBuilder(agent ? ClassDataArchive.forDebugger(ClassDataArchive.apply(command)) : ClassDataArchive.apply(command));
            if (directory != null) {
                if (!Files.isDirectory(directory)) {
                    throw new ChildProcessException("cannot start " + name + ": its working directory " + directory + " is no directory");
                }
                pb.directory(directory.toFile());
            }
            pb.redirectOutput(stdout == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.appendTo(stdout.toFile()));
            pb.redirectError(stderr == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.appendTo(stderr.toFile()));
            // a debugger agent meant for one program must never leak into another through the inherited environment
            pb.environment().remove(JAVA_TOOL_OPTIONS);
            removed.forEach(pb.environment()::remove);
            pb.environment().putAll(env);
            int port = -1;
            if (agent) {
                if (stdout == null) {
                    throw new IllegalStateException("a debugger agent needs output(...): its readiness is read from stdout");
                }
                port = freeLoopbackPort();
                String opt = "-agentlib:jdwp=transport=dt_socket,server=y,suspend=" + (suspended ? "y" : "n") + ",address=127.0.0.1:" + port;
                String existing = env.get(JAVA_TOOL_OPTIONS);
                pb.environment().put(JAVA_TOOL_OPTIONS, existing == null || existing.isBlank() ? opt : existing + " " + opt);
            }
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                throw new ChildProcessException("cannot start " + name + " (" + command.get(0) + "): " + e.getMessage(), e);
            }
            ChildProcess child = new ChildProcess(name, command, p, stdout, stderr, port);
            child.ownGroup = ownGroup;
            log.debug("started {}: {}", child, command);
            if (agent) {
                try {
                    child.awaitOutput("Listening for transport dt_socket at address: " + port, agentTimeout);
                } catch (ChildProcessException e) {
                    child.kill();
                    throw new ChildProcessException(e.getMessage()
                            + " (its debug agent was to listen on port " + port + ": is it a JVM? does it honour JAVA_TOOL_OPTIONS?)", e);
                }
            }
            return child;
        }
    }

    private static boolean contains(Path file, String marker) {
        try {
            return file != null && Files.exists(file) && Files.readString(file, StandardCharsets.UTF_8).contains(marker);
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    static List<String> split(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (char c : s.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    cur.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                any = true;
            } else if (Character.isWhitespace(c)) {
                if (cur.length() > 0 || any) {
                    out.add(cur.toString());
                    cur.setLength(0);
                    any = false;
                }
            } else {
                cur.append(c);
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("the command template has an unclosed quote: " + s);
        }
        if (cur.length() > 0 || any) {
            out.add(cur.toString());
        }
        return out;
    }

    private static <T> T interruptible(Poll.Look<T> wait) {
        try {
            return wait.look();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ChildProcessException("interrupted while waiting for the program", e);
        }
    }
}
