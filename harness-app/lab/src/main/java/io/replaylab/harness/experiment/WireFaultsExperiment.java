package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import io.replaylab.barrier.wire.ArmedFault;
import io.replaylab.barrier.wire.FaultFiring.Step;
import io.replaylab.barrier.wire.FaultFiring;
import io.replaylab.barrier.wire.FetchWatch;
import io.replaylab.barrier.wire.MemberTimeouts;
import io.replaylab.barrier.wire.WireFault;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.barrier.Held;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabWire;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.harness.lab.LabKafka;
import io.replaylab.harness.lab.SubjectExitedException;
import io.replaylab.harness.lab.SubjectFailedException;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.oracle.Comparison;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Experiment {@code wire-faults}: answers a broker may give, each aimed by the wire proxy at one of
 * subject A's requests while it drains (an error answer, a lost answer, a rewound offset fetch, a
 * delay, a closed connection), one cell per fault, each in its own namespace and recorded as an
 * experiment of its own. A cell PASSes when its fault fired (the proxy saw it) and, once the group
 * drained, every effect is in the target exactly once with no hole below the frontier.
 */
final class WireFaultsExperiment {
    static final String NAME = "wire-faults";
    static final String[] REQUIREMENTS = {"R10", "R11", "R12", "R13", "R14", "R15"};

    private WireFaultsExperiment() {
    }

    static Outcome run(List<WireFaultCell> asked, LabContext ctx, LabNamespace ns, ExperimentRecorder e) {
        Experiments.onTheRunsBroker(ctx, e, ns);
        List<WireFaultCell> cells = asked != null ? asked : WireFaultCell.defaults(ctx.settings().broker().groupProtocol());
        e.environment("cells", cells.stream().map(WireFaultCell::toString).collect(Collectors.joining(", ")));
        e.limitation("One fault per cell, aimed at A's requests by the proxy; the broker itself never fails. A client's retry of the same request "
                + "counts as a new request for @N.");
        if (ctx.kafka().wire().isEmpty()) {
            return e.finish(Outcome.notRun("wire faults need the wire proxy between the subjects and the broker, and this run has none "
                    + "(the witness was turned off and the barrier is not the wire barrier)"));
        }
        // a default heartbeat cell follows the protocol A joins with; a cell asked for is A's to meet
        Map<WireFaultCell, Outcome> outcomes = Cells.run(ctx, ns, REQUIREMENTS, cells, WireFaultCell::id, WireFaultsExperiment::partName,
                (c, cellNs, x, cell) -> runCell(c, cellNs, x, cell, asked == null));
        // the column: the protocol A joined with, as the wire saw it (a consumer of the user's own need not use the run's setting)
        List<String> seen = cells.stream().flatMap(c -> ctx.kafka().wire().orElseThrow().witness().timeouts(Cells.namespace(ns, c.id()).group())
                .stream()).map(t -> t.protocol().display()).distinct().toList();
        String protocol = seen.size() == 1 ? seen.get(0) : ctx.settings().broker().groupProtocol().name.toLowerCase(java.util.Locale.ROOT);
        return Cells.faultMatrix(e, outcomes, WireFaultsExperiment::partName, cell -> cell.fault().meaning(), "Wire faults: fault × group protocol",
                protocol, "every cell's fault fired on the wire");
    }

    /**
     * What A shows of its membership within the barrier timeout: the protocol it joined {@code group} with, read on the wire, or,
     * with no join, the lowest offset it fetched of each partition of {@code fetched}'s topic (a subscribing consumer fetches only
     * once it joined: one that fetches without joining assigns its partitions itself); neither when it did neither.
     */
    private static Membership membershipOf(LabContext ctx, LabWire proxy, String group, LabContext.Instance a, FetchWatch fetched)
            throws InterruptedException {
        RoundLook round = new RoundLook(ctx, proxy, group);
        return Poll.every(Duration.ofMillis(100)).upTo(ctx.settings().timeouts().barrier()).until(() -> {
            ctx.subjects().checkpoint(a);
            Map<Integer, Long> fetches = fetched.lowestOffsets(); // before the join is looked for: a join before the fetch is not missed
            Optional<MemberTimeouts.Protocol> protocol = proxy.witness().timeouts(group).stream().map(MemberTimeouts::protocol).findFirst();
            return new Membership(protocol, fetches, protocol.isEmpty() && fetches.isEmpty() ? round.due() : Optional.empty());
        }, m -> m.protocol().isPresent() || !m.fetchedUnjoined().isEmpty() || m.wentRound().isPresent());
    }

