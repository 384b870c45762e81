package io.replaylab.barrier.gdb;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import io.replaylab.evidence.process.Poll;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The program gdb is attached to, thread by thread: stopped all at once (a freeze), let run again,
 * looked at (a thread's name, its stack, an expression in its frame), killed. The barriers decide
 * which thread is held; this only acts and reads.
 */
final class TracedProgram {
    private static final Logger log = LoggerFactory.getLogger(TracedProgram.class);

    private final GdbSession gdb;
    private final long pid;
    private final BooleanSupplier gone;
    private final Duration answer;
    private volatile boolean frozen;
    private volatile Set<Long> strays = Set.of();

    TracedProgram(GdbSession gdb, long pid, BooleanSupplier gone, Duration answer) {
        this.gdb = gdb;
        this.pid = pid;
        this.gone = gone;
        this.answer = answer;
    }

    /** A thread as gdb names it: its name (may be empty) and kernel thread id. */
    record Seen(String name, String lwp) {
    }

    boolean isFrozen() {
        return frozen;
    }

    /** Stops every thread and returns once {@code /proc} shows each stopped by its tracer (state {@code t}); the states, by thread id. */
    Map<Long, Character> freeze() {
        if (gone.getAsBoolean()) {
            throw new IllegalStateException("pid " + pid + " is gone: nothing to freeze");
        }
        frozen = true; // first: the stops this causes are not strays to resume
        gdb.run("-exec-interrupt --all", answer);
        Map<Long, Character> states;
        try {
            states = Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(10))
                    .until(() -> ProcessTree.threadStates(pid), t -> !t.isEmpty() && t.values().stream().allMatch(s -> s == 't'));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping pid " + pid, e);
        }
        if (!states.isEmpty() && states.values().stream().allMatch(s -> s == 't')) {
            return Map.copyOf(states);
        }
        throw new IllegalStateException("pid " + pid + " did not stop within 10 s: its threads' states are " + states);
    }

    /** Lets every stopped thread run again except the {@code held} ones (gdb thread ids). */
    void thaw(Set<String> held) {
        if (!frozen || gone.getAsBoolean() || !gdb.alive()) {
            frozen = false;
            return;
        }
        forEachStopped(held, id -> true);
        frozen = false;
    }

    /**
     * A non-stop debugger holds only what a barrier holds: a thread seen stopped by its tracer twice,
     * half a second apart (calls this far apart), while nothing is armed, finishing or frozen, is let
     * go. (gdb 13 was seen to leave a thread the program created during a hold stopped, and the
     * program could not exit.)
     */
    void resumeStrays(Set<String> held) {
        if (gone.getAsBoolean() || frozen || !gdb.alive()) {
            return;
        }
        Set<Long> stopped = new HashSet<>();
        ProcessTree.threadStates(pid).forEach((tid, state) -> {
            if (state == 't') {
                stopped.add(tid);
            }
        });
        Set<Long> seenTwice = new HashSet<>(stopped);
        seenTwice.retainAll(strays);
        strays = stopped;
        if (seenTwice.isEmpty()) {
            return;
        }
        try {
            forEachStopped(held, targetId -> {
                boolean stray = seenTwice.contains(lwp(targetId));
                if (stray) {
                    log.debug("native barrier: thread {} of pid {} was left stopped; resuming it", targetId, pid);
                }
                return stray;
            });
        } catch (RuntimeException e) {
            log.debug("native barrier: cannot look at pid {}'s threads: {}", pid, e.getMessage());
        }
    }

    /** Something is armed or finishing: a stopped thread now may be its, so the strays seen so far start over. */
    void forgetStrays() {
        strays = Set.of();
    }

    private void forEachStopped(Set<String> held, java.util.function.Predicate<String> byTargetId) {
        Mi info = gdb.run("-thread-info", answer);
        for (Object t : Mi.list(info.results().get("threads"))) {
            if (t instanceof Map<?, ?> m && "stopped".equals(m.get("state")) && !held.contains(m.get("id"))
                    && byTargetId.test(String.valueOf(m.get("target-id")))) {
                continueThread((String) m.get("id"));
            }
        }
    }

    private static long lwp(String targetId) {
        int at = targetId.indexOf("LWP ");
        if (at < 0) {
            return -1;
        }
        String digits = targetId.substring(at + 4).replaceAll("\\D.*", "");
        return digits.isEmpty() ? -1 : Long.parseLong(digits);
    }

    void continueThread(String thread) {
        if (thread != null && gdb.alive() && !gone.getAsBoolean()) {
            gdb.send("-exec-continue --thread " + thread);
        }
    }

    /** A gdb expression's value in a thread's context, as gdb prints it (a string's quotes removed); null when it cannot. */
    String evaluate(String thread, String expression) {
        try {
            String v = gdb.run("-data-evaluate-expression --thread " + thread + " --frame 0 \"" + expression.replace("\"", "\\\"") + "\"", answer)
                    .string("value");
            if (v != null && v.startsWith("\"") && v.endsWith("\"") && v.length() >= 2) {
                return v.substring(1, v.length() - 1).replace("\\n", "\n").replace("\\\"", "\"");
            }
            return v;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** A thread's name and kernel id; gdb's error is thrown. */
    Seen seen(String thread) {
        String lwp = "";
        String name = "";
        Mi info = gdb.run("-thread-info " + thread, answer);
        for (Object t : Mi.list(info.results().get("threads"))) {
            if (t instanceof Map<?, ?> m) {
                String target = String.valueOf(m.get("target-id"));
                int at = target.indexOf("LWP ");
                lwp = at >= 0 ? target.substring(at + 4).replace(")", "").trim() : target;
                name = m.get("name") == null ? "" : String.valueOf(m.get("name"));
            }
        }
        return new Seen(name, lwp);
    }

    /** The thread's innermost frames, as function (file:line or library). */
    List<String> stack(String thread) {
        List<String> stack = new ArrayList<>();
        try {
            Mi frames = gdb.run("-stack-list-frames --thread " + thread + " 0 11", answer);
            for (Object f : Mi.list(frames.results().get("stack"))) {
                if (f instanceof Map<?, ?> m) {
                    Object where = m.get("file") != null ? m.get("file") + ":" + m.get("line") : m.get("from");
                    stack.add(m.get("func") + (where == null ? "" : " (" + where + ")"));
                }
            }
        } catch (RuntimeException e) {
            stack.add("(no stack: " + e.getMessage() + ")");
        }
        return stack;
    }

    /**
     * Which of the program's threads run on while one is held, by name, and what that means for a
     * Kafka client: none (everything shares the thread), or Node's main thread, where a JavaScript
     * client (KafkaJS) runs its heartbeats: a thread hold is then a freeze for Kafka.
     */
    String threadsWhileHeld(String heldLwp) {
        Map<Long, Character> states = ProcessTree.threadStates(pid);
        Map<String, Integer> running = new TreeMap<>();
        states.forEach((tid, state) -> {
            if (state != 't' && !Long.toString(tid).equals(heldLwp)) {
                running.merge(ProcessTree.name(pid, tid), 1, Integer::sum);
            }
        });
        int n = running.values().stream().mapToInt(Integer::intValue).sum();
        StringBuilder names = new StringBuilder();
        running.forEach((name, count) -> names.append(names.length() == 0 ? "" : ", ").append(name).append(count > 1 ? " ×" + count : ""));
        String text = states.size() + " in the program, " + n + " running while this one is held" + (n == 0 ? "" : " (" + names + ")");
        if (n == 0) {
            return text + ": the database and everything else share this thread, so a thread hold is a freeze";
        }
        String exe = ProcessTree.mappedFiles(pid).stream().findFirst().map(f -> f.getFileName().toString()).orElse("");
        if (heldLwp.equals(Long.toString(pid)) && exe.startsWith("node")) {
            return text + "; but this is Node's main thread, where all its JavaScript runs: a JavaScript Kafka client (KafkaJS) stops with it, "
                    + "so for Kafka this thread hold is a freeze";
        }
        return text;
    }

    /**
     * SIGKILL, returning once {@code /proc} shows the program gone (SIGKILL ends a program stopped
     * under ptrace). A crash is not cancelled by an interrupt: it waits anyway (each interrupt gives
     * it 10 s more) and passes the interrupt on.
     */
    void kill() {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        boolean interrupted = false;
        boolean dead;
        while (true) {
            try {
                dead = Poll.every(Duration.ofMillis(10)).upTo(Duration.ofSeconds(10)).until(() -> !ProcessTree.alive(pid));
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!dead) {
            throw new IllegalStateException("pid " + pid + " is still alive 10 s after SIGKILL");
        }
    }
}
