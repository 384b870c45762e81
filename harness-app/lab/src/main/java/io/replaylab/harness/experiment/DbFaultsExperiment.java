package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.replaylab.barrier.pg.ArmedDbFault;
import io.replaylab.barrier.pg.DbFault;
import io.replaylab.barrier.pg.DbFaultFiring;
import io.replaylab.barrier.pg.WitnessedTransaction;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabDbWire;
import io.replaylab.harness.lab.LabEvent;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.TopicOracle;

/**
 * db-faults: what a consumer does when its database fails it. Each cell aims one fault of the PostgreSQL
 * proxy ({@link DbFault}) at one of A's transactions once A has committed an offset (its start-up is
 * past), then A drains and the oracle judges: PASS when the fault fired and every effect is in the
 * target exactly once. What A did next (ran the record's transaction again, and how it ended; committed
 * its offset; exited and was restarted) is read from the database's witness, the Kafka group and the
 * supervisor, and named in the verdict. A consumer that retries an ambiguous commit without an inbox
 * FAILs with the doubled ids; one that skips a failed transaction and commits its offset FAILs with the
 * lost ones.
 */
final class DbFaultsExperiment {
    static final String NAME = "db-faults";
    static final String[] REQUIREMENTS = {"R10", "R11", "R12", "R14", "R15"};

    private DbFaultsExperiment() {
    }

    static Outcome run(List<DbFaultCell> asked, LabContext ctx, LabNamespace ns, ExperimentRecorder e) {
        Experiments.onTheRunsBroker(ctx, e, ns);
        List<DbFaultCell> cells = asked != null ? asked : DbFaultCell.defaults();
        e.environment("cells", cells.stream().map(DbFaultCell::toString).collect(Collectors.joining(", ")));
        e.limitation("One fault per cell, aimed by the PostgreSQL proxy at the first transaction of A's after its first offset commit; the "
                + "server itself never fails.");
        if (ctx.target().wire().isEmpty()) {
            return e.finish(Outcome.notRun("database faults need a PostgreSQL target, which the subjects reach through the run's PostgreSQL "
                    + "proxy; this run's target is SQLite (give a PostgreSQL target: LabSettings.target)"));
        }
        Map<DbFaultCell, Outcome> outcomes = Cells.run(ctx, ns, REQUIREMENTS, cells, DbFaultCell::id, DbFaultsExperiment::partName,
                DbFaultsExperiment::runCell);
        return Cells.faultMatrix(e, outcomes, DbFaultsExperiment::partName, cell -> cell.fault().meaning(), "Database faults: fault × database",
                "postgresql", "every cell's fault fired in the PostgreSQL proxy");
    }

    static String partName(DbFaultCell cell) {
        return NAME + "." + cell.id();
    }

