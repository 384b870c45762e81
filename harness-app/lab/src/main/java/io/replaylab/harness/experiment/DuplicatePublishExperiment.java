package io.replaylab.harness.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import io.replaylab.barrier.wire.FetchWatch;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabKafka;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.RecordParser;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Duplicate publish (SPEC R11–R15): an at-least-once producer that retries a send puts the same
 * message (same id, same amount) at a NEW offset. A drains the source, then a slice of its records
 * is published again, raw (key, value, headers, timestamp; same partition), and A drains those too:
 * the oracle still wants one effect per identity. An inbox keyed by the message's id passes; one
 * keyed by its position (partition, offset) applies each re-sent message a second time.
 */
final class DuplicatePublishExperiment {
    static final String NAME = "duplicate-publish";

    static final String[] REQUIREMENTS = {"R11", "R12", "R13", "R14", "R15"};

    /** Every {@value}th record the mapping reads, in (partition, offset) order, starting with the first: a fixed, repeatable slice. */
    static final int EVERY = 4;

    /** How the duplicates are made, for the evidence (a lost Produce answer on the wire would be the other way). */
    static final String HOW = "a plain re-send of the raw records (key, value, headers and timestamp, to the same partition), as an "
            + "at-least-once producer writes after a retry; not a lost Produce answer on the wire";

    private DuplicatePublishExperiment() {
    }

    /** One record published again: where it was, where its copy landed, and the id the mapping reads in it. */
    record Republished(int partition, long offset, long newOffset, String id) {
        @Override
        public String toString() {
            return "p" + partition + "@" + offset + " → p" + partition + "@" + newOffset + " (" + id + ")";
        }
    }

    static Outcome run(LabContext ctx, LabNamespace ns, ExperimentRecorder e) throws Exception {
        Experiments.onTheRunsBroker(ctx, e, ns);
        String topic = ns.topic();
        String group = ns.group();
        String inbox = ns.inbox(1);
        String instance = NAME + "-A";
        Source harness = Source.here("harness");

        ctx.step("producing " + ctx.settings().records() + " records to " + topic);
        Experiments.produce(ctx, e, ns);

        ctx.step("consumer A drains the topic into the target (" + inbox + ")");
        // the wire's word on delivery: the broker's Fetch answers to A, watched from before A starts (a Fetch sent before a watch opened
        // is not read, nor its answer: opened later, the watch would miss a long poll still waiting when the records are re-sent)
        FetchWatch fetches = ctx.kafka().witness().map(w -> w.watchFetches(topic)).orElse(null);
        LabContext.Instance a;
        try {
            a = ctx.subjects().start(e, ctx.subjects().consumer(instance, topic, group, inbox));
        } catch (RuntimeException | Error x) {
            if (fetches != null) {
                fetches.close();
            }
            throw x;
        }
        List<Republished> resent;
        OffsetSnapshot after;
        long handledBefore;
        try {
            OffsetSnapshot drained = ctx.kafka().awaitApplied(group, topic, inbox, "first pass", a);
            if (drained == null) {
                return e.finish(Outcome.notRun("the subject did not consume the topic to the end: " + ctx.kafka().notDone(group)
                        + " (see logs/" + instance + ".err)"));
            }
            e.record(harness, drained.toPayload("drained, before the re-send"));
            handledBefore = handled(ctx.subjects().processingCounts(instance));

            ctx.step("publishing every " + EVERY + "th record again at new offsets of " + topic);
            resent = republish(ctx, topic, ctx.kafka().source(topic).parser());
            e.artifact(ctx.save(topic + "-republished", resent), "the records published again: original partition@offset, new offset, id");
            e.record(harness, new Payload.Note("published " + resent.size() + " record(s) again at new offsets (every " + EVERY + "th of the "
                    + "records the mapping reads, in partition and offset order), by " + HOW + ": " + listed(resent)));

            ctx.step("consumer A drains the re-sent records");
            after = ctx.kafka().awaitDrained(group, topic, "re-send", fetches, drained, a);
        } finally {
            ctx.subjects().stop(e, a);
            if (fetches != null) {
                fetches.close();
            }
        }
        ctx.subjects().recordAssignmentLog(e, a);
        if (after == null) {
            return e.finish(Outcome.notRun("the subject did not consume the " + resent.size() + " re-sent record(s): "
                    + ctx.kafka().notDone(group) + " (see logs/" + instance + ".err)"));
        }
        e.record(harness, after.toPayload("after the re-sent records"));
        e.artifact(ctx.save(NAME + "-offsets-after", after), "offsets after A drained the re-sent records");

        // The fault: every re-sent record reached A. Evidence: the committed offsets passed each new offset, and A handled
        // them (its processing log when it keeps one, else the broker's Fetch answers to A on the wire).
        long committedPast = resent.stream().filter(r -> r.newOffset() < LabKafka.committed(after, topic, r.partition())).count();
        Optional<Map<String, Long>> log = ctx.subjects().processingCounts(instance);
        FetchWatch wire = fetches != null && fetches.unreadable() == null ? fetches : null;
        long onWire = wire == null ? 0 : resent.stream().filter(r -> wire.deliveredAll(r.partition(), r.newOffset(), r.newOffset() + 1)).count();
        boolean offWire = log.isEmpty() && fetches != null && fetches.lowestOffsets().isEmpty();
        long handled = log.isPresent() ? handled(log) - handledBefore : wire != null ? onWire : committedPast;
        String seen = committedPast + " of " + resent.size() + " re-sent offsets committed" + (log.isPresent()
                ? ", " + handled + " records handled after the re-send in the subject's log " + log.get()
                : wire != null ? ", " + onWire + " of them delivered to A by the broker's Fetch answers on the wire"
                : fetches != null ? " (the wire witness could not read a Fetch answer, " + fetches.unreadable() + ": offsets only)"
                : " (no processing log and no wire witness: offsets only)");
        Optional<Outcome> none = Verdicts.republishDelivered(e, topic, resent.size(), committedPast, handled, offWire, seen);
        if (none.isPresent()) {
            return none.get();
        }
        Event delivered = e.record(Source.of(instance, a.pid(), log.isPresent() ? "processing log" : wire != null ? "wire witness" : "committed offsets"),
                new Payload.Note(resent.size() + " re-sent record(s) delivered to " + instance + ": " + seen));

        ctx.step("checks (oracle: one effect per identity, frontier)");
        Comparison c = ctx.target().judge(e, topic, inbox, group);
        Outcome judged = Outcome.judge(e.confirmFault(resent.size() + " record(s) published again at new offsets and delivered", delivered), e.checks());
        return e.finish(Verdicts.doubled(judged, c.duplicated(), resent.size()));
    }

