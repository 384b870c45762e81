package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.replaylab.barrier.wire.ArmedFault;
import io.replaylab.barrier.wire.MemberTimeouts;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabWire;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.Timeouts;
import io.replaylab.kafka.PartitionRef;

/**
 * How long a held A's partition takes to move, from A's own timeouts as its client sent them on
 * the wire, and what makes it move soonest without touching the consumer: A's heartbeats are
 * withheld on the wire (answered by the proxy as a live member's) so that the coordinator drops A
 * after its session timeout, not after its poll interval, which a held thread with a live
 * heartbeat thread would wait out (librdkafka's and the Java client's default: 300 s). A frozen or
 * killed A sends no heartbeats anyway: the session timeout decides there too. Closed once the
 * handoff is seen, so that A's heartbeats reach the coordinator again and a resumed A learns it
 * was dropped.
 */
final class Handoff implements AutoCloseable {
    /** A handoff seen: the group description's event that shows it, and the watched partition that moved. */
    record Moved(Event event, PartitionRef partition) {
    }

    /** The longest the lab waits for a handoff its consumer's timeouts ask for; a consumer that needs more is NOT_RUN, named. */
    static final Duration LONGEST = Duration.ofMinutes(10);

    private static final Source HARNESS = Source.here("harness");

    private final Duration wait;
    private final String why;
    private final Duration needed;
    /** The consumer's timeouts asked for more than {@link #LONGEST}, and the wait was cut there. */
    private final boolean capped;
    private final List<ArmedFault> withheld;
    private final ExperimentRecorder e;

    private Handoff(Duration wait, String why, Duration needed, boolean capped, List<ArmedFault> withheld, ExperimentRecorder e) {
        this.wait = wait;
        this.why = why;
        this.needed = needed;
        this.capped = capped;
        this.withheld = withheld;
        this.e = e;
    }

    /**
     * A's heartbeats withheld from now on (when the run has a proxy), and the wait its timeouts
     * ask for, both recorded: A's timeouts as the environment's {@code A's timeouts}, the wait and
     * its reason as a note.
     */
    static Handoff of(LabContext ctx, ExperimentRecorder e, String group, Set<String> aMembers) {
        Optional<MemberTimeouts> seen = ctx.kafka().witness().flatMap(w -> aMembers.stream().map(m -> w.timeouts(group, m))
                .flatMap(Optional::stream).findFirst());
        List<ArmedFault> withheld = new ArrayList<>();
        Optional<LabWire> proxy = ctx.kafka().wire();
        if (proxy.isPresent()) { // armed already when a wire barrier holds A (at the hold): then taken over
            aMembers.forEach(m -> withheld.addAll(proxy.get().withholdHeartbeats(group, m)));
        }
        Optional<Duration> session = seen.flatMap(t -> t.session().or(() -> ctx.kafka().brokerSession(group)));
        seen.ifPresent(t -> e.environment("A's timeouts", t.summary() + session.filter(s -> t.session().isEmpty())
                .map(s -> "; the group's consumer.session.timeout.ms " + s.toMillis() + " (the broker's, read from its group config)").orElse("")));
        Duration needed;
        String basis;
        if (seen.isEmpty()) {
            needed = null;
            basis = "A's timeouts were not seen on the wire (" + (proxy.isEmpty() ? "the run has no wire proxy"
                    : "A's member never joined through the proxy") + ")";
        } else if (session.isPresent() && !withheld.isEmpty()) {
            needed = session.get();
            basis = "A's session timeout is " + Timeouts.seconds(needed) + " (" + seen.get().protocol().display() + " protocol) and its heartbeats are "
                    + "withheld on the wire, so the coordinator drops A within it, whatever its poll interval ("
                    + Timeouts.seconds(seen.get().rebalance()) + ")";
        } else {
            needed = seen.get().rebalance();
            basis = "A's max.poll.interval.ms is " + needed.toMillis() + " and its session timeout unknown: a held thread's client leaves after it";
        }
        Duration wait;
        String why;
        boolean capped = false;
        Optional<Duration> asked = ctx.settings().timeouts().handoff();
        if (asked.isPresent()) {
            wait = asked.get();
            why = "asked for (LabSettings.handoffTimeout); " + basis;
        } else if (needed == null) {
            wait = Timeouts.DEFAULT_HANDOFF;
            why = basis + ": the lab's default";
        } else {
            Duration margin = Timeouts.margin(needed);
            capped = needed.plus(margin).compareTo(LONGEST) > 0;
            wait = capped ? LONGEST : needed.plus(margin);
            why = basis + "; plus " + Timeouts.seconds(margin) + " for B to start and join" + (capped ? ", capped at " + Timeouts.seconds(LONGEST) : "");
        }
        e.record(HARNESS, new LabEvent.HandoffWait(Timeouts.seconds(wait), why));
        Handoff h = new Handoff(wait, why, needed, capped, withheld, e);
        ctx.closeAtEnd(h); // A's heartbeats flow again whatever ends the experiment first
        return h;
    }

