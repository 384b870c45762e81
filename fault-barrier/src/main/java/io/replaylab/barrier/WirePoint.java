package io.replaylab.barrier;

import java.util.Objects;

/**
 * A consumer group's OffsetCommit on the Kafka protocol, held in the proxy: the request before the
 * broker sees it, or the broker's answer before the client does.
 *
 * @param group the group whose commit is held (another group's pass)
 * @param edge  {@link Edge#REQUEST} or {@link Edge#ANSWER}
 */
public record WirePoint(String group, Edge edge) implements Point {
    /** Which half of the exchange is held. */
    public enum Edge {
        /** the client's request, before the broker reads it: the offsets are not stored yet */
        REQUEST,
        /** the broker's answer, before the client reads it: the offsets are stored */
        ANSWER
    }

    public WirePoint {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(edge, "edge");
    }

    /** Group {@code group}'s OffsetCommit request. */
    public static WirePoint offsetCommit(String group) {
        return new WirePoint(group, Edge.REQUEST);
    }

    /** The broker's answer to group {@code group}'s OffsetCommit. */
    public static WirePoint offsetCommitAnswer(String group) {
        return new WirePoint(group, Edge.ANSWER);
    }

    @Override
    public String describe() {
        return (edge == Edge.REQUEST ? "group " + group + "'s OffsetCommit request" : "the broker's answer to group " + group + "'s OffsetCommit")
                + " on the wire";
    }

    @Override
    public String toString() {
        return describe();
    }
}