    /**
     * A member in A's group whose client never sent a request through the proxy: A went round it. Read every two seconds while
     * the wire shows nothing of A (a poll's every turn would describe the group ten times a second). By client id, not by the join:
     * the wire may learn of a join through the proxy after the group shows it.
     */
    private static final class RoundLook {
        private static final long EVERY = Duration.ofSeconds(2).toNanos();
        private final LabContext ctx;
        private final LabWire proxy;
        private final String group;
        private long looked = System.nanoTime();

        RoundLook(LabContext ctx, LabWire proxy, String group) {
            this.ctx = ctx;
            this.proxy = proxy;
            this.group = group;
        }

        /** Why A went round the proxy, when it is time for a look and it did (empty: not yet, none, or the group could not be read). */
        Optional<String> due() {
            if (System.nanoTime() - looked < EVERY) {
                return Optional.empty();
            }
            looked = System.nanoTime();
            try {
                // an empty client id is never recorded on the wire: such a member tells nothing
                List<String> clients = ctx.kafka().ops().describe(group).members().stream().map(m -> m.clientId())
                        .filter(id -> id != null && !id.isEmpty()).distinct().toList();
                return clients.isEmpty() || clients.stream().anyMatch(proxy.witness()::sawClient) ? Optional.empty()
                        : Optional.of(proxy.wentRound("A's group " + group + " has a member (client " + String.join(", ", clients) + ")"));
            } catch (RuntimeException unreadable) {
                return Optional.empty();
            }
        }
    }

    /**
     * A's protocol, or what it fetched without joining (partition to lowest offset); all empty: none seen; {@code wentRound}: why the
     * wire sees nothing of A, whose group has a member all the same.
     */
    private record Membership(Optional<MemberTimeouts.Protocol> protocol, Map<Integer, Long> fetchedUnjoined, Optional<String> wentRound) {
    }

    static String partName(WireFaultCell cell) {
        return NAME + "." + cell.id();
    }