    /**
     * NOT_RUN when A, at its point, is no member of its group: with the wire witness, when it never joined it through the proxy
     * (it assigns its partitions itself, assign, not subscribe: Kafka's standalone consumer); without one, either that or a
     * group that dropped A before its point. Either way no partition of A's can move to B. Empty when A is a member, or was one.
     */
    static Optional<Outcome> standalone(LabContext ctx, String group, io.replaylab.kafka.OffsetSnapshot atPoint) {
        if (!atPoint.members().isEmpty()) {
            return Optional.empty();
        }
        Optional<Boolean> joined = ctx.kafka().witness().map(w -> !w.timeouts(group).isEmpty());
        if (joined.orElse(false)) {
            return Optional.empty(); // a member once, dropped before its point: the handoff wait judges what follows
        }
        return Optional.of(Outcome.notRun(joined.isPresent()
                ? "A never joined group " + group + " (no JoinGroup or ConsumerGroupHeartbeat of it on the wire, no member in its description) "
                        + "though it consumes and commits under it: " + ASSIGNS_ITSELF + ", so no rebalance can move a partition of A's to B; "
                        + "this experiment needs a consumer that subscribes"
                : "A is no member of group " + group + " at its point (no member in its description) though it consumes and commits under it: "
                        + "either " + ASSIGNS_ITSELF + " or the group dropped it before its point, and this run has no wire witness to tell "
                        + "which (LabSettings.witness); either way no rebalance can move a partition of A's to B"));
    }

    /** What a consumer that never joins its group does, as every NOT_RUN that needs a member says it. */
    static final String ASSIGNS_ITSELF = "it assigns its partitions itself (assign, not subscribe: Kafka's standalone consumer)";

    /** A wait decided already, with nothing withheld: the verdict on values ({@link #none}). */
    static Handoff of(Duration wait, String why, Duration needed, boolean capped, ExperimentRecorder e) {
        return new Handoff(wait, why, needed, capped, new ArrayList<>(), e);
    }

    /** The longest a handoff may take in this run: for a barrier's safety release, which must come after it. */
    static Duration longest(LabContext ctx) {
        return ctx.settings().timeouts().handoff().orElse(LONGEST);
    }

    /** How long to wait for the handoff. */
    Duration waitFor() {
        return wait;
    }

    /** For the step line: {@code up to 66 s: A's session timeout is 6 s …}. */
    String says() {
        return "up to " + Timeouts.seconds(wait) + ": " + why;
    }

    /**
     * The outcome when no handoff came within the wait: FAIL (the fault was not observed), or
     * NOT_RUN when the consumer's own timeouts asked for more than {@link #LONGEST}.
     */
    Outcome none(String reason) {
        if (capped) {
            return Outcome.notRun(reason + "; A's timeouts ask for " + Timeouts.seconds(needed) + " before it is dropped, more than the lab waits ("
                    + Timeouts.seconds(LONGEST) + "): give LabSettings.handoffTimeout to wait longer");
        }
        return Outcome.faultNotObserved(reason);
    }

    /** A's heartbeats reach the coordinator again; how many were withheld is recorded. */
    @Override
    public void close() {
        if (withheld.isEmpty()) {
            return;
        }
        withheld.forEach(ArmedFault::disarm);
        int n = withheld.stream().mapToInt(a -> a.firings().size()).sum();
        withheld.clear();
        e.recordIfOpen(HARNESS, new LabEvent.HeartbeatsWithheld(n)); // nothing when closed at the experiment's end: its evidence is sealed
    }
}
