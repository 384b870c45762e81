package io.replaylab.barrier.jdi;

import java.util.Objects;

/**
 * A method (every overload) whose entry, or normal return, is a barrier point. The class may be an
 * interface: then the point is that method in every class that implements it (e.g.
 * {@link #jdbcCommit()}), and the outermost call a thread makes is the one held.
 *
 * @param edge {@link Edge#ENTRY}: held before the method's first line; {@link Edge#RETURN}: held
 *             after its last, once it completed normally (a call that throws passes)
 */
public record MethodPoint(String className, String methodName, Edge edge) {
    /** Where in the call the program is held. */
    public enum Edge {
        ENTRY, RETURN
    }

    public MethodPoint {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(methodName, "methodName");
        Objects.requireNonNull(edge, "edge");
    }

    /** At the method's entry. */
    public MethodPoint(String className, String methodName) {
        this(className, methodName, Edge.ENTRY);
    }

    /**
     * {@code Class#method} (at entry), e.g. {@code org.postgresql.jdbc.PgConnection#commit}; a clear
     * error naming the text when it is not that shape.
     */
    public static MethodPoint parse(String text) {
        int hash = text == null ? -1 : text.indexOf('#');
        if (hash <= 0 || hash == text.length() - 1 || text.indexOf('#', hash + 1) >= 0
                || !text.substring(0, hash).matches("[\\w$]+(\\.[\\w$]+)*") || !text.substring(hash + 1).matches("[\\w$]+")) {
            throw new IllegalArgumentException("a method point is Class#method with a fully qualified class, e.g. "
                    + "org.postgresql.jdbc.PgConnection#commit; was '" + text + "'");
        }
        return new MethodPoint(text.substring(0, hash), text.substring(hash + 1));
    }

    /** Every overload of {@code KafkaConsumer#commitSync}: after the DB commit, before the offset commit leaves. */
    public static MethodPoint kafkaCommitSync() {
        return new MethodPoint("org.apache.kafka.clients.consumer.KafkaConsumer", "commitSync");
    }

    /**
     * {@code java.sql.Connection#commit} in whatever JDBC driver or pool the program uses: the
     * program's database transaction is about to commit (the outermost commit call is held, e.g. the
     * pool's proxy before the driver's).
     */
    public static MethodPoint jdbcCommit() {
        return new MethodPoint("java.sql.Connection", "commit");
    }

    /** The same method, held when it returns normally instead of at its entry. */
    public MethodPoint onReturn() {
        return new MethodPoint(className, methodName, Edge.RETURN);
    }

    @Override
    public String toString() {
        return className + "#" + methodName + (edge == Edge.RETURN ? " (on return)" : "");
    }
}
