package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reference serial consumer: for each record, ONE database transaction (inbox row + effect, or
 * quarantine), THEN {@code commitSync} of the record's next offset. That order makes "after the DB
 * commit, before the offset commit" a well-defined point, which the debugger barrier uses from
 * outside. It has no hooks or callbacks for the lab: only its command line, Kafka and its DB.
 */
final class InboxConsumer {
    private static final Logger log = LoggerFactory.getLogger(InboxConsumer.class);

    record Options(String bootstrap, String topic, String group, String db, String namespace, String instanceId,
            GroupProtocol groupProtocol, int maxPollIntervalMs, Integer sessionTimeoutMs, Duration untilIdle, Path assignmentLog,
            Path processingLog, int maxPollRecords) {
    }

    private final Options o;
    /** Defects that exist only so tests can prove the lab catches them; the reference subject has none. */
    enum Defect {
        NONE,
        /** applies an effect without the inbox check: a second effect on redelivery */
        NO_INBOX,
        /** commits the offset BEFORE the DB commit */
        COMMIT_FIRST,
        /** on assignment, jumps over committed-but-unread records to the end ("we never reprocess"): a replay delivers nothing */
        SKIP_REPLAY,
        /** joins the group but never reads a record (every assignment paused) */
        STALL,
        /** stops reading a partition that resumes from a committed offset below its end (a replay is never consumed) */
        STALL_ON_REPLAY,
        /** stops reading when its inbox namespace is a second generation (…/g2) */
        STALL_IN_G2,
        /** reads its first assignment, then stops reading at every later one (a rebalance ends its progress) */
        STALL_AFTER_REBALANCE,
        /** commits every 10th record without applying its effect (a silent loss) */
        LOSSY,
        /** its inbox knows message ids but not namespaces: an old generation's inbox suppresses the rebuild */
        GLOBAL_INBOX,
        /** a second generation writes into the first one's namespace, without the inbox check */
        WRITE_TO_G1
    }

    private final InboxProjection.Inbox inbox;
    private final boolean commitBeforeDb;
    private final Defect defect;

    InboxConsumer(Options options) {
        this(options, Defect.NONE);
    }

    InboxConsumer(Options options, Defect defect) {
        this.o = options;
        this.defect = defect;
        this.inbox = switch (defect) {
            case NO_INBOX, WRITE_TO_G1 -> InboxProjection.Inbox.NONE;
            case GLOBAL_INBOX -> InboxProjection.Inbox.GLOBAL;
            default -> InboxProjection.Inbox.NAMESPACED;
        };
        this.commitBeforeDb = defect == Defect.COMMIT_FIRST;
    }

