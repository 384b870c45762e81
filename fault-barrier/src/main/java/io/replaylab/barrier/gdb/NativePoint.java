package io.replaylab.barrier.gdb;

import java.util.List;
import java.util.Objects;

/**
 * Where a native program is held: the entry of one or more native functions, each with a condition
 * on its arguments (a gdb expression; {@code {arg1}}, {@code {arg2}} stand for the first and
 * second integer argument's register on this machine). Found in whatever the program has loaded:
 * dynamic or static symbols.
 *
 * @param name       what the point is, for a person
 * @param probes     the functions and their conditions
 * @param unreached  what to add when the point is never reached (why a program may never get there)
 */
public record NativePoint(String name, List<Probe> probes, String unreached) {
    /** One function's entry, held when {@code condition} (a gdb expression, or null: always) holds. */
    public record Probe(String function, String condition) {
        public Probe {
            Objects.requireNonNull(function, "function");
        }
    }

    public NativePoint {
        Objects.requireNonNull(name, "name");
        probes = List.copyOf(probes);
        if (probes.isEmpty()) {
            throw new IllegalArgumentException("a native point needs at least one function");
        }
        unreached = unreached == null ? "" : unreached;
    }

    /**
     * The SQLite commit: {@code sqlite3_step} of a statement that ends the outermost transaction
     * ({@code COMMIT} or {@code END}, with or without {@code TRANSACTION}, any case, a trailing
     * {@code ;}), or {@code sqlite3_exec} of a script that contains one. Autocommit writes (no
     * {@code BEGIN}) never reach it; a {@code RELEASE} of the outermost savepoint is not matched.
     */
    public static NativePoint sqliteCommit() {
        return new NativePoint("the SQLite commit (sqlite3_step of COMMIT/END, or sqlite3_exec of a script with one)", List.of(
                new Probe("sqlite3_step", "$_rl_learned() ? $_rl_step_ends({arg1}) : $_rl_scan({arg1})"),
                new Probe("sqlite3_exec", "$_rl_exec_ends((const char*){arg2})")),
                "only a COMMIT or END that ends a BEGIN ... transaction reaches it: autocommit writes (no BEGIN) and a RELEASE of the "
                        + "outermost savepoint do not");
    }

    /** Every call of {@code function} (at its entry). */
    public static NativePoint function(String function) {
        return new NativePoint(function, List.of(new Probe(function, null)), "");
    }

    /**
     * The same functions, their conditions evaluated at every call but never holding: what an armed
     * point costs a program before its arrival (for a benchmark).
     */
    public NativePoint thatNeverHolds() {
        return new NativePoint(name + ", never holding", probes.stream().map(p -> new Probe(p.function(),
                p.condition() == null ? "0" : "(" + p.condition() + ") && 0")).toList(), unreached);
    }

    /** The first probe's function: the one searched for in the program's files. */
    String searched() {
        return probes.get(0).function();
    }

    @Override
    public String toString() {
        return name;
    }
}