    /** Records the processing log says the subject handled (applied, duplicate or quarantined); 0 without a log. */
    private static long handled(Optional<Map<String, Long>> log) {
        return log.map(m -> m.getOrDefault("applied", 0L) + m.getOrDefault("duplicate", 0L) + m.getOrDefault("quarantined", 0L)).orElse(0L);
    }

    /** The first few, then how many more (the whole list is the artifact). */
    private static String listed(List<Republished> resent) {
        String first = resent.stream().limit(10).map(Republished::toString).collect(Collectors.joining(", "));
        return resent.size() > 10 ? first + ", … (" + (resent.size() - 10) + " more)" : first;
    }

    /**
     * Publishes the slice again: the topic read to its end ({@code read_committed}), every {@link #EVERY}th record
     * {@code parser} reads (a malformed one has no effect to double), each sent again raw to its own partition, in order
     * ({@link io.replaylab.harness.lab.LabKafka#publishRaw}: idempotent and {@code acks=all}, so what the evidence lists is
     * exactly what the topic gained).
     */
    static List<Republished> republish(LabContext ctx, String topic, RecordParser parser) throws Exception {
        List<ConsumerRecord<byte[], byte[]>> slice = new ArrayList<>();
        int n = 0;
        for (ConsumerRecord<byte[], byte[]> r : ctx.kafka().readRaw(topic)) {
            if (parser.parse(r.key(), r.value(), headers(r)).ok() && n++ % EVERY == 0) {
                slice.add(r);
            }
        }
        List<Long> offsets = ctx.kafka().publishRaw(topic, slice);
        List<Republished> out = new ArrayList<>(slice.size());
        for (int i = 0; i < slice.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = slice.get(i);
            out.add(new Republished(r.partition(), r.offset(), offsets.get(i), parser.parse(r.key(), r.value(), headers(r)).id()));
        }
        return out;
    }

    private static RecordParser.Headers headers(ConsumerRecord<byte[], byte[]> r) {
        return name -> {
            Header h = r.headers().lastHeader(name);
            return h == null ? null : h.value();
        };
    }
}
