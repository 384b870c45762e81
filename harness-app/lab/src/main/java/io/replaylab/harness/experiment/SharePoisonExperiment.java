package io.replaylab.harness.experiment;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import io.replaylab.barrier.wire.ShareWitness;
import io.replaylab.barrier.wire.WireWitness;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.oracle.Comparison;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * A poison record in a share group (KIP-932): one record no consumer can read is published after the
 * source. A consumer that ACCEPTs it (after a quarantine of its own) or REJECTs it meant what became of
 * it; one that RELEASEs it (or fails on it) every time gets it again and again until the broker ARCHIVES
 * it at its delivery count limit: the record is gone with nobody's word for it. Delivery counts and
 * acknowledgement types come from the wire (no Admin API shows a record's state); the oracle judges the
 * rest of the source as usual (a record the mapping cannot read has no effect to expect).
 */
final class SharePoisonExperiment {
    static final String NAME = "share-poison";

    static final String[] REQUIREMENTS = {"R11", "R12", "R13", "R14"};

    /** What the poison record holds: no mapping reads an id or an amount in it. */
    static final String POISON = "not a payment: a poison record for share-poison";

    private static final Source HARNESS = Source.here("harness");

    private SharePoisonExperiment() {
    }

    static Outcome run(LabContext ctx, ExperimentRecorder e, Shares.Share s) throws Exception {
        Optional<WireWitness> witness = ctx.kafka().witness();
        if (witness.isEmpty()) {
            return e.finish(Outcome.notRun("share-poison reads each delivery's count and each acknowledgement's type on the wire, and this run has "
                    + "no wire witness (LabSettings.witness(false))"));
        }
        ctx.kafka().ops().createTopic(ctx.kafka().namespace(), s.topic(), 1);
        Shares.configureGroup(ctx, e, s.group(), Shares.BROKER_DEFAULT_MIN_LOCK);
        Experiments.produce(ctx, e, s.ns());
        long poison = ctx.kafka().publishRaw(s.topic(), List.of(new ConsumerRecord<>(s.topic(), 0, 0L, System.currentTimeMillis(), TimestampType.CREATE_TIME,
                0, 0, "poison".getBytes(StandardCharsets.UTF_8), POISON.getBytes(StandardCharsets.UTF_8), new RecordHeaders(), Optional.empty()))).get(0);
        e.record(HARNESS, new Payload.Note("published a poison record at " + s.topic() + "-0@" + poison + ": \"" + POISON + "\""));

        ctx.step("share consumer A drains the topic, the poison record last");
        OffsetSnapshot drained = ctx.subjects().runWhile(e, ctx.subjects().shareConsumer(NAME + "-A", s.topic(), s.group(), s.inbox()),
                a -> ctx.kafka().awaitShareDrained(s.group(), s.topic(), 1, ctx.settings().timeouts().drain(), "drain", a));
        if (drained == null) {
            return e.finish(Outcome.notRun("the share group did not get past every record of " + s.topic() + " (the poison record too) within "
                    + ctx.settings().timeouts().drain() + " (see logs/" + NAME + "-A.err)"));
        }
        e.record(HARNESS, drained.toPayload("drained"));

        ShareWitness share = witness.get().share();
        List<ShareWitness.Delivery> deliveries = share.deliveries(s.group(), s.topic(), 0, poison);
        List<ShareWitness.Acknowledgement> acks = share.acknowledgements(s.group(), s.topic(), 0, poison);
        int count = share.deliveryCount(s.group(), s.topic(), 0, poison);
        String seen = count + " deliver" + (count == 1 ? "y" : "ies") + ", acknowledgements: "
                + (acks.isEmpty() ? "none" : acks.stream().map(k -> k.type() + (k.refused() ? " refused " + k.error() : k.accepted() ? " accepted" : " unanswered"))
                        .collect(Collectors.joining(", ")));
        if (deliveries.isEmpty()) {
            return e.finish(Outcome.notRun("the wire saw no delivery of the poison record " + s.topic() + "-0@" + poison + " (does the share consumer take "
                    + "its broker from {bootstrap}, the proxy?)"));
        }
        Event fate = e.record(Source.here("wire witness"), new Payload.Note("the poison record " + s.topic() + "-0@" + poison + ": " + seen));
        Optional<ShareWitness.Acknowledgement> decided = acks.stream()
                .filter(k -> k.accepted() && (k.type() == ShareWitness.AckType.ACCEPT || k.type() == ShareWitness.AckType.REJECT)).findFirst();
        if (decided.isPresent()) {
            e.check(Check.pass("the poison record's fate is the consumer's word", "R14", "ACCEPT or REJECT, accepted", decided.get().type()
                    + " at delivery " + count));
        } else {
            e.check(Check.fail("the poison record's fate is the consumer's word", "R14", "ACCEPT or REJECT, accepted", "archived after " + count
                    + " deliveries, never accepted nor rejected (" + seen + ")"));
        }

        Comparison c = Shares.compare(ctx, e, s, drained); // the oracle names the archived records (the poison one among them), not as missing
        e.record(HARNESS, c.toPayload());
        c.toChecks().forEach(e::check);
        Outcome judged = Outcome.judge(e.confirmFault("the poison record delivered (" + seen + ")", fate), e.checks());
        if (decided.isEmpty() && judged.status() == io.replaylab.evidence.Status.FAIL) {
            return e.finish(Verdicts.naming(Outcome.checkFailed("the poison record " + s.topic() + "-0@" + poison + " was archived after " + count
                    + " deliveries with nobody's word for it (" + seen + "): the consumer lost it; " + judged.reason()), c));
        }
        return e.finish(Verdicts.naming(judged, c));
    }
}