    /** Runs until idle (if asked) or SIGTERM; returns the exit code. */
    int run() {
        GracefulStop stop = GracefulStop.install();
        long applied = 0;
        long duplicates = 0;
        long quarantined = 0;
        String namespace = defect == Defect.WRITE_TO_G1 ? o.namespace().replaceAll("/g2$", "/g1") : o.namespace();
        try (InboxProjection db = new InboxProjection(o.db(), namespace, o.instanceId(), inbox);
             JsonLines assignments = new JsonLines(o.assignmentLog());
             JsonLines processing = new JsonLines(o.processingLog());
             KafkaConsumer<String, String> c = new KafkaConsumer<>(config())) {
            stop.watch(c);
            int[] assigned = {0}; // how many assignments this instance has had
            SubjectLogs.Assignments activity = new SubjectLogs.Assignments(assignments, o.instanceId(), c, parts -> {
                if (defect == Defect.SKIP_REPLAY) {
                    skipToEnd(c, parts);
                }
                if (stalls(c, parts, assigned[0]++)) {
                    c.pause(parts); // still polls (stays in the group), reads nothing
                }
            });
            c.subscribe(List.of(o.topic()), activity);
            while (!stop.requested()) {
                ConsumerRecords<String, String> records;
                try {
                    records = c.poll(Duration.ofMillis(200));
                } catch (WakeupException e) {
                    break;
                }
                for (ConsumerRecord<String, String> r : records) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    Map<TopicPartition, OffsetAndMetadata> next = Map.of(tp, new OffsetAndMetadata(r.offset() + 1));
                    if (commitBeforeDb && !commit(c, next, processing, r)) {
                        break;
                    }
                    InboxProjection.Result result;
                    String reason = null;
                    try {
                        Payment p = Payment.parse(r.value());
                        result = defect == Defect.LOSSY && r.offset() % 10 == 9 ? InboxProjection.Result.APPLIED // claimed, never written
                                : db.apply(r.topic(), r.partition(), r.offset(), p);
                    } catch (Payment.Malformed m) {
                        reason = m.getMessage();
                        result = db.quarantine(r.topic(), r.partition(), r.offset(), reason, r.value());
                    }
                    switch (result) {
                        case APPLIED -> applied++;
                        case DUPLICATE -> duplicates++;
                        default -> quarantined++;
                    }
                    Map<String, Object> line = logLine(r);
                    line.put("id", idOf(r.value()));
                    line.put("result", result.name().toLowerCase(java.util.Locale.ROOT));
                    if (reason != null) {
                        line.put("reason", reason);
                    }
                    processing.write(line);
                    activity.touch();
                    if (!commitBeforeDb && !commit(c, next, processing, r)) {
                        break; // the partition is no longer ours: poll again to rejoin
                    }
                    if (stop.requested()) {
                        break;
                    }
                }
                if (activity.idleFor(o.untilIdle())) {
                    log.info("idle for {}; stopping", o.untilIdle());
                    break;
                }
            }
            if (stop.requested()) {
                c.close(Duration.ofSeconds(3)); // bounded: the broker may be gone, and leaving the group must not hold up the stop
            }
            System.out.printf("%s: applied %d, duplicate %d, quarantined %d%n", o.instanceId(), applied, duplicates, quarantined);
            System.out.flush();
            return stop.finished(0);
        } catch (RuntimeException e) {
            log.error("fatal: {}", e.toString(), e);
            System.err.println("fatal: " + e);
            return stop.finished(1);
        }
    }

    /** Whether a STALL defect stops reading these partitions, at this instance's {@code n}-th assignment (from 0). */
    private boolean stalls(KafkaConsumer<String, String> c, Collection<TopicPartition> parts, int n) {
        return switch (defect) {
            case STALL -> true;
            case STALL_IN_G2 -> o.namespace().endsWith("/g2");
            case STALL_AFTER_REBALANCE -> n > 0;
            case STALL_ON_REPLAY -> {
                Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new java.util.HashSet<>(parts));
                Map<TopicPartition, Long> ends = c.endOffsets(parts);
                yield parts.stream().anyMatch(tp -> committed.get(tp) != null && committed.get(tp).offset() < ends.get(tp));
            }
            default -> false;
        };
    }

    /** The SKIP_REPLAY defect: a partition with a committed offset below its end is moved to the end, committed, and never read. */
    private static void skipToEnd(KafkaConsumer<String, String> c, Collection<TopicPartition> parts) {
        Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new java.util.HashSet<>(parts));
        Map<TopicPartition, Long> ends = c.endOffsets(parts);
        Map<TopicPartition, OffsetAndMetadata> skip = new LinkedHashMap<>();
        ends.forEach((tp, end) -> {
            OffsetAndMetadata at = committed.get(tp);
            if (at != null && at.offset() < end) {
                c.seek(tp, end);
                skip.put(tp, new OffsetAndMetadata(end));
            }
        });
        if (!skip.isEmpty()) {
            c.commitSync(skip);
            log.warn("skipped to the end without reading: {}", skip);
        }
    }

    /** commitSync; false when the group has moved on (the commit was rejected). */
    private boolean commit(KafkaConsumer<String, String> c, Map<TopicPartition, OffsetAndMetadata> next, JsonLines processing,
            ConsumerRecord<String, String> r) {
        try {
            try {
                c.commitSync(next);
            } catch (WakeupException e) {
                try {
                    c.commitSync(next, Duration.ofSeconds(3)); // a stop request must not lose the commit of the record in hand
                } catch (TimeoutException t) {
                    // the broker is gone: the effect is in the DB, the offset is not; a redelivery meets the inbox
                    log.warn("stopping: the commit of {}-{}@{} was not confirmed within 3 s", r.topic(), r.partition(), r.offset() + 1);
                    return false;
                }
            }
            return true;
        } catch (CommitFailedException | RebalanceInProgressException e) {
            log.warn("offset commit of {}-{}@{} rejected: {}", r.topic(), r.partition(), r.offset() + 1, e.getMessage());
            Map<String, Object> line = logLine(r);
            line.put("result", "commit-rejected");
            line.put("exception", e.getClass().getName());
            line.put("message", e.getMessage());
            processing.write(line);
            return false;
        }
    }

    private Map<String, Object> logLine(ConsumerRecord<String, String> r) {
        return SubjectLogs.processing(o.instanceId(), r);
    }

    private static String idOf(String value) {
        try {
            return Payment.parse(value).id();
        } catch (Payment.Malformed e) {
            return null;
        }
    }

    private Properties config() {
        return SubjectLogs.consumerProperties(o.bootstrap(), o.group(), o.instanceId(), o.groupProtocol(), o.maxPollIntervalMs(),
                o.sessionTimeoutMs(), o.maxPollRecords());
    }
}
