package io.replaylab.barrier;

import java.util.List;
import java.util.Map;
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
 * @param helper     a class-path resource of gdb Python that defines the conditions' functions, or null
 * @param context    what the arrival records beside the function: a name and the gdb expression giving it
 *                   (an empty value is left out)
 * @param returns    how the held call's return value reads once it is released
 */
public record NativePoint(String name, List<Probe> probes, String unreached, String helper, Map<String, String> context, Returns returns)
        implements Point {
    /** How a held call's integer result reads: the call accepted, or rejected with the result's name. */
    @FunctionalInterface
    public interface Returns {
        /** The outcome of point {@code point}'s call that returned {@code result}. */
        CallOutcome classify(String point, long result);

        /** Any result is accepted: a function whose result says nothing about success. */
        static Returns accepted() {
            return (point, result) -> CallOutcome.accepted(point);
        }
    }

    /** SQLite's result codes (the primary code, the low byte) as its documentation names them. */
    private static final Map<Integer, String> SQLITE_CODES = Map.ofEntries(Map.entry(0, "SQLITE_OK"), Map.entry(1, "SQLITE_ERROR"),
            Map.entry(5, "SQLITE_BUSY"), Map.entry(6, "SQLITE_LOCKED"), Map.entry(7, "SQLITE_NOMEM"), Map.entry(8, "SQLITE_READONLY"),
            Map.entry(9, "SQLITE_INTERRUPT"), Map.entry(10, "SQLITE_IOERR"), Map.entry(11, "SQLITE_CORRUPT"), Map.entry(13, "SQLITE_FULL"),
            Map.entry(19, "SQLITE_CONSTRAINT"), Map.entry(21, "SQLITE_MISUSE"), Map.entry(100, "SQLITE_ROW"), Map.entry(101, "SQLITE_DONE"));
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
        context = Map.copyOf(context);
        Objects.requireNonNull(returns, "returns");
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
                        + "outermost savepoint do not",
                "/io/replaylab/barrier/gdb/sqlite_point.py", Map.of("sql", "$_rl_last()"), NativePoint::sqliteResult);
    }

    /** {@code SQLITE_DONE} and {@code SQLITE_OK} end a commit; any other code rejected it (e.g. {@code SQLITE_BUSY}). */
    private static CallOutcome sqliteResult(String point, long rc) {
        if (rc == 101 || rc == 0) {
            return CallOutcome.accepted(point);
        }
        String code = SQLITE_CODES.getOrDefault((int) (rc & 0xff), "code " + rc);
        return CallOutcome.rejected(point, code, "the call returned " + code + " (" + rc + ")");
    }

    /** Every call of {@code function} (at its entry); its result is not judged. */
    public static NativePoint function(String function) {
        return new NativePoint(function, List.of(new Probe(function, null)), "", null, Map.of(), Returns.accepted());
    }

    /**
     * The same functions, their conditions evaluated at every call but never holding: what an armed
     * point costs a program before its arrival (for a benchmark).
     */
    public NativePoint thatNeverHolds() {
        return new NativePoint(name + ", never holding", probes.stream().map(p -> new Probe(p.function(),
                p.condition() == null ? "0" : "(" + p.condition() + ") && 0")).toList(), unreached, helper, context, returns);
    }

    @Override
    public String describe() {
        return name;
    }

    @Override
    public String toString() {
        return name;
    }
}