    /** One cell: A starts and commits an offset, the fault is armed at its sessions, the rest of the source goes in, A drains, the oracle judges. */
    static Outcome runCell(LabContext ctx, LabNamespace ns, ExperimentRecorder e, DbFaultCell cell) throws Exception {
        Experiments.onTheRunsBroker(ctx, e, ns);
        LabDbWire db = ctx.target().wire().orElseThrow();
        String topic = ns.topic();
        String group = ns.group();
        String inbox = ns.inbox(1);
        String aName = cell.id() + "-A";
        DbFault fault = cell.fault().at(aName);
        e.environment("fault", cell.fault().spec() + ": " + fault.meaning());
        Source harness = Source.here("harness");
        StagedSource source = StagedSource.produce(ctx, e, ns, "once the fault is armed");
        LabContext.Instance a = ctx.subjects().start(e, ctx.subjects().consumer(aName, topic, group, inbox));
        // warm once A committed an offset or applied an effect: either comes after its start-up transactions (a consumer that keeps
        // its positions in its own database commits none)
        long[] lastRead = {0};
        boolean warm = Poll.every(Duration.ofMillis(100)).upTo(ctx.settings().timeouts().barrier()).until(() -> {
            ctx.subjects().checkpoint(a);
            OffsetSnapshot s = ctx.kafka().ops().describe(group);
            if (s.partitions().stream().anyMatch(PartitionOffsets::hasCommitted)) {
                return true;
            }
            if (System.nanoTime() - lastRead[0] < 1_000_000_000L || !ctx.target().targetReadable(inbox)) { // a read of the target a second
                return false;
            }
            lastRead[0] = System.nanoTime();
            try {
                return ctx.target().compare(topic, inbox, s).targetEffects() > 0;
            } catch (RuntimeException notYet) { // its tables half made, say: nothing applied yet
                return false;
            }
        }, Boolean::booleanValue);
        if (!warm) {
            return e.finish(Outcome.notRun("A committed no offset for group " + group + " and applied no effect within " + ctx.settings().timeouts()
                    .barrier() + " (the fault is armed after A's first offset commit or effect, so that its start-up transactions do not meet it)"));
        }
        ArmedDbFault armed = db.inject(fault);
        try {
            e.record(harness, new Payload.Note("fault armed: " + fault.meaning()));
            source.publishRest();
            Optional<DbFaultFiring> fired = Poll.every(Duration.ZERO).upTo(ctx.settings().timeouts().barrier()).until(() -> {
                ctx.subjects().checkpoint(a);
                return armed.awaitFiring(Duration.ofMillis(250));
            }, Optional::isPresent);
            if (fired.isEmpty()) {
                return e.finish(Outcome.notRun("the fault never fired: A ran no " + (fault.target() == DbFault.Target.STATEMENT
                        ? "statement inside a transaction (a consumer whose writes run with no transaction, autocommit, never meets it)"
                        : "COMMIT (a consumer whose writes run with no transaction, autocommit, never sends one)") + " through the PostgreSQL proxy "
                        + "within " + ctx.settings().timeouts().barrier()));
            }
            DbFaultFiring f = fired.get();
            Event firedEvent = e.record(Source.here("database witness"), new LabEvent.FaultFired(cell.fault().spec(), f.summary()));
            // what the transaction it hit was about: a fault on one that named no record (a consumer's own bookkeeping) tests nothing
            Set<String> ids = f.mentions(sourceIds(ctx, topic));
            if (ids.isEmpty()) {
                return e.finish(Outcome.notRun("the fault hit a transaction of A's that named no record of the source (it had run "
                        + (f.ran().isEmpty() ? "nothing" : String.join("; ", f.ran())) + "): no record's fate was at stake"));
            }
            ctx.step("fault fired; A drains after it");
            OffsetSnapshot drained = ctx.kafka().awaitApplied(group, topic, inbox, "drain after the fault", a);
            String did = whatADid(ctx, db, f, ids, a, topic, group);
            e.record(harness, new LabEvent.ClientDid(did, "", List.of()));
            if (drained == null) {
                return e.finish(Outcome.notRun("the group did not drain after " + cell.fault().spec() + ": " + ctx.kafka().notDone(group)
                        + "; after the fault A " + did));
            }
            e.record(harness, drained.toPayload("after the fault"));
            Comparison c = ctx.target().judge(e, topic, inbox, group);
            return e.finish(Verdicts.naming(Outcome.judge(e.confirmFault(cell.fault().spec() + " fired in the PostgreSQL proxy (" + f.done()
                    + "); after it A " + did, firedEvent), e.checks()), c));
        } finally {
            armed.disarm();
        }
    }

    /** Every message id of the source topic. */
    private static java.util.Collection<String> sourceIds(LabContext ctx, String topic) {
        TopicOracle source = TopicOracle.of(ctx.kafka().source(topic));
        io.replaylab.oracle.SourceIndex index = source.index();
        return source.recordEnds().entrySet().stream().flatMap(p -> index.between(p.getKey(), 0, p.getValue()).stream())
                .map(io.replaylab.oracle.SourceIndex.Entry::id).collect(Collectors.toCollection(java.util.LinkedHashSet::new));
    }

    /**
     * What A did after the fault, from the database's witness and the group: the ids of the transaction the fault hit, whether
     * A ran a transaction naming them again and how it ended, and whether its group committed past them.
     */
    static String whatADid(LabContext ctx, LabDbWire db, DbFaultFiring f, Set<String> ids, LabContext.Instance a, String topic, String group) {
        String aName = a.name();
        List<String> did = new ArrayList<>();
        String which = ids.size() == 1 ? ids.iterator().next() : ids.size() + " records (" + String.join(", ", ids) + ")";
        Optional<WitnessedTransaction> again = db.witness().transactions().stream().filter(t -> t.ended().isAfter(f.at())
                && t.outcome() == WitnessedTransaction.Outcome.COMMITTED && !t.mentions(ids).isEmpty()).findFirst();
        if (again.isEmpty()) {
            did.add("committed no transaction naming " + which + " again");
        } else {
            WitnessedTransaction next = again.get();
            did.add((next.owner().equals(aName) ? "" : "its successor " + next.owner() + " ") + "ran the transaction of " + which + " again "
                    + (next.session() == f.session() ? "on the same session" : "on a new session") + " and committed it "
                    + Duration.between(f.at(), next.ended()).toMillis() + " ms after the fault");
        }
        int exits = ctx.subjects().exits(a);
        if (exits > 0) {
            did.add("exited " + exits + " time(s) (the lab's supervisor restarted it)");
        }
        OffsetSnapshot now = ctx.kafka().ops().describe(group);
        did.add("its group committed " + now.partitions().stream().filter(p -> p.topic().equals(topic) && p.hasCommitted())
                .map(p -> p.partition() + "=" + p.committed()).collect(Collectors.joining(", ", "{", "}")));
        return String.join("; ", did);
    }
}
