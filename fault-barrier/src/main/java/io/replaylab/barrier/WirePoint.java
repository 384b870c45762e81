package io.replaylab.barrier;

import java.util.Objects;

/**
 * A group's request on the Kafka protocol, held in the proxy: a consumer group's OffsetCommit (the
 * request before the broker sees it, or the broker's answer before the client does), or a share
 * group's acknowledgement (a ShareAcknowledge, or a ShareFetch that carries acknowledgements) before
 * the broker sees it.
 *
 * @param group   the group whose request is held (another group's pass)
 * @param edge    {@link Edge#REQUEST} or {@link Edge#ANSWER}
 * @param request which request of the group: {@link Request#OFFSET_COMMIT} or {@link Request#SHARE_ACKNOWLEDGEMENT}
 */
public record WirePoint(String group, Edge edge, Request request) implements Point {
    /** Which half of the exchange is held. */
    public enum Edge {
        /** the client's request, before the broker reads it: the offsets are not stored yet */
        REQUEST,
        /** the broker's answer, before the client reads it: the offsets are stored */
        ANSWER
    }

    /** Which request of the group is held. */
    public enum Request {
        /** a consumer group's OffsetCommit */
        OFFSET_COMMIT,
        /** a share group's acknowledgement: a ShareAcknowledge, or a ShareFetch whose partitions carry acknowledgements */
        SHARE_ACKNOWLEDGEMENT
    }

    public WirePoint {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(edge, "edge");
        Objects.requireNonNull(request, "request");
        if (request == Request.SHARE_ACKNOWLEDGEMENT && edge == Edge.ANSWER) {
            throw new IllegalArgumentException("share group " + group + ": the answer to an acknowledgement is no hold point yet;"
                    + " hold the request (WirePoint.shareAcknowledgement(group))");
        }
    }

    /** A consumer group's point: {@code new WirePoint(group, edge, Request.OFFSET_COMMIT)}. */
    public WirePoint(String group, Edge edge) {
        this(group, edge, Request.OFFSET_COMMIT);
    }

    /** Group {@code group}'s OffsetCommit request. */
    public static WirePoint offsetCommit(String group) {
        return new WirePoint(group, Edge.REQUEST, Request.OFFSET_COMMIT);
    }

    /** The broker's answer to group {@code group}'s OffsetCommit. */
    public static WirePoint offsetCommitAnswer(String group) {
        return new WirePoint(group, Edge.ANSWER, Request.OFFSET_COMMIT);
    }

    /** Share group {@code group}'s acknowledgement request: a ShareAcknowledge, or a ShareFetch carrying acknowledgements. */
    public static WirePoint shareAcknowledgement(String group) {
        return new WirePoint(group, Edge.REQUEST, Request.SHARE_ACKNOWLEDGEMENT);
    }

    @Override
    public String describe() {
        if (request == Request.SHARE_ACKNOWLEDGEMENT) {
            return "share group " + group + "'s acknowledgement (ShareAcknowledge, or a ShareFetch carrying acknowledgements) on the wire";
        }
        return (edge == Edge.REQUEST ? "group " + group + "'s OffsetCommit request" : "the broker's answer to group " + group + "'s OffsetCommit")
                + " on the wire";
    }

    @Override
    public String toString() {
        return describe();
    }
}