    /** One cell: the fault armed at A's requests, A drains (after a first drain and a restart for a rewind), the oracle judges. */
    static Outcome runCell(LabContext ctx, LabNamespace ns, ExperimentRecorder e, WireFaultCell cell, boolean followsA) throws Exception {
        Experiments.onTheRunsBroker(ctx, e, ns);
        e.environment("fault", cell.fault().spec() + ": " + cell.fault().meaning());
        LabWire proxy = ctx.kafka().wire().orElseThrow();
        String topic = ns.topic();
        String group = ns.group();
        String inbox = ns.inbox(1);
        String aName = cell.id() + "-A"; // its own client id: cells side by side never mix their clients' requests
        // forget: records A has not applied must be in the topic when its offsets are forgotten, or a reset to the end skips nothing
        StagedSource staged = cell.forgets() ? StagedSource.held(ctx, e, ns, "the first once A's first instance fetches every partition (a consumer "
                + "that starts at the log end starts at 0 then), the second once it drained the first and stopped") : null;
        if (staged == null) {
            Experiments.produce(ctx, e, ns);
        }
        Source harness = Source.here("harness");
        OffsetSnapshot beforeRewind = null;
        if (cell.afterARestart()) {
            ctx.step("A drains once, so that it has offsets to rewind, and stops");
            // the Fetch answers from before A starts: a drain that opened its watch later would miss A's first fetches
            OffsetSnapshot fresh = ctx.kafka().ops().describe(group);
            LabContext.Instance first;
            try (FetchWatch delivered = proxy.witness().watchFetches(topic)) {
                first = ctx.subjects().start(e, ctx.subjects().consumer(aName, topic, group, inbox));
                if (staged != null) {
                    int partitions = ctx.settings().broker().partitions();
                    try (FetchWatch fetching = proxy.witness().watchFetches(topic)) {
                        boolean all = Poll.every(Duration.ofMillis(100)).upTo(ctx.settings().timeouts().barrier()).until(() -> {
                            ctx.subjects().checkpoint(first);
                            return fetching.lowestOffsets().size() >= partitions;
                        }, Boolean::booleanValue);
                        if (!all) {
                            e.record(harness, new Payload.Note("A's first instance fetched " + fetching.lowestOffsets().keySet() + " of " + partitions
                                    + " partitions within " + ctx.settings().timeouts().barrier() + "; the first half goes in now anyway"));
                        }
                    }
                    staged.publishHalf();
                }
                beforeRewind = ctx.kafka().awaitDrained(group, topic, "drain before the fault", delivered, fresh, first);
            }
            if (beforeRewind == null) {
                return e.finish(Outcome.notRun("the group did not drain before the fault: " + ctx.kafka().notDone(group)));
            }
            ctx.subjects().stop(e, first);
            // an empty group before the restart: a first instance still in it would make A's restart rebalance, and fetch its offsets
            // again (the rewind hits every OffsetFetch, so that is not fatal: the note says so)
            if (!ctx.kafka().awaitInactive(group, ctx.settings().timeouts().drain()).state().isInactive()) {
                e.record(harness, new Payload.Note("the group still had a member " + ctx.settings().timeouts().drain() + " after A's first instance "
                        + "stopped; A restarts beside it"));
            }
            if (staged != null) {
                staged.publishRest();
            }
        }
        // a fault at one protocol's heartbeat waits until A joined: a member of the other protocol never sends that request
        LabContext.Instance joined = null;
        WireFault fault = cell.fault();
        if (cell.protocol().isPresent()) {
            Membership membership;
            try (FetchWatch fetched = proxy.witness().watchFetches(topic)) {
                joined = ctx.subjects().start(e, ctx.subjects().consumer(aName, topic, group, inbox));
                membership = membershipOf(ctx, proxy, group, joined, fetched);
            }
            Optional<MemberTimeouts.Protocol> its = membership.protocol();
            if (membership.wentRound().isPresent()) {
                return e.finish(Outcome.notRun("the fault cannot fire: " + membership.wentRound().get()));
            }
            if (its.isEmpty() && !membership.fetchedUnjoined().isEmpty()) {
                return e.finish(Outcome.notRun("the fault cannot fire: A fetched " + topic + " from " + new java.util.TreeMap<>(membership
                        .fetchedUnjoined()) + " without joining group " + group + ": " + Handoff.ASSIGNS_ITSELF + ", and sends no "
                        + fault.target().api().display()));
            }
            if (its.isEmpty()) {
                return e.finish(Outcome.notRun("the fault never fired: A did not join group " + group + " within " + ctx.settings().timeouts().barrier()
                        + " (no JoinGroup or ConsumerGroupHeartbeat of its on the wire)"));
            }
            if (its.get() != cell.protocol().get()) {
                String sends = "A joined " + group + " with the " + its.get().display() + " protocol, which sends no " + fault.target().api().display();
                if (!followsA) {
                    return e.finish(Outcome.notRun("the fault cannot fire: " + sends + " (" + WireFaultCell.heartbeat(its.get()).fault().spec()
                            + " is that protocol's cell)"));
                }
                fault = WireFaultCell.heartbeat(its.get()).fault();
                e.environment("fault", fault.spec() + ": " + fault.meaning() + " (the default heartbeat cell, on A's protocol: " + sends + ")");
                e.record(harness, new Payload.Note(sends + ": the default heartbeat cell aims at its " + fault.target().api().display()
                        + " instead, " + fault.spec()));
            }
        }
        // aimed at the group (only A is in it); a request that names no group (Fetch, Produce) at A's client id
        WireFault aimed = fault.at(group, fault.target().api().namesGroup() ? null : aName);
        ArmedFault armed = proxy.inject(aimed);
        try {
            e.record(harness, new Payload.Note("fault armed: " + aimed.meaning()));
            armed.onFiring(f -> e.recordIfOpen(Source.here("wire proxy"), new LabEvent.FaultFired(aimed.spec(), f.summary())));
            ctx.step("A starts; " + aimed.meaning());
            // what A fetches from: a consumer that commits only a batch's end never commits below the rewound offsets, but it fetches there
            FetchWatch fetches = cell.afterARestart() ? proxy.witness().watchFetches(topic) : null;
            if (fetches != null) {
                ctx.closeAtEnd(fetches);
            }
            LabContext.Instance a = joined != null ? joined : ctx.subjects().start(e, ctx.subjects().consumer(aName, topic, group, inbox));
            // a fault on an OffsetCommit waits for one: a consumer that applies every effect and never commits says so soon
            java.util.function.Supplier<Optional<String>> looks = fault.target().api() == WireFault.Api.OFFSET_COMMIT
                    ? Held.neverCommits(ctx, group, topic, inbox) : null;
            // nothing of a consumer that goes round the proxy ever matches: its group says so as soon as it has it as a member
            RoundLook round = new RoundLook(ctx, proxy, group);
            String[] never = {null};
            String[] wentRound = {null};
            Optional<FaultFiring> fired = Poll.every(Duration.ZERO).upTo(ctx.settings().timeouts().barrier()).until(() -> {
                ctx.subjects().checkpoint(a);
                Optional<FaultFiring> f = armed.awaitFiring(Duration.ofMillis(250));
                never[0] = f.isEmpty() && looks != null ? looks.get().orElse(null) : null;
                wentRound[0] = f.isEmpty() && armed.matched() == 0 ? round.due().orElse(null) : null;
                return f;
            }, f -> f.isPresent() || never[0] != null || wentRound[0] != null);
            if (wentRound[0] != null) {
                armed.disarm();
                return e.finish(Outcome.notRun("the fault cannot fire: " + wentRound[0]));
            }
            if (never[0] != null) {
                armed.disarm();
                return e.finish(Outcome.notRun("the fault cannot fire: " + never[0] + ", so there is no OffsetCommit for it"));
            }
            if (fired.isEmpty()) {
                armed.disarm();
                return e.finish(Outcome.notRun("the fault never fired: A sent " + (armed.matched() == 0 ? "no " + fault.target().api().display()
                        : armed.matched() + " matching " + fault.target().api().display() + " request(s), not the " + fault.target().which())
                        + (fault.target().api().namesGroup() ? " for group " + group : " as client " + aName) + " within "
                        + ctx.settings().timeouts().barrier() + (armed.firings().isEmpty() ? ""
                                : " (it hit " + armed.firings().get(0).request() + ", but its effect never completed: the connection closed first)")));
            }
            Event firedEvent = e.record(harness, new Payload.Note("the fault fired at A's " + fired.get().request()));
            ctx.step("fault fired; A drains under it");
            Optional<String> wentBack = Optional.empty();
            OffsetSnapshot drained;
            try {
                if (cell.rewinds()) {
                    // the group's offsets are at the end already (A's first drain): drained means nothing until A has gone back
                    FaultFiring first = fired.get();
                    OffsetSnapshot drainedBefore = beforeRewind;
                    // a commit below is the stronger word; a fetch below alone counts once no such commit followed it for a while
                    // (a consumer that commits only a batch's end never sends one)
                    long[] fetchedSince = {0};
                    wentBack = Poll.every(Duration.ofMillis(100)).upTo(ctx.kafka().patience(group).judgedOr(ctx.settings().timeouts().drain())).until(() -> {
                        ctx.subjects().checkpoint(a);
                        Optional<String> committed = wentBack(proxy, group, topic, first, drainedBefore);
                        if (committed.isPresent()) {
                            return committed;
                        }
                        Optional<String> fetched = fetchedBelow(fetches, topic, drainedBefore);
                        if (fetched.isPresent() && fetchedSince[0] == 0) {
                            fetchedSince[0] = System.nanoTime();
                        }
                        if (fetched.isEmpty() && committedWithoutGoingBack(proxy, group, topic, first, drainedBefore)) {
                            return Optional.of(""); // it stored where it had been again, fetching nothing below: it will not go back now
                        }
                        return fetched.filter(x -> System.nanoTime() - fetchedSince[0] > FETCH_ONLY_AFTER.toNanos());
                    }, Optional::isPresent).filter(x -> !x.isEmpty());
                }
                drained = ctx.kafka().awaitApplied(group, topic, inbox, "drain after the fault", a);
            } catch (SubjectExitedException exited) {
                // the process side of what the client did: it gave up (the cell becomes NOT_RUN with the exit code)
                e.record(harness, whatADid(armed.firings().get(0), ", then exited: " + exited.getMessage()));
                throw exited;
            } catch (SubjectFailedException failed) {
                // a stall or a crash loop while the fault still fires is the fault's: no consumer gets past a fault that never stops
                // (a skip is the consumer's whatever fired: its reset policy chose the log end)
                List<FaultFiring> since = armed.firings().stream().filter(x -> !x.at().isBefore(failed.since())).toList();
                // a rewind or forgotten offsets only deliver records again: a consumer always gets past them, and a restart's own
                // OffsetFetch makes them fire, so a crash loop or stall under them stays the consumer's
                if (failed.kind() == SubjectFailedException.Kind.SKIP || since.isEmpty() || cell.rewinds() || cell.forgets()) {
                    throw failed;
                }
                e.record(harness, whatADid(armed.firings().get(0), ", then: " + failed.getMessage()));
                return e.finish(Outcome.notRun("the fault kept firing (" + since.size() + " time(s) since " + failed.since() + ", the last at A's "
                        + since.get(since.size() - 1).request() + "): " + failed.getMessage() + "; under a fault that never stops, that is the cell's doing, not the consumer's"));
            }
            armed.disarm();
            FaultFiring f = armed.firings().get(0);
            String did = clientDid(f);
            e.record(harness, whatADid(f, ""));
            if (drained == null) {
                return e.finish(Outcome.notRun("the client could not progress under " + fault.spec() + ": " + ctx.kafka().notDone(group)
                        + "; after the fault it " + did));
            }
            e.record(harness, drained.toPayload("after the fault"));
            if (cell.rewinds()) { // A's first drain committed every partition: the firing rewound them (its record says how far)
                if (wentBack.isEmpty()) {
                    return e.finish(Outcome.notRun("the rewind fired (" + f.done() + ") but A did not go back: none of its commits after it is below the offsets stored before, and it fetched from none below them"));
                }
                e.record(harness, new Payload.Note("A went back on the wire: " + wentBack.get()));
                Optional<Map<String, Long>> handled = ctx.subjects().processingCounts(aName);
                handled.ifPresent(h -> e.check(Check.of("records delivered again with no reset by anyone", "R13", "some ids handled twice by A",
                        h.values().stream().filter(n -> n > 1).count() + " id(s) handled more than once", h.values().stream().anyMatch(n -> n > 1))));
            }
            Comparison c = ctx.target().judge(e, topic, inbox, group);
            return e.finish(Verdicts.naming(Outcome.judge(e.confirmFault(fault.spec() + " fired on the wire (" + f.done() + "); after it A " + did,
                    firedEvent), e.checks()), c));
        } finally {
            armed.disarm();
        }
    }

