package io.replaylab.harness.barrier;

import java.util.Optional;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.WirePoint;
import io.replaylab.evidence.process.Platform;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabWire;

/**
 * A's request (or the broker's answer to it) held in the run's Kafka protocol proxy: any client. {@code whole}: A's OffsetCommit
 * held with A's process frozen (SIGSTOP) from the arrival until the experiment thaws it, so that A's clock stops with it as in a
 * GC pause: a client gives a held request up after its own request timeout, which a freeze does not let run out.
 */
record WireTechnology(Aim aim, boolean whole) implements Technology {
    WireTechnology(Aim aim) {
        this(aim, false);
    }

    /** Which request of A's group the proxy holds. */
    enum Aim {
        OFFSET_COMMIT("OffsetCommit", "A's OffsetCommit request on the wire", "send an OffsetCommit",
                "The in-flight point is A's OffsetCommit request on the wire (a proxy between A and the broker holds the connection that "
                        + "carries it, and every resend of it); A's heartbeats on that connection wait behind it, as a stalled coordinator "
                        + "connection would. A commit that never leaves the client is not held."),
        OFFSET_COMMIT_ANSWER("OffsetCommit", "the broker's answer to A's OffsetCommit on the wire", "get an OffsetCommit accepted",
                OFFSET_COMMIT.limitation),
        SHARE_ACKNOWLEDGEMENT("share acknowledgements", "A's acknowledgement request (ShareAcknowledge, or a ShareFetch carrying one) on the wire",
                "send an acknowledgement", "The in-flight point is A's first request that carries an acknowledgement, held on the wire (its "
                        + "connection waits; its heartbeats go to the group coordinator on another one).");

        private final String requests;
        private final String heldBy;
        private final String unreached;
        private final String limitation;

        Aim(String requests, String heldBy, String unreached, String limitation) {
            this.requests = requests;
            this.heldBy = heldBy;
            this.unreached = unreached;
            this.limitation = limitation;
        }

        WirePoint point(String group) {
            return switch (this) {
                case OFFSET_COMMIT -> WirePoint.offsetCommit(group);
                case OFFSET_COMMIT_ANSWER -> WirePoint.offsetCommitAnswer(group);
                case SHARE_ACKNOWLEDGEMENT -> WirePoint.shareAcknowledgement(group);
            };
        }
    }

    @Override
    public Held arm(Arming a) {
        LabWire proxy = a.ctx().kafka().wire().orElseThrow(() -> new IllegalStateException("the run has no wire proxy"));
        long[] pid = {0};
        BarrierEvidence evidence = BarrierEvidence.into(a.e(), a.spec().name(), () -> pid[0], "wire");
        // armed before A exists: its first request cannot slip by
        Barrier barrier = proxy.barrier().arm(a.pointName(), aim.point(a.group()), a.mode(), aim == Aim.SHARE_ACKNOWLEDGEMENT ? evidence
                : new WithheldAtTheHold(evidence, proxy, a.group()), a.options());
        a.ctx().closeAtEnd(() -> proxy.stopWithholding(a.group())); // whatever ends the experiment: A's heartbeats flow again
        a.ctx().step("wire barrier armed on group " + a.group() + "'s " + aim.requests + "; instance " + a.spec().name()
                + " starts through the proxy at " + proxy.bootstrapServers());
        LabContext.Instance inst = Technology.startBeside(a, barrier);
        pid[0] = inst.pid();
        Uncommitted watched = aim == Aim.SHARE_ACKNOWLEDGEMENT ? null : Uncommitted.of(a).onTheWire(); // a share group commits no offset
        return new Held("wire", a, inst, barrier, evidence, aim.heldBy, aim.unreached + " for group " + a.group(), Hold.process(inst, null),
                null, watched, watched, whole);
    }

    /**
     * The evidence's listener, and at the hold A's heartbeats withheld at once, on the proxy's thread. The experiment's wait notices
     * the hold up to a second later on a loaded machine; a heartbeat A sent meanwhile reached the coordinator and kept A's member
     * there past the moment A's own client (librdkafka: no answer from its coordinator, whose answers wait behind the held one, for
     * its session timeout) rejoined as a new member that was given the held partition back (in three CI runs in a row).
     */
    private record WithheldAtTheHold(BarrierEvidence evidence, LabWire proxy, String group) implements io.replaylab.barrier.BarrierListener {
        @Override
        public void onTransition(io.replaylab.barrier.BarrierTransition t) {
            if (t.to() == io.replaylab.barrier.BarrierState.HELD && t.arrival() != null) {
                t.arrival().facts().requester().filter(r -> r.group().equals(group) && !r.memberId().isEmpty())
                        .ifPresent(r -> proxy.withholdHeartbeats(group, r.memberId()));
            }
            evidence.onTransition(t);
        }

        @Override
        public void onOutcome(io.replaylab.barrier.CallOutcome outcome) {
            evidence.onOutcome(outcome);
        }

        @Override
        public void onObservation(String point, String what) {
            evidence.onObservation(point, what);
        }
    }

    @Override
    public HoldMode mode(HoldMode asked) {
        return whole ? HoldMode.PROCESS : HoldMode.THREAD; // else the connection is held; A's other connections run on
    }

    @Override
    public String holdMode(HoldMode asked) {
        return whole ? "connection, with A frozen (SIGSTOP) from the hold until its commit is answered" : "connection";
    }

    @Override
    public Optional<String> unavailableOn(Platform platform) {
        return whole && !platform.canFreeze() ? Optional.of("not available on " + platform.describe() + ": holding A whole on the "
                + "wire freezes it (SIGSTOP), which needs POSIX signals and /proc") : Optional.empty();
    }

    @Override
    public String limitation() {
        return aim.limitation;
    }
}
