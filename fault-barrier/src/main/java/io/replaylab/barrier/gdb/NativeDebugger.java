package io.replaylab.barrier.gdb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierSource;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.Injector;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.NativePoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The external barrier for a program that is not a JVM: a native debugger ({@code gdb}, driven
 * over its machine interface, in non-stop mode) attached from outside holds the program at the
 * entry of a native function when a condition on its arguments holds, e.g.
 * {@link NativePoint#sqliteCommit()} in a CPython or Node program. Nothing in the program changes.
 *
 * <ul>
 *   <li>{@link HoldMode#THREAD}: only the thread at the point stops; the others (a Kafka client's
 *       heartbeats) go on. Where the database and the Kafka client share one thread, that IS a
 *       freeze for Kafka.</li>
 *   <li>{@link #freeze()}: every thread stopped through the debugger and confirmed stopped in
 *       {@code /proc} (a SIGSTOP would only be reported to the debugger; SIGCONT does not resume a
 *       thread stopped under ptrace). {@code HoldMode.PROCESS} freezes at the arrival.</li>
 *   <li>Release lets the held call run and observes what it returned (for SQLite:
 *       {@code SQLITE_DONE} accepted, anything else rejected with its code).</li>
 *   <li>A SIGKILL ends a held program; a program that exits releases everything.</li>
 *   <li>{@link #close()} removes every breakpoint and detaches: the program runs on. gdb also
 *       detaches when its input closes (the controller died) and on SIGTERM; only a SIGKILL of gdb
 *       while a breakpoint is inserted leaves a trap that kills the program (SIGTRAP), which is
 *       why a point is armed only while a cell needs it and disarmed at its arrival.</li>
 * </ul>
 *
 * <pre>{@code
 * try (NativeDebugger gdb = NativeDebugger.to(pid).attach(NativePoint.sqliteCommit())) {
 *     Barrier b = gdb.arm("before-db-commit", NativePoint.sqliteCommit(), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
 *     Arrival a = b.awaitArrival(Duration.ofSeconds(30));  // context: sql, library, thread, ...
 *     b.release();
 *     CallOutcome o = b.awaitOutcome(Duration.ofSeconds(10)).orElseThrow();
 * }
 * }</pre>
 */
public final class NativeDebugger implements BarrierSource<NativePoint> {
    /** The gdb helper sourced at the attach (the attached point's), or null. */
    private String helper;
    private static final Logger log = LoggerFactory.getLogger(NativeDebugger.class);
    /** What to run when gdb is missing. */
    public static final String INSTALL = "install it with: sudo apt-get install -y gdb";
    private static final Duration ANSWER = Duration.ofSeconds(20);
    /**
     * One attach at a time in this JVM: an attach stops every thread of its program while gdb reads
     * the symbols of each mapped library (1.1 s for Node alone here, 2.7-2.9 s beside other work),
     * and attaches side by side on 2 cores stood a KafkaJS subject still past its 6 s session.
     */
    private static final Semaphore ATTACHING = new Semaphore(1, true);

    private final GdbSession gdb;
    private final long pid;
    private final Path library;
    private final String[] registers;
    private final List<Armed> armed = new ArrayList<>();
    private final Map<String, Armed> byBreakpoint = new LinkedHashMap<>();
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "native-barrier-watchdog");
        t.setDaemon(true);
        return t;
    });
    private final TracedProgram program;
    private volatile boolean gone;
    private volatile boolean closed;
    private Duration attachPause = Duration.ZERO;

    private NativeDebugger(Process process, long pid, Path library, String[] registers) {
        this.pid = pid;
        this.library = library;
        this.registers = registers;
        this.gdb = new GdbSession(process, this::onAsync);
        this.program = new TracedProgram(gdb, pid, () -> gone, ANSWER);
    }

    /** How to attach to {@code pid} (a program, or a wrapper whose descendant runs the code). */
    public static Builder to(long pid) {
        return new Builder(pid);
    }

    /** How the debugger is found, started and searched with. */
    public static final class Builder {
        private final long root;
        private String program = "gdb";
        private UnaryOperator<List<String>> launcher = UnaryOperator.identity();
        private Consumer<Process> started = p -> { };
        private Duration searchTimeout = Duration.ofSeconds(10);

        private Builder(long root) {
            this.root = root;
        }

        /** The gdb to run: a name on PATH (default {@code gdb}) or a path. */
        public Builder gdb(String program) {
            this.program = Objects.requireNonNull(program, "program");
            return this;
        }

        /** Wraps gdb's command line (e.g. {@code setsid}: a process group of its own). */
        public Builder launcher(UnaryOperator<List<String>> launcher) {
            this.launcher = Objects.requireNonNull(launcher, "launcher");
            return this;
        }

        /** Told of the gdb process once it runs (e.g. to register it with a watchdog). */
        public Builder onStart(Consumer<Process> started) {
            this.started = Objects.requireNonNull(started, "started");
            return this;
        }

        /** How long to wait for the program (or a descendant) to load the point's function (default 10 s). */
        public Builder searchTimeout(Duration timeout) {
            this.searchTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Waits until the process or one of its descendants has loaded a file that defines the
         * point's function, then attaches gdb to that process. {@link NativeAttachException}
         * names what was wrong: no gdb, the function not found (and what was searched), no ptrace
         * rights (and the setting), the process gone, gdb failing. Attaches in one JVM go one after
         * another (the searches side by side).
         */
        public NativeDebugger attach(NativePoint point) throws InterruptedException {
            String gdbPath = ProgramSearch.gdb(program);
            String[] registers = ProgramSearch.registers();
            ProgramSearch.Found found = ProgramSearch.search(root, point.probes().get(0).function(), searchTimeout); // the first probe's function: the one looked for
            ATTACHING.acquire();
            try {
                return start(gdbPath, registers, found, point.helper());
            } finally {
                ATTACHING.release();
            }
        }

        private NativeDebugger start(String gdbPath, String[] registers, ProgramSearch.Found found, String helper) {
            Path script = ProgramSearch.helperScript(helper);
            Process p;
            try {
                List<String> cmd = launcher.apply(List.of(gdbPath, "--interpreter=mi3", "-q", "-nx", "-iex", "set auto-load off"));
                p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            } catch (IOException e) {
                throw new NativeAttachException(NativeAttachException.Reason.NO_DEBUGGER, "cannot start " + gdbPath + ": " + e.getMessage());
            }
            started.accept(p);
            NativeDebugger d = new NativeDebugger(p, found.pid(), found.file(), registers);
            d.helper = helper;
            try {
                d.start(script);
            } catch (RuntimeException e) {
                d.close();
                throw e;
            } finally {
                try {
                    if (script != null) {
                        Files.deleteIfExists(script);
                    }
                } catch (IOException ignored) {
                    // a temp file
                }
            }
            return d;
        }
    }

    private void start(Path script) {
        attachPause = GdbAttach.attach(gdb, pid, script, ANSWER);
        // gdb does not notice a held (stopped) program's SIGKILL until it next resumes it: watch /proc as well
        watchdog.scheduleWithFixedDelay(() -> {
            if (!ProcessTree.alive(pid)) {
                onProgramExit("ended (killed or exited; seen in /proc)");
            }
        }, 100, 100, TimeUnit.MILLISECONDS);
        watchdog.scheduleWithFixedDelay(this::resumeStrays, 500, 500, TimeUnit.MILLISECONDS);
        log.info("native barrier: gdb (pid {}) attached to pid {} ({}), point found in {}; the program stood still for {} ms while gdb attached",
                gdb.pid(), pid, ProcessTree.command(pid), library, attachPause.toMillis());
    }

    /** The process the debugger is attached to (the given pid, or the descendant that loaded the point's function). */
    public long pid() {
        return pid;
    }

    /**
     * How long the program stood still while gdb attached (every thread stops while gdb reads the
     * symbols of each library the program has mapped): a client that misses heartbeats for longer
     * than its session timeout has left its group when it runs on.
     */
    public Duration attachPause() {
        return attachPause;
    }

    /** The file that defines the point's function (e.g. {@code /lib/x86_64-linux-gnu/libsqlite3.so.0}). */
    public Path library() {
        return library;
    }

    /** How many times the program met a point's function and the debugger evaluated its condition (the barrier's cost). */
    public long evaluations() {
        try {
            Mi r = gdb.run("-data-evaluate-expression $_rl_evaluated()", ANSWER);
            return Long.parseLong(r.string("value").trim());
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * Arms a one-shot barrier at {@code target}: the first call that meets a probe's condition is
     * held (one thread, or the process with {@link HoldMode#PROCESS}); every breakpoint is then
     * removed, so later calls pass at full speed.
     */
    @Override
    public synchronized Barrier arm(String point, NativePoint target, HoldMode mode, BarrierListener listener, BarrierOptions options) {
        if (target.helper() != null && !target.helper().equals(helper)) {
            // its conditions call the helper's functions, which gdb only has when it sourced them at the attach
            throw new IllegalArgumentException("point '" + target + "' needs its gdb helper " + target.helper() + ", which this debugger did not load: "
                    + "attach with that point (NativeDebugger.to(pid).attach(point))");
        }
        if (gone || closed) {
            throw new IllegalStateException("the native debugger of pid " + pid + " is " + (gone ? "gone: the program ended" : "closed"));
        }
        Barrier barrier = Barrier.arm(point, listener, options);
        Armed a = new Armed(barrier, target, mode, options);
        armed.add(a);
        List<String> missing = new ArrayList<>();
        for (NativePoint.Probe p : target.probes()) {
            String cond = p.condition() == null ? "" : "-c \"" + p.condition().replace("{arg1}", registers[0]).replace("{arg2}", registers[1])
                    .replace("\"", "\\\"") + "\" ";
            try {
                Mi r = gdb.run("-break-insert " + cond + p.function(), ANSWER);
                String number = r.map("bkpt").get("number") instanceof String n ? n : null;
                if (number != null) {
                    a.breakpoints.add(number);
                    byBreakpoint.put(number, a);
                }
            } catch (GdbSession.GdbError e) {
                missing.add(p.function() + " (" + e.gdbMessage + ")");
            }
        }
        if (a.breakpoints.isEmpty()) {
            barrier.expire();
            throw new NativeAttachException(NativeAttachException.Reason.NOT_FOUND, "gdb found none of " + missing + " in pid " + pid);
        }
        if (!missing.isEmpty()) {
            listener.onObservation(point, "not in this program (held at the others): " + String.join(", ", missing));
        }
        return barrier;
    }

    /**
     * Stops every thread of the program through the debugger and returns once {@code /proc} shows
     * each stopped by its tracer (state {@code t}); the states it saw, by thread id.
     */
    public Map<Long, Character> freeze() {
        return program.freeze();
    }

    /** Lets every thread run again except one held at a point (released by its barrier). */
    public void thaw() {
        program.thaw(heldThreads());
    }

    public boolean isFrozen() {
        return program.isFrozen();
    }

    private synchronized Set<String> heldThreads() {
        Set<String> held = new java.util.HashSet<>();
        for (Armed a : armed) {
            if (a.thread != null && !a.resumed) {
                held.add(a.thread);
            }
        }
        return held;
    }

    // ---- gdb's asynchronous records, one at a time on gdb's event thread

    private void onAsync(Mi m) {
        if (m.kind() == '*' && "stopped".equals(m.klass())) {
            String reason = Optional.ofNullable(m.string("reason")).orElse("");
            String thread = m.string("thread-id");
            if (reason.equals("breakpoint-hit")) {
                onHit(m.string("bkptno"), thread, m.map("frame"));
            } else if (reason.equals("function-finished") || reason.isEmpty() && finishing(thread) != null) {
                onFinished(thread); // gdb 13 reports a finish without debug info with no reason
            } else if (reason.startsWith("exited")) {
                onProgramExit(reason);
            } else if (!program.isFrozen() && thread != null && !heldThreads().contains(thread)) {
                log.debug("native barrier: thread {} stopped ({}) with nothing holding it; resuming it", thread, reason);
                continueThread(thread);
            }
        } else if (m.kind() == '=' && "thread-group-exited".equals(m.klass())) {
            onProgramExit("exited" + (m.string("exit-code") == null ? "" : " with code " + m.string("exit-code")));
        } else if (m.kind() == '=' && "gdb-exited".equals(m.klass())) {
            snapshot().forEach(a -> endQuietly(a, "debugger-exit", false));
        }
    }

    /** Stray stopped threads are let go only while no barrier is armed or finishing (see {@link TracedProgram#resumeStrays}). */
    private void resumeStrays() {
        if (gone || closed) {
            return;
        }
        Set<String> held;
        synchronized (this) {
            if (!byBreakpoint.isEmpty() || armed.stream().anyMatch(a -> a.finishing)) {
                program.forgetStrays();
                return;
            }
            held = heldThreads();
        }
        program.resumeStrays(held);
    }

    /** The barrier whose call {@code thread} is returning from (gdb finishes it), or null. */
    private synchronized Armed finishing(String thread) {
        return armed.stream().filter(x -> x.finishing && Objects.equals(x.thread, thread)).findFirst().orElse(null);
    }

    private void onHit(String breakpoint, String thread, Map<String, Object> frame) {
        Armed a;
        synchronized (this) {
            a = byBreakpoint.get(breakpoint);
        }
        if (a == null || a.thread != null || a.barrier.state() != BarrierState.ARMED || closed) {
            if (!program.isFrozen()) {
                continueThread(thread); // while frozen, thaw() lets it go with the others
            }
            return;
        }
        Map<String, String> context = new TreeMap<>();
        String function = String.valueOf(frame.getOrDefault("func", "?"));
        context.put("function", function);
        context.put("library", String.valueOf(frame.getOrDefault("from", library)));
        context.put("pid", Long.toString(pid));
        context.put("hold", a.mode == HoldMode.THREAD ? "thread (gdb non-stop: the program's other threads run)" : "process (every thread)");
        a.target.context().forEach((name, expression) -> {
            String value = program.evaluate(thread, expression);
            if (value != null && !value.isEmpty()) {
                context.put(name, value);
            }
        });
        String lwp = "";
        String name = "";
        try {
            TracedProgram.Seen seen = program.seen(thread);
            lwp = seen.lwp();
            name = seen.name();
        } catch (RuntimeException e) {
            context.put("inspect-error", e.getMessage());
        }
        context.put("thread", name + " (LWP " + lwp + ", gdb thread " + thread + ")");
        List<String> stack = program.stack(thread);
        Arrival.Facts facts = Arrival.Facts.NONE;
        if (a.mode == HoldMode.THREAD) {
            String others = program.threadsWhileHeld(lwp);
            context.put("threads", others);
            facts = Arrival.Facts.otherThreadsSeen(others);
        }
        Arrival arrival = new Arrival(a.barrier.point(), name.isEmpty() ? "LWP " + lwp : name + " (LWP " + lwp + ")", context, List.of(),
                stack, Instant.now(), System.nanoTime(), facts);
        if (a.mode == HoldMode.PROCESS) {
            try {
                freeze(); // before the arrival is seen: a controller that sees it finds every thread stopped
            } catch (RuntimeException e) {
                log.warn("native barrier {}: cannot stop every thread of pid {} ({}); letting them run", a.barrier.point(), pid, e.getMessage());
                thaw();
                continueThread(thread);
                return;
            }
        }
        synchronized (this) {
            if (gone || !a.injector.reach(arrival)) {
                if (a.mode == HoldMode.PROCESS) {
                    thaw();
                }
                continueThread(thread);
                return;
            }
            a.thread = thread;
            disarm(a);
        }
        a.injector.onRelease(() -> resume(a));
        watchdog.schedule(() -> {
            if (a.barrier.state() == BarrierState.HELD) {
                log.warn("native barrier {} held for its safety timeout {}; releasing", a.barrier.point(), a.options.holdTimeout());
                a.injector.release("hold-timeout");
            }
        }, a.options.holdTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Removes a barrier's breakpoints (one-shot: later calls pass at full speed). */
    private void disarm(Armed a) {
        for (String b : a.breakpoints) {
            byBreakpoint.remove(b);
            gdb.send("-break-delete " + b);
        }
    }

    /** The released call runs to its return, where its result is read ({@link #onFinished}). */
    private void resume(Armed a) {
        if (gone || !gdb.alive()) {
            return;
        }
        thaw(); // a frozen program's other threads first: the held one is still held, and runs next
        synchronized (this) {
            a.finishing = !closed; // before resumed: a look for stray stopped threads must never take the held one for one
            a.resumed = true;
        }
        if (closed) {
            continueThread(a.thread);
            return;
        }
        Mi r = GdbSession.await(gdb.send("-exec-finish --thread " + a.thread), "-exec-finish", ANSWER);
        if ("error".equals(r.klass())) {
            a.finishing = false;
            log.debug("native barrier: cannot watch {} return ({}); letting it run", a.barrier.point(), r.string("msg"));
            continueThread(a.thread);
        }
    }

    private void onFinished(String thread) {
        Armed a = finishing(thread);
        if (a == null) {
            continueThread(thread);
            return;
        }
        a.finishing = false;
        String rax = program.evaluate(thread, "(int) " + (registers[0].equals("$rdi") ? "$rax" : "$x0"));
        continueThread(thread);
        int rc;
        try {
            rc = Integer.parseInt(rax == null ? "" : rax.trim());
        } catch (NumberFormatException e) {
            log.warn("native barrier {}: the call's result could not be read ({}); no outcome recorded", a.barrier.point(), rax);
            return; // unknown is not accepted
        }
        a.injector.recordOutcome(a.target.returns().classify(a.barrier.point(), rc));
    }

    private void onProgramExit(String how) {
        synchronized (this) {
            if (gone || closed) {
                return; // a detach ends the thread group too
            }
            gone = true;
        }
        log.info("native barrier: pid {} {}", pid, how);
        snapshot().forEach(a -> endQuietly(a, "program-exit", false));
    }

    private synchronized List<Armed> snapshot() {
        return List.copyOf(armed);
    }

    private void continueThread(String thread) {
        program.continueThread(thread);
    }

    /** Removes every breakpoint, lets every thread run, detaches, and ends gdb. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            snapshot().forEach(a -> endQuietly(a, "detach", true));
            if (gdb.alive() && !gone) {
                gdb.run("-break-delete", ANSWER);
                gdb.send("-exec-continue --all"); // a frozen or held thread runs; an error (nothing stopped) does not matter
                gdb.run("-target-detach", ANSWER);
                gdb.send("-gdb-exit");
            }
        } catch (RuntimeException e) {
            log.warn("native barrier: detaching from pid {} failed: {}", pid, e.getMessage());
        } finally {
            gdb.close(); // its input closes: gdb detaches and quits on its own if the commands above did not get through
            watchdog.shutdownNow();
        }
    }

    /** Releases a held barrier (and expires an armed one, when {@code expire}); a barrier that moved meanwhile is left as it is. */
    private static void endQuietly(Armed a, String by, boolean expire) {
        try {
            if (a.barrier.state() == BarrierState.HELD) {
                a.injector.release(by);
            } else if (expire && a.barrier.state() == BarrierState.ARMED) {
                a.barrier.expire();
            }
        } catch (IllegalStateException moved) { // an illegal move (it moved meanwhile), or gdb gone while releasing
            log.debug("native barrier {}: {} while closing", a.barrier.point(), moved.getMessage());
        }
    }

    /**
     * A crash while held: SIGKILL to the program the debugger is attached to (which may be a
     * wrapper's descendant), returning once {@code /proc} shows it gone. SIGKILL ends a program
     * stopped under ptrace.
     */
    public void killProgram() {
        program.kill();
        onProgramExit("killed (SIGKILL)");
    }

    private static final class Armed {
        final Barrier barrier;
        final Injector injector;
        final NativePoint target;
        final HoldMode mode;
        final BarrierOptions options;
        final List<String> breakpoints = new ArrayList<>();
        volatile String thread;
        volatile boolean finishing;
        volatile boolean resumed;

        Armed(Barrier barrier, NativePoint target, HoldMode mode, BarrierOptions options) {
            this.barrier = barrier;
            this.injector = Injector.of(barrier);
            this.target = target;
            this.mode = mode;
            this.options = options;
        }
    }
}
