package io.replaylab.barrier.pg;

import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A transaction the PostgreSQL proxy saw end on a session: whose, when, how, and what it ran (statement texts and their
 * bound parameters, each cut at {@link PgWitness#MAX_TEXT} characters, at most {@link PgWitness#MAX_STATEMENTS}).
 *
 * @param owner      the session's owner (its instance), or its application name
 * @param session    the proxy's number for the session
 * @param ended      when its end was answered (or the connection closed)
 * @param outcome    what became of it
 * @param sqlState   the error's SQLSTATE for {@link Outcome#FAILED}, else empty
 * @param statements what it ran, in order: texts, and "$n=value" for each bound parameter
 */
public record WitnessedTransaction(String owner, int session, Instant ended, Outcome outcome, String sqlState, List<String> statements) {
    /** What became of a transaction. */
    public enum Outcome {
        /** the server answered its COMMIT (or ran it on its own, autocommit) */
        COMMITTED,
        /** rolled back by the client, or by the server at a COMMIT of a failed transaction */
        ROLLED_BACK,
        /** a statement or its COMMIT failed (an error the server answered) and it was rolled back */
        FAILED,
        /** the connection closed in it with no COMMIT sent: the server rolled it back */
        ABANDONED,
        /** the connection closed after its COMMIT was sent and before the answer reached the client: committed or not, the client cannot tell */
        AMBIGUOUS
    }

    /** Transaction control: BEGIN, START, COMMIT, END, ROLLBACK, ABORT, SAVEPOINT, RELEASE, PREPARE TRANSACTION. */
    private static final Pattern CONTROL = Pattern.compile("(?is)\\s*(begin|start|commit|end|rollback|abort|savepoint|release|prepare\\s+transaction)\\b.*");
    /** A session's settings: SET, SHOW, RESET. */
    private static final Pattern SETTING = Pattern.compile("(?is)\\s*(set|show|reset)\\b.*");

    public WitnessedTransaction {
        statements = List.copyOf(statements);
    }

    /** Whether {@code statement} controls a transaction (begins, ends, or marks a savepoint in one) rather than doing its work. */
    public static boolean isControl(String statement) {
        return CONTROL.matcher(statement).matches();
    }

    /** The statements that did its work: not transaction control ({@link #isControl}) or a session's settings. */
    public static List<String> work(List<String> statements) {
        return statements.stream().filter(x -> !isControl(x) && !SETTING.matcher(x).matches()).toList();
    }

    /** Whether it did no work of its own: a session's set-up (SET, SHOW) or an empty BEGIN … COMMIT, as a driver runs on connecting. */
    public boolean setUpOnly() {
        return work(statements).isEmpty();
    }

    /**
     * The ids of {@code ids} this transaction's statements name: a bound parameter equal to one, or the id in a statement's
     * text with no id character (letter, digit, '.', '-', '_') right before or after it.
     */
    public Set<String> mentions(Collection<String> ids) {
        return mentioned(statements, ids);
    }

    /** The ids of {@code ids} that {@code statements} name (see {@link #mentions}). */
    static Set<String> mentioned(List<String> statements, Collection<String> ids) {
        return ids.stream().filter(id -> statements.stream().anyMatch(s -> names(s, id))).collect(Collectors.toCollection(LinkedHashSet::new));
    }

    private static boolean names(String text, String id) {
        for (int i = text.indexOf(id); i >= 0; i = text.indexOf(id, i + 1)) {
            int end = i + id.length();
            if ((i == 0 || !idChar(text.charAt(i - 1))) && (end == text.length() || !idChar(text.charAt(end)))) {
                return true;
            }
        }
        return false;
    }

    private static boolean idChar(char c) {
        return Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_';
    }

    /** In one line: whose, how, and how many statements. */
    public String summary() {
        return owner + "'s transaction on session " + session + " " + outcome.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                + (sqlState.isEmpty() ? "" : " (SQLSTATE " + sqlState + ")") + ", " + statements.size() + " statement(s)";
    }
}
