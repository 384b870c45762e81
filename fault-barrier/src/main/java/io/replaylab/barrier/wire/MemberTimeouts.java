package io.replaylab.barrier.wire;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The timeouts a group member asked the coordinator for, as its client sent them on the wire: the
 * consumer's own settings, whatever its code or defaults are. A classic member sends both in its
 * JoinGroup; a consumer-protocol member sends its rebalance timeout in its joining
 * ConsumerGroupHeartbeat, and its session timeout is the broker's (the group's
 * {@code consumer.session.timeout.ms}), so it is empty here.
 *
 * @param protocol  the group protocol the member joined with
 * @param session   {@code session.timeout.ms}: silent this long, the coordinator drops the member (classic only)
 * @param rebalance {@code max.poll.interval.ms} as the client sends it: how long a rebalance waits for the member, and how long
 *                  its client lets its poll loop stall before it leaves
 * @param request   the request it came in, e.g. {@code JoinGroup v9}
 */
public record MemberTimeouts(String group, String memberId, String clientId, Protocol protocol, Optional<Duration> session, Duration rebalance,
        String request, Instant seen) {

    /** The two group protocols a consumer joins with. */
    public enum Protocol {
        /** JoinGroup, SyncGroup, Heartbeat: the client's heartbeat thread keeps the member in the group. */
        CLASSIC,
        /** KIP-848's ConsumerGroupHeartbeat: the coordinator assigns; its session timeout is a broker setting. */
        CONSUMER;

        public String display() {
            return this == CLASSIC ? "classic" : "consumer";
        }
    }

    public MemberTimeouts {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(memberId, "memberId");
        clientId = clientId == null ? "" : clientId;
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(rebalance, "rebalance");
    }

    /** {@code classic protocol, session.timeout.ms 45000, max.poll.interval.ms 300000 (JoinGroup v9 of client rdkafka)}. */
    public String summary() {
        return protocol.display() + " protocol, " + session.map(s -> "session.timeout.ms " + s.toMillis() + ", ").orElse("")
                + "max.poll.interval.ms " + rebalance.toMillis() + " (" + request + (clientId.isEmpty() ? "" : " of client " + clientId) + ")";
    }
}
