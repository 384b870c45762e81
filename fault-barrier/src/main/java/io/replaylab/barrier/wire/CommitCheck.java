package io.replaylab.barrier.wire;

import java.util.List;
import java.util.Objects;

import io.replaylab.barrier.CommitOffset;

/**
 * A look at each OffsetCommit of a group the moment a client sends it, before the broker sees it:
 * the commit waits on its connection (and only there) until {@link #check} returns, then goes on to
 * the broker. What a check does with that moment is its own (ask a database what the commit covers,
 * kill the client that sent it); the proxy forwards the commit afterwards either way, as a commit
 * already on its way to the broker would arrive.
 *
 * <pre>{@code
 * try (WireProxy.Checking c = proxy.checkCommits("my-group", commit -> log.info("{} commits {}", commit.clientId(), commit.offsets()))) {
 *     // run the consumer through proxy.bootstrapServers()
 * }
 * }</pre>
 */
@FunctionalInterface
public interface CommitCheck {
    /** Called on the commit's connection thread; a check that throws is logged and the commit goes on. */
    void check(Pending commit);

    /**
     * An OffsetCommit on its way: who sent it and what it asks to store.
     *
     * @param clientPort the client's TCP port on loopback: with the proxy's port, the socket that tells which process sent it
     * @param clientId   the request header's client id ({@code ""} when none)
     */
    record Pending(String group, String memberId, int generation, String clientId, int clientPort, String connection, List<CommitOffset> offsets) {
        public Pending {
            Objects.requireNonNull(group, "group");
            offsets = List.copyOf(offsets);
        }

        /** {@code t-0=5,t-1=7}. */
        public String offsetsText() {
            return CommitOffset.text(offsets);
        }
    }
}
