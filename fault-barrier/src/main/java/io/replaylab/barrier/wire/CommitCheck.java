package io.replaylab.barrier.wire;

import java.util.List;
import java.util.Objects;

import io.replaylab.barrier.CommitOffset;

/**
 * A look at each OffsetCommit of a group the moment a client sends it, before the broker sees it
 * (and at each acknowledgement of a share group that ACCEPTs records: {@link Kind#ACKNOWLEDGEMENT}):
 * the commit waits on its connection (and only there) until {@link #check} returns, then goes on to
 * the broker. What a check does with that moment is its own (ask a database what the commit covers,
 * kill the client that sent it); the proxy forwards the commit afterwards either way, as a commit
 * already on its way to the broker would arrive: one whose sender the check stopped
 * ({@link After#SENDER_STOPPED}) goes straight on, past any barrier of the proxy that would hold it
 * (a held commit of a client that is gone would never reach the broker).
 *
 * <pre>{@code
 * try (WireProxy.Checking c = proxy.checkCommits("my-group", commit -> {
 *     log.info("{} commits {}", commit.clientId(), commit.offsets());
 *     return CommitCheck.After.GOES_ON;
 * })) {
 *     // run the consumer through proxy.bootstrapServers()
 * }
 * }</pre>
 */
@FunctionalInterface
public interface CommitCheck {
    /** Called on the commit's connection thread; a check that throws is logged and the commit goes on. */
    After check(Pending commit);

    /** What becomes of the commit once checked. */
    enum After {
        /** It goes on to the broker as any commit does (a barrier of the proxy may hold it). */
        GOES_ON,
        /** The check stopped its sender at it (a crash at that moment): it goes straight on to the broker, past any barrier. */
        SENDER_STOPPED
    }

    /** What a pending request is, and so what its offsets mean. */
    enum Kind {
        /** An OffsetCommit: each offset is the next one its partition's consumer will read. */
        OFFSET_COMMIT("commit"),
        /**
         * A share group's acknowledgement (a ShareAcknowledge, or a ShareFetch that carries acknowledgements): each offset is a
         * record it ACCEPTs (RELEASE, REJECT and RENEW claim no effect and are not shown).
         */
        ACKNOWLEDGEMENT("acknowledgement");

        private final String word;

        Kind(String word) {
            this.word = word;
        }

        /** {@code commit} or {@code acknowledgement}, for a sentence. */
        public String word() {
            return word;
        }
    }

    /**
     * A request on its way: who sent it and what it asks the broker to take ({@link Kind} says what its offsets are).
     *
     * @param generation the generation or member epoch of an OffsetCommit; a share acknowledgement's share session epoch
     * @param clientPort the client's TCP port on loopback: with the proxy's port, the socket that tells which process sent it
     * @param clientId   the request header's client id ({@code ""} when none)
     */
    record Pending(Kind kind, String group, String memberId, int generation, String clientId, int clientPort, String connection,
            List<CommitOffset> offsets) {
        public Pending {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(group, "group");
            offsets = List.copyOf(offsets);
        }

        /** {@code t-0=5,t-1=7} (an OffsetCommit) or {@code ACCEPT t-0@3,t-0@4} (a share acknowledgement). */
        public String offsetsText() {
            return kind == Kind.ACKNOWLEDGEMENT ? "ACCEPT " + offsets.stream().map(o -> o.topic() + "-" + o.partition() + "@" + o.offset())
                    .collect(java.util.stream.Collectors.joining(",")) : CommitOffset.text(offsets);
        }
    }
}
