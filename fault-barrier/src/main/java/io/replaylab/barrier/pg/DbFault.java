package io.replaylab.barrier.pg;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A fault the PostgreSQL proxy puts in front of a consumer's transaction, written {@code target:effect[=SQLSTATE]}:
 * <ul>
 *   <li>{@code commit:lost-answer}: the COMMIT reaches the server and commits; its answer is dropped and the connection
 *       closed both ways (the ambiguous commit: the client cannot know the transaction is durable);</li>
 *   <li>{@code commit:error=40001}: the COMMIT is answered with that SQLSTATE and the transaction rolled back (the proxy
 *       sends ROLLBACK in its place), as a serialization failure at commit ends a transaction;</li>
 *   <li>{@code statement:error=40P01}: a statement inside a transaction fails on the server with that SQLSTATE (the proxy
 *       runs a statement that raises it in its place): the transaction is aborted, as a deadlock victim's is;</li>
 *   <li>{@code connection:terminate=57P01}: at the COMMIT, before the server sees it, the client is told {@code FATAL} with
 *       that SQLSTATE and the connection closed: the server rolls the open transaction back, as after an administrator's
 *       {@code pg_terminate_backend}.</li>
 * </ul>
 * Each fires once, at the first transaction of the sessions it is aimed at ({@link #at}: by the session's owner).
 *
 * @param target   which message it meets
 * @param effect   what it does there
 * @param sqlState the SQLSTATE an error or a termination carries; null for a lost answer
 * @param owner    whose sessions it hits (the proxy's owner of a session: its instance); null: any
 */
public record DbFault(Target target, Effect effect, String sqlState, String owner) {
    private static final Pattern SQLSTATE = Pattern.compile("[0-9A-Z]{5}");

    /** Which message a fault meets. */
    public enum Target {
        COMMIT, STATEMENT, CONNECTION;

        String id() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** What a fault does there. */
    public enum Effect {
        LOST_ANSWER("lost-answer"), ERROR("error"), TERMINATE("terminate");

        private final String id;

        Effect(String id) {
            this.id = id;
        }
    }

    public DbFault {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(effect, "effect");
        boolean valid = switch (effect) {
            case LOST_ANSWER -> target == Target.COMMIT && sqlState == null;
            case ERROR -> target != Target.CONNECTION && sqlState != null;
            case TERMINATE -> target == Target.CONNECTION && sqlState != null;
        };
        if (!valid) {
            throw new IllegalArgumentException("no database fault " + target.id() + ":" + effect.id + (sqlState == null ? "" : "=" + sqlState)
                    + ": use " + CATALOGUE);
        }
        if (sqlState != null && !SQLSTATE.matcher(sqlState).matches()) {
            throw new IllegalArgumentException("'" + sqlState + "' is no SQLSTATE (five digits or capital letters, e.g. 40001)");
        }
    }

    /** What {@link #parse} takes, e.g. for a refusal. */
    public static final String CATALOGUE = "commit:lost-answer, commit:error=<SQLSTATE> (e.g. 40001), statement:error=<SQLSTATE> (e.g. 40P01), "
            + "connection:terminate=<SQLSTATE> (e.g. 57P01)";

    /** {@code commit:lost-answer}, {@code commit:error=40001}, {@code statement:error=40P01}, {@code connection:terminate=57P01}; a clear error otherwise. */
    public static DbFault parse(String spec) {
        String text = spec == null ? "" : spec.trim();
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("a database fault is target:effect, e.g. commit:lost-answer; was '" + spec + "': use " + CATALOGUE);
        }
        String t = text.substring(0, colon);
        String rest = text.substring(colon + 1);
        int eq = rest.indexOf('=');
        String e = eq < 0 ? rest : rest.substring(0, eq);
        String state = eq < 0 ? null : rest.substring(eq + 1);
        Target target = java.util.Arrays.stream(Target.values()).filter(x -> x.id().equals(t)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown database fault target '" + t + "' in '" + spec + "': use " + CATALOGUE));
        Effect effect = java.util.Arrays.stream(Effect.values()).filter(x -> x.id.equals(e)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown database fault effect '" + e + "' in '" + spec + "': use " + CATALOGUE));
        return new DbFault(target, effect, state, null);
    }

    /** This fault, aimed at the sessions of {@code owner} only. */
    public DbFault at(String owner) {
        return new DbFault(target, effect, sqlState, Objects.requireNonNull(owner, "owner"));
    }

    /** As written, e.g. {@code commit:error=40001}. */
    public String spec() {
        return target.id() + ":" + effect.id + (sqlState == null ? "" : "=" + sqlState);
    }

    /** What it does, in words. */
    public String meaning() {
        String whose = owner == null ? "a session's" : owner + "'s";
        return switch (effect) {
            case LOST_ANSWER -> whose + " COMMIT reaches the server and commits; its answer is dropped and the connection closed (an ambiguous commit)";
            case ERROR -> target == Target.COMMIT ? whose + " COMMIT is answered with SQLSTATE " + sqlState + " and its transaction rolled back"
                    : "a statement of " + whose + " transaction fails on the server with SQLSTATE " + sqlState + ", aborting the transaction";
            case TERMINATE -> whose + " connection is terminated (FATAL, SQLSTATE " + sqlState + ") at its COMMIT, before the server sees it: the "
                    + "open transaction is rolled back";
        };
    }

    /** Whether it meets a COMMIT (a lost answer, a commit error, a termination) rather than a statement before it. */
    boolean atCommit() {
        return target != Target.STATEMENT;
    }

    @Override
    public String toString() {
        return spec();
    }
}
