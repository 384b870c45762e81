package io.replaylab.barrier;

/**
 * A transaction's {@code COMMIT} on the PostgreSQL protocol, held in the PostgreSQL proxy
 * ({@code io.replaylab.barrier.pg.PgProxy}) whatever the client's language: the statement before the
 * server sees it (the transaction is still open), or the server's answer before the client does (the
 * transaction is committed and the client does not know).
 *
 * @param edge     {@link Edge#REQUEST} or {@link Edge#ANSWER}
 * @param database the database whose sessions' commits are held; null: any
 */
public record PgPoint(Edge edge, String database) implements Point {
    /** Which half of the commit is held. */
    public enum Edge {
        /** the client's COMMIT, before the server reads it */
        REQUEST,
        /** the server's answer to it, before the client reads it: the transaction is durable */
        ANSWER
    }

    public PgPoint {
        java.util.Objects.requireNonNull(edge, "edge");
    }

    /** The COMMIT of a session on {@code database} (null: any), before the server sees it. */
    public static PgPoint beforeCommit(String database) {
        return new PgPoint(Edge.REQUEST, database);
    }

    /** The server's answer to the COMMIT of a session on {@code database} (null: any): committed, the client not told yet. */
    public static PgPoint afterCommit(String database) {
        return new PgPoint(Edge.ANSWER, database);
    }

    /** Whether a session on {@code db} is this point's. */
    public boolean covers(String db) {
        return database == null || database.equals(db);
    }

    @Override
    public String describe() {
        return (edge == Edge.REQUEST ? "a COMMIT on the PostgreSQL protocol, before the server sees it"
                : "the server's answer to a COMMIT on the PostgreSQL protocol, before the client sees it")
                + (database == null ? "" : " (database " + database + ")");
    }

    @Override
    public String toString() {
        return describe();
    }
}