    /**
     * The wire's side of a rewind: a commit A sent after the firing that is below what the group had
     * stored before it (A handled records again at their own offsets), e.g. {@code t-0=66 after 70 was stored}.
     */
    private static Optional<String> wentBack(LabWire proxy, String group, String topic, FaultFiring f, OffsetSnapshot before) {
        return proxy.witness().commits(group).stream().filter(c -> !c.sent().isBefore(f.at()) && c.accepted())
                .flatMap(c -> c.offsets().stream())
                .filter(o -> o.offset() < LabKafka.committed(before, topic, o.partition()))
                .findFirst().map(o -> o.partitionName() + "=" + o.offset() + " committed after " + LabKafka.committed(before, topic, o.partition())
                        + " was stored");
    }

    /** How long a fetch below the stored offsets waits for a commit below them before it alone says A went back. */
    private static final Duration FETCH_ONLY_AFTER = Duration.ofSeconds(2);

    /** After the firing, A's commits were stored at or past the offsets stored before on every partition it had: it skipped what was rewound. */
    private static boolean committedWithoutGoingBack(LabWire proxy, String group, String topic, FaultFiring f, OffsetSnapshot before) {
        Map<Integer, Long> after = new java.util.HashMap<>();
        proxy.witness().commits(group).stream().filter(c -> !c.sent().isBefore(f.at()) && c.accepted()).flatMap(c -> c.offsets().stream())
                .filter(o -> o.topic().equals(topic)).forEach(o -> after.merge(o.partition(), o.offset(), Math::max));
        List<PartitionOffsets> had = before.partitions().stream().filter(p -> p.topic().equals(topic) && p.hasCommitted()).toList();
        return !had.isEmpty() && had.stream().allMatch(p -> after.getOrDefault(p.partition(), -1L) >= p.committed());
    }

