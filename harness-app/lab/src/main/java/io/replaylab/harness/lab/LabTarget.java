package io.replaylab.harness.lab;

import java.util.List;
import java.util.Optional;

import io.micrometer.core.instrument.Timer;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Source;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.oracle.ArchivedRecord;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Oracle;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TargetSnapshot;
import io.replaylab.oracle.TopicOracle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An experiment's target database as the oracle reads it: its own SQLite file or the run's
 * PostgreSQL schema, one inbox namespace at a time ({@link LabContext#target()}).
 */
public final class LabTarget {
    /** The check that no record of an aborted transaction in the source has an effect (made only when the source may hold some). */
    public static final String NO_ABORTED_EFFECT = "no effect of an aborted record";

    private static final Logger log = LoggerFactory.getLogger(LabTarget.class);
    private final LabContext ctx;
    private final TargetDatabase db;

    private final LabDbWire wire;

    LabTarget(LabContext ctx, TargetDatabase db) {
        this.ctx = ctx;
        this.db = db;
        this.wire = db.proxy().map(LabDbWire::new).orElse(null);
    }

    /** The PostgreSQL proxy every subject's session goes through; empty for SQLite. */
    public Optional<LabDbWire> wire() {
        return Optional.ofNullable(wire);
    }

    /** {@code sqlite} or {@code postgresql}. */
    public String kind() {
        return db.kind();
    }

    /** The target database in words for the evidence (never with a password). */
    public String describe() {
        return db.describe();
    }

    /**
     * The oracle's verdict on an inbox namespace, recorded: the comparison with the topic (the
     * frontier checked against the group's offsets now) as a payload and its checks, and when the
     * source holds records of aborted transactions, whether any has an effect.
     */
    public Comparison judge(ExperimentRecorder e, String topic, String inbox, String group) {
        Comparison c = compare(topic, inbox, group);
        e.record(Source.here("harness"), c.toPayload());
        c.toChecks().forEach(e::check);
        abortedApplied(topic, inbox).ifPresent(e::check);
        return c;
    }

    /**
     * The records of aborted transactions in the source (a {@code read_uncommitted} reader sees
     * them, a {@code read_committed} one does not) that have an effect in {@code inbox}: a check
     * naming them, empty when the source has none.
     */
    Optional<Check> abortedApplied(String topic, String inbox) {
        if (!ctx.settings().source().mayHoldTransactions()) {
            return Optional.empty(); // the lab's own payments, all committed: nothing to read twice
        }
        List<String> aborted = TopicOracle.of(ctx.kafka().source(topic)).notCommitted();
        if (aborted.isEmpty()) {
            return Optional.empty();
        }
        java.util.Set<String> withEffects = inbox(inbox).withEffects(aborted);
        List<String> applied = aborted.stream().filter(withEffects::contains).toList();
        String expected = "no effect of the " + aborted.size() + " record(s) of aborted transactions";
        if (applied.isEmpty()) {
            return Optional.of(Check.pass(NO_ABORTED_EFFECT, "R12", expected, "none applied"));
        }
        return Optional.of(Check.fail(NO_ABORTED_EFFECT, "R12", expected, applied.size() + " applied, e.g. "
                + applied.subList(0, Math.min(5, applied.size())) + ": the consumer applies records of transactions their producer aborted: it "
                + "reads uncommitted (isolation.level=read_uncommitted, the Java client's default), or its client keeps the records a "
                + "read_committed fetch's answer lists as aborted"));
    }

    /** The oracle's comparison of the topic with an inbox namespace, the frontier checked against the group's offsets now. */
    public Comparison compare(String topic, String inbox, String group) {
        return compare(topic, inbox, ctx.kafka().ops().describe(group));
    }

    /** As above, against a snapshot taken already, e.g. a share group's ({@code KafkaOps.describe} of a share group: its start offsets). */
    public Comparison compare(String topic, String inbox, OffsetSnapshot group) {
        Timer.Sample t = Timer.start(ctx.meters());
        Comparison c = Oracle.of(ctx.kafka().source(topic), inbox(inbox)).compare(group);
        t.stop(ctx.meters().timer("replaylab.oracle.compare"));
        return c;
    }

    /** As above for a share group whose archived records are known (read on the wire): those without an effect are archived or rejected, not missing. */
    public Comparison compare(String topic, String inbox, OffsetSnapshot shareGroup, java.util.Collection<ArchivedRecord> archived) {
        Timer.Sample t = Timer.start(ctx.meters());
        Comparison c = Oracle.of(ctx.kafka().source(topic), inbox(inbox)).compare(shareGroup, archived);
        t.stop(ctx.meters().timer("replaylab.oracle.compare"));
        return c;
    }

    /** The target's (identity, amount) rows of an inbox namespace, saved as {@code snapshots/<name>.tsv}. */
    public TargetSnapshot snapshot(String inbox, String name) {
        Timer.Sample t = Timer.start(ctx.meters());
        TargetSnapshot s = inbox(inbox).snapshot(ctx.runDir().resolve("snapshots").resolve(name + ".tsv"));
        t.stop(ctx.meters().timer("replaylab.oracle.snapshot"));
        return s;
    }

    /**
     * The oracle's view of one inbox namespace; every view shares one pool. A custom target query
     * is tried first if no experiment has tried it yet ({@link #checkTargetQuery}).
     */
    public Target inbox(String inboxNamespace) {
        checkTargetQuery(inboxNamespace);
        return db.target(inboxNamespace);
    }

    /**
     * Whether the target can be read through the user's query now (always, with none), trying it if no one has: unlike
     * {@link #checkTargetQuery} it never refuses the run, for a look before the group's first commit, when a consumer that
     * makes its tables on its first record may not have them yet.
     */
    public boolean targetReadable(String inbox) {
        if (ctx.settings().target().query().isEmpty() || ctx.run().queryChecked()) {
            return true;
        }
        try {
            db.target(inbox).checkQuery();
            ctx.run().queryChecked(true);
            return true;
        } catch (IllegalArgumentException | io.replaylab.oracle.OracleReadException notYet) {
            log.debug("target query not readable yet: {}", notYet.getMessage());
            return false;
        }
    }

    /**
     * A custom target query is tried as soon as a subject has committed an offset (its schema
     * exists by then), and before any experiment's first read of the target: one the database
     * refuses ends the run at once, every experiment NOT_RUN naming the query and the database's
     * message, instead of each failing at its verdict.
     */
    void checkTargetQuery(String inbox) {
        if (ctx.settings().target().query().isEmpty() || ctx.run().queryChecked()) {
            return;
        }
        try {
            db.target(inbox).checkQuery();
            ctx.run().queryChecked(true);
        } catch (IllegalArgumentException ex) {
            ctx.run().refuse("the database refused the target query at the first offset commit: " + ex.getMessage());
            ctx.step(ctx.run().refused());
            throw new LabStoppedException(ctx.run().refused());
        } catch (io.replaylab.oracle.OracleReadException ex) {
            log.debug("target query not tried yet, the target cannot be read now: {}", ex.getMessage()); // the verdict's read names it
        }
    }
}
