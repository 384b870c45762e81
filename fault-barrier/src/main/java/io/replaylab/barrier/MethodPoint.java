package io.replaylab.barrier;

import java.util.Objects;
import java.util.Optional;

/**
 * A method (every overload) whose entry, or normal return, is a barrier point. The class may be an
 * interface: then the point is that method in every class that implements it (e.g.
 * {@link #jdbcCommit()}), and the outermost call a thread makes is the one held.
 *
 * @param edge    {@link Edge#ENTRY}: held before the method's first line; {@link Edge#RETURN}: held
 *                after its last, once it completed normally (a call that throws passes)
 * @param offsets how the call's first argument reads as the offsets it commits, or null: the
 *                argument is not read
 */
public record MethodPoint(String className, String methodName, Edge edge, OffsetsArgument offsets) implements Point {
    /** Where in the call the program is held. */
    public enum Edge {
        ENTRY, RETURN
    }

    /**
     * A call's first argument read as committed offsets: a {@code Map} whose keys carry a text field
     * {@code topicField} and an int field {@code partitionField}, and whose values a long field
     * {@code offsetField}. A map read as empty (a commit of nothing) lets the call pass, unheld.
     */
    public record OffsetsArgument(String topicField, String partitionField, String offsetField) {
        public OffsetsArgument {
            Objects.requireNonNull(topicField, "topicField");
            Objects.requireNonNull(partitionField, "partitionField");
            Objects.requireNonNull(offsetField, "offsetField");
        }
    }

    public MethodPoint {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(methodName, "methodName");
        Objects.requireNonNull(edge, "edge");
    }

    /** At the method's entry; its arguments are not read. */
    public MethodPoint(String className, String methodName) {
        this(className, methodName, Edge.ENTRY, null);
    }

    /** How the call's first argument reads as committed offsets, when it is read. */
    public Optional<OffsetsArgument> offsetsArgument() {
        return Optional.ofNullable(offsets);
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

    /**
     * Every overload of {@code KafkaConsumer#commitSync}: after the DB commit, before the offset
     * commit leaves. A {@code Map<TopicPartition, OffsetAndMetadata>} argument is read as the offsets
     * it commits (Kafka's field names live here, not in the debugger).
     */
    public static MethodPoint kafkaCommitSync() {
        return new MethodPoint("org.apache.kafka.clients.consumer.KafkaConsumer", "commitSync", Edge.ENTRY,
                new OffsetsArgument("topic", "partition", "offset"));
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
        return new MethodPoint(className, methodName, Edge.RETURN, offsets);
    }

    @Override
    public String describe() {
        return className + "#" + methodName + (edge == Edge.RETURN ? " (on return)" : "");
    }

    @Override
    public String toString() {
        return describe();
    }
}