    /** A partition A fetched from below the offset stored before the rewind: it went back (whatever it commits: a batch's end only, say). */
    private static Optional<String> fetchedBelow(FetchWatch fetches, String topic, OffsetSnapshot before) {
        return fetches.lowestOffsets().entrySet().stream().filter(x -> x.getValue() < LabKafka.committed(before, topic, x.getKey())).findFirst()
                .map(x -> topic + "-" + x.getKey() + " fetched from " + x.getValue() + " after " + LabKafka.committed(before, topic, x.getKey())
                        + " was stored");
    }

    /** The timeline's note: what A did, then {@code end}, then the requests and connections it is read from. */
    private static LabEvent.ClientDid whatADid(FaultFiring f, String end) {
        return new LabEvent.ClientDid(clientDid(f), end, f.after());
    }

    /** What the client did after a firing, in a few words, from the requests the proxy saw it send next. */
    static String clientDid(FaultFiring f) {
        List<String> did = new ArrayList<>();
        ApiKeys api = f.api();
        int clientClosed = f.indexOf(Step.ConnectionClosed.class, c -> !c.byProxy());
        int closed = f.indexOf(Step.ConnectionClosed.class, c -> true);
        int opened = f.indexOf(Step.ConnectionOpened.class, c -> true);
        if (closed >= 0 && opened > closed) {
            did.add("reconnected");
        } else {
            if (clientClosed >= 0) {
                did.add("closed a connection");
            }
            if (opened >= 0) {
                did.add("opened a new connection");
            }
        }
        if (f.sent(ApiKeys.FIND_COORDINATOR) && api != ApiKeys.FIND_COORDINATOR) {
            did.add("looked up its coordinator again");
        }
        if (f.sent(api)) {
            did.add("sent " + api.name + " again");
        }
        if (f.sent(ApiKeys.OFFSET_FETCH) && api != ApiKeys.OFFSET_FETCH) {
            did.add("fetched its committed offsets again");
        }
        if (f.sent(ApiKeys.JOIN_GROUP)) {
            did.add("joined the group again");
        }
        if (did.isEmpty()) {
            // the proxy's closing is no act of the client
            List<Step> own = f.steps().stream().filter(x -> !(x instanceof Step.ConnectionClosed c && c.byProxy())).toList();
            did.add(own.isEmpty() ? "sent nothing more the proxy saw" : "went on (" + own.get(0) + " next)");
        }
        return String.join(", ", did);
    }
}
