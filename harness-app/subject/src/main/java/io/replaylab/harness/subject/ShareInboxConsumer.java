package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.replaylab.kafka.ClientProperties;

/**
 * The reference subject on a share group (KIP-932): for each record, ONE database transaction (inbox row
 * + effect, or quarantine), THEN {@code acknowledge(record, ACCEPT)} and {@code commitSync()}. A record
 * whose lock expired before its acknowledgement is delivered again (to this member or another) and meets
 * its inbox row: a DUPLICATE, no second effect. The broker's refusal of a late acknowledgement
 * (INVALID_RECORD_STATE: the record is no longer this member's) is logged as {@code ack-rejected}, never
 * fatal: the effect is in the DB and the redelivery finds it.
 *
 * <p>A malformed record is quarantined in the DB and acknowledged ACCEPT, not REJECT: it was handled (its
 * quarantine row is its outcome, as the consumer-group mode commits past it), while REJECT tells the
 * broker, a share-group dead-letter queue if the group has one, and the lab's oracle that nobody kept it.
 *
 * <p>Processing-log lines: per record its DB result with its delivery count (written at once, so a member
 * held before its acknowledgement has already said what it applied), then its acknowledgement's outcome
 * ({@code acknowledged}, or {@code ack-rejected} with the exception commitSync reported for the partition).
 * A share consumer has no rebalance callbacks: it writes no assignment log.
 */
class ShareInboxConsumer {
    private static final Logger log = LoggerFactory.getLogger(ShareInboxConsumer.class);

    /** One record acquired at a time: a member holds a lock only on the record in hand. */
    static final int DEFAULT_MAX_POLL_RECORDS = 1;

    record Options(String bootstrap, String topic, String group, String db, String namespace, String instanceId, Duration untilIdle,
            Path processingLog, int maxPollRecords, ClientProperties client) {
    }

    private final Options o;

    ShareInboxConsumer(Options options) {
        this.o = options;
    }

    // As in InboxConsumer, each step is a method so that the test sources' defective twins (ShareTwinMain) can change one.

    /** The projection this instance writes into: the target, in its own inbox namespace. */
    InboxProjection projection() {
        return new InboxProjection(o.db(), o.namespace(), o.instanceId());
    }

    /** How a record it could not read (quarantined in the DB) is acknowledged: ACCEPT, it was handled; a test twin changes it. */
    AcknowledgeType quarantinedAck() {
        return AcknowledgeType.ACCEPT;
    }

    /** Whether the record is acknowledged before the DB transaction (never, here: the effect first, then the acknowledgement). */
    boolean acknowledgesFirst() {
        return false;
    }

    /** Between {@code acknowledge} and {@code commitSync}: the acknowledgement is noted in the client, not sent (a test twin halts here). */
    void acknowledging(ConsumerRecord<String, String> r) {
    }

    /** One payment's effect with its inbox row, in one transaction. */
    InboxProjection.Result project(InboxProjection db, ConsumerRecord<String, String> r, Payment p) {
        return db.apply(r.topic(), r.partition(), r.offset(), p);
    }

