package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierEvidence;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.MethodPoint;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.barrier.BarrierPlan;
import io.replaylab.harness.barrier.Held;
import io.replaylab.harness.lab.InstanceSpec;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.Timeouts;
import io.replaylab.harness.lab.LabKafka;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.GroupMember;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.OffsetsEvent;
import io.replaylab.kafka.PartitionRef;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.TopicOracle;
import io.replaylab.oracle.TopicOracle.Isolation;

/**
 * Experiment eos (R15's other half): a consume-transform-produce instance A is held by a debugger
 * at {@code KafkaProducer#commitTransaction}, its output already written in its open transaction
 * and its consumed offsets already sent to it; B joins and A's partitions move to B. B cannot read
 * A's pending offsets (KIP-447: a read_committed consumer waits for an open transaction's offsets),
 * so it waits until the transaction coordinator aborts A's transaction at its timeout; then B
 * processes the same input and commits. Released, A's commit must be refused (Kafka 4.1 answers
 * INVALID_TXN_STATE: that transaction was aborted), and a read_committed reader of the output must
 * see every input exactly once.
 */
final class EosExperiment {
    static final String NAME = "eos";
    static final String[] REQUIREMENTS = {"R7", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"};
    /** A's transaction timeout: longer than the rebalance (so that B owns the partitions first), short enough for a quick run. */
    static final int TRANSACTION_TIMEOUT_MS = 15_000;
    static final MethodPoint COMMIT_TRANSACTION = new MethodPoint("org.apache.kafka.clients.producer.KafkaProducer", "commitTransaction");

    private EosExperiment() {
    }

    static Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception {
        Experiments.environment(ctx, e, ns);
        String topic = ns.topic();
        String output = ns.topic("output");
        String group = ns.group();
        Source harness = Source.here("harness");
        Subject transform = ctx.settings().transformSubject().orElse(null);
        if (transform == null) {
            return e.finish(Outcome.notRun("no consume-transform-produce subject to test: give the lab one (LabSettings.transformSubject, "
                    + "e.g. the reference subject's ReferenceSubject.transform())"));
        }
        e.environment("subject", transform.description());
        e.environment("output topic", output);
        e.environment("barrier", "debugger at " + COMMIT_TRANSACTION + " (thread hold)");
        e.environment("transaction timeout", TRANSACTION_TIMEOUT_MS + " ms as {transaction.timeout.ms} (a subject that does not take it uses its own)");
        e.limitation(Limitations.EOS_ONE_ZOMBIE_ONE_BROKER);
        e.limitation("The in-flight point is the entry of KafkaProducer#commitTransaction in A (a breakpoint; A's other threads run on), "
                + "after its output was sent and its offsets were sent to the transaction. A custom program that commits another way is not held.");
        ctx.kafka().wire().ifPresent(p -> e.limitation("eos runs its subjects straight to the broker: the wire barrier does not hold EndTxn, and the "
                + "witness does not see their offsets, which go to the transaction (TxnOffsetCommit), not in an OffsetCommit."));

        Experiments.produce(ctx, e, ns);
        ctx.kafka().ops().createTopic(ctx.kafka().namespace(), output, ctx.settings().broker().partitions());
        Map<String, String> values = new HashMap<>();
        values.put("bootstrap", ctx.kafka().bootstrap());
        values.put("topic", topic);
        values.put("output", output);
        values.put("group", group);
        values.put("transaction.timeout.ms", Integer.toString(TRANSACTION_TIMEOUT_MS));
        SourceSpec outputSpec = ctx.kafka().source(output);

        Held at = BarrierPlan.debuggerAt(COMMIT_TRANSACTION).arm(ctx, e, "transaction-commit", InstanceSpec.of("eos-A", transform, values), group,
                HoldMode.THREAD, BarrierOptions.ofDefaults().holdTimeout(Handoff.longest(ctx).plus(ctx.settings().timeouts().drain())));
        LabContext.Instance a = at.instance();
        Barrier barrier = at.barrier();
        BarrierEvidence evidence = at.evidence();
        try (at) {
            Arrival held;
            try {
                held = at.awaitArrival();
            } catch (BarrierTimeoutException t) {
                return e.finish(Outcome.notRun(at.neverReached() + " (is it a transactional producer?)"));
            }

            // R8: A is inside an open transaction — its output is written but visible only to read_uncommitted readers.
            List<String> open = awaitOpenTransaction(ctx, outputSpec, a);
            if (open.isEmpty()) {
                barrier.release();
                return e.finish(Outcome.notRun("the injection point was not confirmed: A is at " + COMMIT_TRANSACTION + " but the output topic "
                        + output + " holds no record of an open transaction (does it write its output inside the transaction?)"));
            }
            String inFlightId = open.get(open.size() - 1);
            e.record(harness, new Payload.Note("A holds an open transaction: " + open + " visible to read_uncommitted, not to "
                    + "read_committed, on " + output));
            e.check(Check.pass("held inside an open transaction, before its commit", "R8", "output written, not committed",
                    inFlightId + " visible to read_uncommitted only"));
            OffsetSnapshot atHold = ctx.kafka().ops().describe(group);
            e.record(harness, atHold.toPayload("while A is held"));
            Optional<Outcome> standalone = Handoff.standalone(ctx, group, atHold);
            if (standalone.isPresent()) {
                barrier.release();
                return e.finish(standalone.get());
            }
            Set<String> aMembers = atHold.members().stream().map(GroupMember::memberId).collect(Collectors.toSet());
            List<PartitionRef> aOwns = atHold.members().stream().flatMap(m -> m.assignment().stream()).filter(p -> p.topic().equals(topic)).toList();

            Handoff wait = Handoff.of(ctx, e, group, aMembers);
            ctx.step("A held in its transaction (" + inFlightId + "); starting B");
            LabContext.Instance b = ctx.subjects().start(e, InstanceSpec.of("eos-B", transform, values));
            at.alsoStop(b);
            e.check(Check.of("two instances with different process ids", "R7", "pid A != pid B", a.pid() + " vs " + b.pid(), a.pid() != b.pid()));
            Event handoff = null;
            ctx.step("waiting for " + aOwns + " to move to B (" + wait.says() + ")");
            try (wait) {
                for (PartitionRef p : aOwns) {
                    Handoff.Moved moved = RebalanceExperiment.awaitHandoff(ctx, e, group, Set.of(p), aMembers, a, List.of(a, b), wait.waitFor());
                    if (moved == null) {
                        barrier.release();
                        e.check(Check.fail("A's partitions moved to B while A was held", "R8", p + " owned by another member", "never moved"));
                        return e.finish(wait.none("no handoff: " + p + " stayed with A for " + wait.waitFor()));
                    }
                    handoff = moved.event();
                }
            }
            e.check(Check.pass("A's partitions moved to B while A was held", "R8", aOwns + " owned by another member",
                    ((OffsetsEvent.AssignmentChanged) handoff.payload()).summary()));

            // B must process the same input and commit it: with KIP-447 it can read A's offsets only once A's transaction is over.
            // Watched through the group's committed offsets (the output's last stable offset stays behind A's open transaction).
            List<TopicOracle.Position> inputs = TopicOracle.of(ctx.kafka().source(topic)).positionsOf(inFlightId);
            if (inputs.size() != 1) {
                barrier.release();
                return e.finish(Outcome.notRun("the injection point was not confirmed: A's open transaction holds " + inFlightId + ", which is at "
                        + inputs + " in " + topic + " instead of exactly one input record"));
            }
            TopicOracle.Position input = inputs.get(0);
            ctx.step("waiting for B to commit past A's input " + topic + "-" + input + " (A's open transaction keeps its offsets "
                    + "pending until it ends)");
            // B owns the partition by now: it must get past A's input within its own timeouts (or the wait asked for)
            Duration bWait = ctx.settings().timeouts().handoff().orElse(ctx.kafka().patience(group).judgedOr(Timeouts.DEFAULT_HANDOFF));
            boolean past = Poll.every(Duration.ofMillis(250)).upTo(bWait).until(() -> {
                ctx.subjects().checkpoint(b);
                return LabKafka.committed(ctx.kafka().ops().describe(group), topic, input.partition().partition()) > input.offset();
            });
            if (!past) {
                barrier.release();
                e.check(Check.fail("B committed A's input while A was held", "R10", topic + "-" + input + " committed past",
                        "not within " + bWait));
                return e.finish(Outcome.faultNotObserved("B never committed past A's input " + topic + "-" + input + " within " + bWait));
            }
            OffsetSnapshot afterB = ctx.kafka().ops().describe(group);
            e.record(harness, afterB.toPayload("after B committed past A's point"));
            Event bCommitted = e.record(harness, new Payload.Note("B committed past A's input " + topic + "-" + input + " (" + inFlightId
                    + ") while A was still held"));

            ctx.step("releasing A; its transaction commit must fail");
            barrier.release();
            Duration callWait = Verdicts.callWait(ctx, group);
            Optional<CallOutcome> outcome = barrier.awaitOutcome(callWait);
            Optional<Outcome> ended = Verdicts.zombieCommit(e, outcome, callWait);
            if (ended.isPresent()) {
                return ended.get();
            }
            Event fenced = outcome.get().verdict() == CallOutcome.Verdict.ACCEPTED ? null : evidence.outcomeEvent();
            TopicOracle.TopicCount uncommitted = TopicOracle.of(outputSpec).count(Isolation.READ_UNCOMMITTED, Set.of(inFlightId));
            TopicOracle.TopicCount committed = TopicOracle.of(outputSpec).count(Isolation.READ_COMMITTED, Set.of(inFlightId));
            e.record(harness, new Payload.Note("copies of " + inFlightId + ": " + uncommitted.ofIds().get(inFlightId) + " read_uncommitted, "
                    + committed.ofIds().get(inFlightId) + " read_committed"));
            e.check(Check.of("the zombie's output aborted", "R9", "visible to read_uncommitted only (1 committed copy, more uncommitted)",
                    uncommitted.ofIds().get(inFlightId) + " uncommitted, " + committed.ofIds().get(inFlightId) + " committed",
                    committed.ofIds().get(inFlightId) == 1 && uncommitted.ofIds().get(inFlightId) > 1));

            ctx.step("the group settles and drains");
            OffsetSnapshot settled = Experiments.settle(ctx, e, group, topic, at.running(), b);
            if (settled == null) {
                return Experiments.notDrained(ctx, e);
            }
            e.record(harness, settled.toPayload("after recovery"));
            Comparison c = TopicOracle.of(ctx.kafka().source(topic)).compare(outputSpec, settled);
            e.record(harness, c.toPayload());
            c.toChecks().forEach(e::check);
            return e.finish(Outcome.judge(e.confirmFault("A was held inside its transaction while B took its partitions and committed its input",
                    fenced != null ? fenced : bCommitted), e.checks()));
        }
    }

    /** The ids of records in A's open transaction, once its producer has sent them (within 10 s of the hold). */
    private static List<String> awaitOpenTransaction(LabContext ctx, SourceSpec output, LabContext.Instance a) throws InterruptedException {
        return Poll.every(Duration.ofMillis(100)).upTo(Duration.ofSeconds(10)).until(() -> {
            ctx.subjects().checkpointHeld(a);
            return TopicOracle.of(output).notCommitted();
        }, open -> !open.isEmpty());
    }
}
