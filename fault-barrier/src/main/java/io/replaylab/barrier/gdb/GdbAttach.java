package io.replaylab.barrier.gdb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** The attach itself: gdb set up for a non-stop barrier, attached to the program, and why it could not be. */
final class GdbAttach {
    private GdbAttach() {
    }

    /** Sets gdb up, sources {@code script} (or none), attaches to {@code pid} and lets it run; how long the program stood still. */
    static Duration attach(GdbSession gdb, long pid, Path script, Duration answer) {
        try {
            gdb.run("-gdb-set non-stop on", answer);
            gdb.run("-gdb-set mi-async on", answer);
            gdb.run("-gdb-set pagination off", answer);
            gdb.run("-gdb-set confirm off", answer);
            // no debug info fetched: with it gdb would break after the function's prologue, where the argument registers may be reused
            gdb.send("-gdb-set debuginfod enabled off");
            if (script != null) {
                gdb.console("source " + script, answer);
            }
            long stoppedAt = System.nanoTime();
            try {
                gdb.run("-target-attach " + pid, answer);
            } catch (GdbSession.GdbError e) {
                throw refused(pid, e.gdbMessage);
            }
            // the program's own signals (SIGTERM from its owner, SIGCHLD, ...) reach it as if no debugger were there
            gdb.console("handle all nostop noprint pass", answer);
            gdb.run("-exec-continue --all", answer);
            return Duration.ofNanos(System.nanoTime() - stoppedAt);
        } catch (NativeAttachException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new NativeAttachException(NativeAttachException.Reason.DEBUGGER_FAILED, "gdb could not attach to pid " + pid + ": "
                    + e.getMessage());
        }
    }

    private static NativeAttachException refused(long pid, String message) {
        if (!Files.exists(Path.of("/proc/" + pid))) {
            return new NativeAttachException(NativeAttachException.Reason.GONE, "pid " + pid + " ended before gdb attached: " + message);
        }
        if (message.contains("not permitted")) {
            long tracer = ProcessTree.tracer(pid);
            String scope;
            try {
                scope = Files.readString(Path.of("/proc/sys/kernel/yama/ptrace_scope")).trim();
            } catch (IOException e) {
                scope = null;
            }
            return new NativeAttachException(NativeAttachException.Reason.NO_PTRACE, "gdb may not trace pid " + pid + " (" + message + "): "
                    + (tracer != 0 ? "pid " + tracer + " traces it already (one tracer per process)"
                            : scope == null ? "this kernel has no Yama ptrace_scope, so it is the user's rights: run the harness as the subject's user or as root"
                                    : "kernel.yama.ptrace_scope is " + scope + " (1: only an ancestor may trace; run the harness as root, "
                                            + "set it to 0 with: sudo sysctl kernel.yama.ptrace_scope=0, or start the subject through a launcher "
                                            + "that calls prctl(PR_SET_PTRACER))"));
        }
        return new NativeAttachException(NativeAttachException.Reason.DEBUGGER_FAILED, "gdb could not attach to pid " + pid + ": " + message);
    }
}
