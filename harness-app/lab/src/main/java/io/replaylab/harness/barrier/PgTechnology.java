package io.replaylab.harness.barrier;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.PgPoint;
import io.replaylab.barrier.HoldMode;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabDbWire;

/**
 * A's {@code COMMIT} (or the server's answer to it) held in the run's PostgreSQL proxy: any client,
 * any language. Armed while A's first OffsetCommit is held on the Kafka wire, as gdb's point is: the
 * transactions A runs while it starts do not count. Only A's own sessions are held: those the proxy says are A's (its
 * process holds the session's port, or the session's {@code application_name} is A's name).
 */
record PgTechnology(PgPoint.Edge edge) implements Technology {
    @Override
    public Held arm(Arming a) throws InterruptedException {
        LabDbWire db = a.ctx().target().wire().orElseThrow(() -> new IllegalStateException("the run's target has no PostgreSQL proxy"));
        WireWarmUp warmUp = WireWarmUp.start(a);
        LabContext.Instance inst = warmUp.instance();
        boolean armed = false;
        try {
            warmUp.await();
            BarrierEvidence evidence = BarrierEvidence.into(a.e(), a.spec().name(), inst::pid, "connection");
            Predicate<Map<String, String>> asked = a.options().when();
            // the proxy names a session's owner: the instance whose process holds its port (the run tells it), else its application name
            Predicate<Map<String, String>> ofA = c -> a.spec().name().equals(c.get("owner"));
            PgPoint point = edge == PgPoint.Edge.REQUEST ? PgPoint.beforeCommit(null) : PgPoint.afterCommit(null);
            Barrier barrier = db.barrier().arm(a.pointName(), point, HoldMode.THREAD, evidence, a.options().when(asked.and(ofA)));
            a.ctx().step("PostgreSQL barrier armed on " + a.spec().name() + "'s next COMMIT" + (edge == PgPoint.Edge.ANSWER ? "'s answer" : "")
                    + " in the proxy at " + db.address());
            armed = true;
            return new Held("postgresql", a, inst, barrier, evidence, heldBy(), "send a COMMIT through the PostgreSQL proxy at " + db.address()
                    + (edge == PgPoint.Edge.ANSWER ? " and have it answered" : ""), Hold.process(inst, null, () -> {
                        if (!db.barrier().sever(barrier)) { // A went on meanwhile: nothing of it is held in the proxy now
                            org.slf4j.LoggerFactory.getLogger(PgTechnology.class).debug("{}'s session is not held at its kill", a.spec().name());
                        }
                    }));
        } finally {
            warmUp.close();
            if (!armed) {
                Held.stop(a.ctx(), a.e(), List.of(inst));
            }
        }
    }

    private String heldBy() {
        return edge == PgPoint.Edge.REQUEST ? "the PostgreSQL proxy holding A's COMMIT before the server sees it"
                : "the PostgreSQL proxy holding the server's answer to A's COMMIT (committed, A not told)";
    }

    @Override
    public HoldMode mode(HoldMode asked) {
        return HoldMode.THREAD; // the session's connection is held; A's other threads and connections run on
    }

    @Override
    public String holdMode(HoldMode asked) {
        return "connection";
    }

    @Override
    public String limitation() {
        return "The in-flight point is A's " + (edge == PgPoint.Edge.REQUEST ? "COMMIT on the PostgreSQL protocol, held in a proxy before the server "
                + "sees it (the transaction still open, its locks held)" : "COMMIT's answer on the PostgreSQL protocol, held in a proxy after the "
                + "server committed (the effect durable, A not told)") + "; a transaction that never sends COMMIT (autocommit) is not held.";
    }
}
