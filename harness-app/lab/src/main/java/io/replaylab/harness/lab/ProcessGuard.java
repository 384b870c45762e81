package io.replaylab.harness.lab;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.process.Platform;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Subject processes never outlive the harness, even when it dies without running a hook (SIGKILL,
 * OOM). Each subject runs in its own process group ({@code setsid}, so a terminal's Ctrl-C reaches
 * only the harness, which stops them in order); a small watchdog shell, started first, waits on a
 * pipe from the harness. A clean end writes {@code done}; any other end of the harness closes the
 * pipe, and the watchdog sends SIGTERM, then SIGKILL after 2 s, to every group listed in
 * the groups file. The watchdog runs in a session of its own too: a CI runner's {@code kill -9 -PGID}
 * (or a kill of every process in the harness's session) must not take it with the harness. SIGKILL
 * also ends a frozen (SIGSTOPped) subject, which never reads anything itself. The subject's program
 * is not changed. Where the {@link Platform} has no shell or no signals (Windows), there is no
 * watchdog: a JVM shutdown hook kills what was started, which covers every end but SIGKILL.
 */
final class ProcessGuard implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ProcessGuard.class);
    private static final String SETSID = "/usr/bin/setsid";
    private static final String WATCHDOG = "trap '' INT TERM; read -r line; [ \"$line\" = done ] && exit 0; "
            + "for t in $(cat \"$1\" 2>/dev/null); do kill -TERM \"$t\" 2>/dev/null; done; sleep 2; "
            + "for t in $(cat \"$1\" 2>/dev/null); do kill -KILL \"$t\" 2>/dev/null; done";

    private final Path groups;
    private final Process watchdog;
    private final boolean setsid;
    private final List<ProcessHandle> started = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Thread hook;

    private ProcessGuard(Path groups, Process watchdog, boolean setsid) {
        this.groups = groups;
        this.watchdog = watchdog;
        this.setsid = setsid;
        if (watchdog == null) {
            hook = new Thread(() -> started.forEach(h -> {
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
            }), "replay-lab-process-guard");
            Runtime.getRuntime().addShutdownHook(hook);
        } else {
            hook = null;
        }
    }

    static ProcessGuard start(Path groupsFile, Platform platform) {
        if (!platform.posixShell() || !platform.signals()) {
            log.info("{}: no watchdog; a shutdown hook kills the run's processes (a harness killed with SIGKILL leaves them)", platform.describe());
            return new ProcessGuard(groupsFile, null, false);
        }
        boolean setsid = platform.setsid();
        if (!setsid) {
            log.warn("{} is missing (util-linux): subjects run in the harness's process group, and a harness killed with SIGKILL "
                    + "leaves them to the watchdog by pid only", SETSID);
        }
        try {
            Files.createDirectories(groupsFile.getParent());
            Files.writeString(groupsFile, "");
            List<String> command = List.of("/bin/sh", "-c", WATCHDOG, "replay-lab-watchdog", groupsFile.toAbsolutePath().toString());
            // a child of the JVM is never its group's leader, so setsid(1) calls setsid(2) and execs without forking:
            // the pipe's reader is the watchdog itself
            Process w = new ProcessBuilder(setsid ? prepend(SETSID, command) : command)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return new ProcessGuard(groupsFile, w, setsid);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the process watchdog", e);
        }
    }

    /**
     * The command to start instead of {@code command}: the same program, in its own process group,
     * having put that group in the watchdog's file itself before it runs. A harness killed between
     * starting a process and {@link #watch}ing it (a debugged JVM is watched only once its agent
     * listens) left it behind: seen in a fresh-clone run, B started as the harness was killed. A
     * process the kill catches before even that line is caught by the watchdog's second pass, 2 s later.
     */
    List<String> wrap(List<String> command) {
        if (watchdog == null) {
            return setsid ? prepend(SETSID, command) : command;
        }
        // sh execs setsid(1), which, the shell being no group's leader, calls setsid(2) and execs in place: the pid stays $$
        List<String> out = new ArrayList<>(List.of("/bin/sh", "-c", "echo \"" + (setsid ? "-" : "") + "$$\" >> \"$1\"; shift; exec \"$@\"",
                "replay-lab-subject", groups.toAbsolutePath().toString()));
        out.addAll(setsid ? prepend(SETSID, command) : command);
        return out;
    }

    private static List<String> prepend(String first, List<String> command) {
        List<String> out = new ArrayList<>(command.size() + 1);
        out.add(first);
        out.addAll(command);
        return out;
    }

    /** Registers a started process: the watchdog stops its group (or the pid alone without setsid) if the harness dies. */
    void watch(Process p) {
        // what kill takes: -PGID for a group of its own, else the pid
        watch(Optional.of(p.toHandle()), setsid ? "-" + p.pid() : Long.toString(p.pid()), "the process group of pid " + p.pid());
    }

    /**
     * Registers a process the run started outside {@link #wrap} (a node of its own Kafka cluster): the
     * watchdog stops it by pid if the harness dies. Its own pipe from the harness does not help when
     * it is frozen (SIGSTOP): a stopped process reads nothing, a SIGKILL from outside still ends it.
     */
    void watchPid(long pid) {
        watch(ProcessHandle.of(pid), Long.toString(pid), "pid " + pid);
    }

    /** Without a watchdog, {@code h} is stopped at the run's end; with one, {@code target} (what kill takes) goes to its list. */
    private void watch(Optional<ProcessHandle> h, String target, String what) {
        if (watchdog == null) {
            h.ifPresent(started::add);
            return;
        }
        try {
            Files.writeString(groups, target + "\n", StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record " + what, e);
        }
    }

    /** Whether {@link #wrap} puts each program in a process group of its own (setsid). */
    boolean ownGroups() {
        return setsid;
    }

    /** A clean end: the watchdog leaves without touching anything. */
    @Override
    public void close() {
        if (watchdog == null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs
            }
            return;
        }
        try (OutputStream in = watchdog.getOutputStream()) {
            in.write("done\n".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            log.debug("watchdog already gone: {}", e.toString());
        }
        try {
            if (!watchdog.waitFor(5, TimeUnit.SECONDS)) {
                watchdog.destroyForcibly();
            }
        } catch (InterruptedException e) {
            watchdog.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
