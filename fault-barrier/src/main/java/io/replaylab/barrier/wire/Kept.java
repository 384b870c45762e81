package io.replaylab.barrier.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The request frames a connection keeps for a gate instead of sending them: held behind a held commit, or waiting for the
 * broker's answer to a commit, which decides whether the gate holds them. Its connection guards it.
 */
final class Kept {
    /** Null: the connection flows. */
    private List<Connection.Frame> frames;
    private CommitGate gate;
    /** The frames only wait for the answer to a commit: not held (yet). */
    private boolean deferring;

    boolean keeping() {
        return frames != null;
    }

    CommitGate gate() {
        return gate;
    }

    boolean deferringFor(CommitGate g) {
        return frames != null && gate == g && deferring;
    }

    /** One more frame behind the first; a held one is witnessed as held (it waits as long as the held frame). */
    void add(Connection.Frame f) {
        if (f.witnessed() != null && !deferring) {
            f.witnessed().held();
        }
        frames.add(f.kept());
    }

    /** From now on the frames wait for {@code g} to learn whether it holds them. */
    void defer(CommitGate g) {
        frames = new ArrayList<>();
        gate = g;
        deferring = true;
    }

    /** From now on the frames are held for {@code g}, starting with {@code first}. */
    void hold(CommitGate g, Connection.Frame first) {
        if (first.witnessed() != null) {
            first.witnessed().held();
        }
        frames = new ArrayList<>(List.of(first.kept()));
        gate = g;
        deferring = false;
    }

    /** The frames that waited for {@code g} are held with what it holds. */
    void holdDeferred(CommitGate g) {
        if (deferringFor(g)) {
            deferring = false;
            frames.stream().map(Connection.Frame::witnessed).filter(Objects::nonNull).forEach(Witnessed::held);
        }
    }

    /** The frames kept for {@code g} (null: none), taken: the connection flows again. */
    List<Connection.Frame> take(CommitGate g) {
        if (frames == null || gate != g) {
            return null;
        }
        List<Connection.Frame> taken = frames;
        frames = null;
        gate = null;
        deferring = false;
        return taken;
    }
}