    /** Runs until idle (if asked) or SIGTERM; returns the exit code. */
    int run() {
        GracefulStop stop = GracefulStop.install();
        long refused = 0;
        boolean ackFirst = acknowledgesFirst();
        try (InboxProjection db = projection();
             JsonLines processing = new JsonLines(o.processingLog());
             KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(
                     SubjectLogs.shareConsumerProperties(o.client(), o.bootstrap(), o.group(), o.instanceId(), o.maxPollRecords()))) {
            RecordHandling handling = new RecordHandling(db, processing, o.instanceId(), this::project);
            stop.watch(c::wakeup);
            c.subscribe(List.of(o.topic()));
            long lastActivity = System.nanoTime();
            boolean received = false; // idle time counts from the first record: a share consumer has no assignment callback to start it
            while (!stop.requested()) {
                ConsumerRecords<String, String> records = stop.poll(c::poll);
                for (ConsumerRecord<String, String> r : records) {
                    received = true;
                    if (ackFirst && !acknowledge(c, r, processing, AcknowledgeType.ACCEPT)) {
                        refused++;
                    }
                    InboxProjection.Result result = handling.handle(r);
                    if (!ackFirst && !acknowledge(c, r, processing, result == InboxProjection.Result.QUARANTINED ? quarantinedAck()
                            : AcknowledgeType.ACCEPT)) {
                        refused++;
                    }
                    lastActivity = System.nanoTime();
                    if (stop.requested()) {
                        break; // the rest of the batch is not acknowledged: close releases it to the group
                    }
                }
                if (o.untilIdle() != null && received && System.nanoTime() - lastActivity > o.untilIdle().toNanos()) {
                    log.info("idle for {}; stopping", o.untilIdle());
                    break;
                }
            }
            if (stop.requested()) {
                c.close(Duration.ofSeconds(3)); // bounded: the broker may be gone, and leaving the group must not hold up the stop
            }
            System.out.println(handling.summary() + ", not acknowledged " + refused);
            System.out.flush();
            return stop.finished(0);
        } catch (RuntimeException e) {
            log.error("fatal: {}", e.toString(), e);
            System.err.println("fatal: " + e);
            return stop.finished(1);
        }
    }

    /** What became of an acknowledgement: its processing-log result, and the exception when it was refused. */
    private record Ack(String result, Throwable refusal) {
        static final Ack ACKNOWLEDGED = new Ack("acknowledged", null);
        static final Ack UNCONFIRMED = new Ack("ack-unconfirmed", null);

        static Ack rejected(Throwable refusal) {
            // the client wraps some refusals in a bare KafkaException: the cause names the broker's error
            return new Ack("ack-rejected", refusal.getClass() == KafkaException.class && refusal.getCause() != null ? refusal.getCause() : refusal);
        }
    }

    /**
     * {@code acknowledge(r, ACCEPT)}, then {@code commitSync()}; its outcome for the record's partition goes to the
     * processing log. False unless the broker confirmed it: refused (in commitSync's map: the lock expired and the
     * record is no longer this member's; or by the client, for a record it no longer holds) or not confirmed.
     */
    private boolean acknowledge(KafkaShareConsumer<String, String> c, ConsumerRecord<String, String> r, JsonLines processing, AcknowledgeType type) {
        Ack ack;
        try {
            c.acknowledge(r, type);
            acknowledging(r);
            ack = commit(c, r);
        } catch (IllegalStateException | KafkaException e) {
            ack = Ack.rejected(e);
        }
        Map<String, Object> line = SubjectLogs.processing(o.instanceId(), r);
        line.put("id", Payment.idOf(r.value()));
        line.put("ack", type.name());
        line.put("result", ack.result());
        if (ack.refusal() != null) {
            log.warn("acknowledgement of {}-{}@{} refused: {}", r.topic(), r.partition(), r.offset(), ack.refusal().toString());
            line.put("exception", ack.refusal().getClass().getName());
            line.put("message", ack.refusal().getMessage());
        } else if (ack == Ack.UNCONFIRMED) {
            log.warn("stopping: the acknowledgement of {}-{}@{} was not confirmed within 3 s", r.topic(), r.partition(), r.offset());
        }
        processing.write(line);
        return ack == Ack.ACKNOWLEDGED;
    }

    /** commitSync, and its answer for the record's partition; a stop request gets one more 3 s try (the broker may be gone). */
    private static Ack commit(KafkaShareConsumer<String, String> c, ConsumerRecord<?, ?> r) {
        Map<TopicIdPartition, Optional<KafkaException>> results;
        try {
            results = c.commitSync();
        } catch (WakeupException e) {
            try {
                results = c.commitSync(Duration.ofSeconds(3)); // a stop request must not lose the acknowledgement of the record in hand
            } catch (TimeoutException t) {
                return Ack.UNCONFIRMED;
            }
        }
        return results.entrySet().stream()
                .filter(e -> e.getKey().topic().equals(r.topic()) && e.getKey().partition() == r.partition())
                .map(e -> e.getValue().map(Ack::rejected).orElse(Ack.ACKNOWLEDGED))
                .findFirst()
                .orElse(Ack.UNCONFIRMED); // the acknowledgement went out with an earlier request, or not at all
    }
}

