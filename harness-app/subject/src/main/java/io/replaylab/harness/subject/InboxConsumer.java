package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
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

import io.replaylab.kafka.ClientProperties;

/**
 * The reference serial consumer: for each record, ONE database transaction (inbox row + effect, or
 * quarantine), THEN {@code commitSync} of the record's next offset. That order makes "after the DB
 * commit, before the offset commit" a well-defined point, which the debugger barrier uses from
 * outside. It has no hooks or callbacks for the lab: only its command line, Kafka and its DB.
 */
class InboxConsumer {
    private static final Logger log = LoggerFactory.getLogger(InboxConsumer.class);

    record Options(String bootstrap, String topic, String group, String db, String namespace, String instanceId,
            GroupProtocol groupProtocol, int maxPollIntervalMs, Integer sessionTimeoutMs, Duration untilIdle, Path assignmentLog,
            Path processingLog, int maxPollRecords, ClientProperties client) {
    }

    private final Options o;

    InboxConsumer(Options options) {
        this.o = options;
    }

    // The steps below are the consumer's own; each is a method so that the test sources' defective twins
    // (BrokenSubjectMain) can change one of them. The reference subject overrides none.

    /** The projection this instance writes into: the target, in its own inbox namespace. */
    InboxProjection projection() {
        return new InboxProjection(o.db(), o.namespace(), o.instanceId());
    }

    /** Called with every assignment ({@code n}: this instance's how-many-th, from 0) before any record of it is read. */
    void onAssigned(KafkaConsumer<String, String> c, Collection<TopicPartition> parts, int n) {
    }

    /** Whether the offset is committed before the DB transaction (never, here: the effect first, then the offset). */
    boolean commitsFirst() {
        return false;
    }

    /** A test twin's: the client's timer commits the polled positions (every second), the loop never commits. */
    boolean commitsOnATimer() {
        return false;
    }

    /** One payment's effect with its inbox row, in one transaction. */
    InboxProjection.Result project(InboxProjection db, ConsumerRecord<String, String> r, Payment p) {
        return db.apply(r.topic(), r.partition(), r.offset(), p);
    }

    /** Runs until idle (if asked) or SIGTERM; returns the exit code. */
    int run() {
        GracefulStop stop = GracefulStop.install();
        boolean commitBeforeDb = commitsFirst();
        boolean onATimer = commitsOnATimer();
        try (InboxProjection db = projection();
             JsonLines assignments = new JsonLines(o.assignmentLog());
             JsonLines processing = new JsonLines(o.processingLog());
             KafkaConsumer<String, String> c = new KafkaConsumer<>(config())) {
            RecordHandling handling = new RecordHandling(db, processing, o.instanceId(), this::project);
            stop.watch(c::wakeup);
            int[] assigned = {0}; // how many assignments this instance has had
            SubjectLogs.Assignments activity = new SubjectLogs.Assignments(assignments, o.instanceId(), c, parts -> onAssigned(c, parts, assigned[0]++));
            c.subscribe(List.of(o.topic()), activity);
            while (!stop.requested()) {
                ConsumerRecords<String, String> records = stop.poll(c::poll);
                Map<TopicPartition, Long> handled = new java.util.HashMap<>(); // per partition of this batch: the next record not yet projected
                boolean rejected = false;
                for (ConsumerRecord<String, String> r : records) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    Map<TopicPartition, OffsetAndMetadata> next = Map.of(tp, new OffsetAndMetadata(r.offset() + 1));
                    if (commitBeforeDb && !commit(c, next, processing, r)) {
                        rejected = true;
                        break;
                    }
                    handling.handle(r);
                    activity.touch();
                    handled.put(tp, r.offset() + 1);
                    if (!commitBeforeDb && !onATimer && !commit(c, next, processing, r)) {
                        rejected = true;
                        break; // the partition may no longer be ours: poll again to rejoin
                    }
                    if (stop.requested()) {
                        break;
                    }
                }
                if (rejected) {
                    afterRejectedCommit(c, records, handled);
                }
                if (activity.idleFor(o.untilIdle())) {
                    log.info("idle for {}; stopping", o.untilIdle());
                    break;
                }
            }
            if (stop.requested()) {
                c.close(Duration.ofSeconds(3)); // bounded: the broker may be gone, and leaving the group must not hold up the stop
            }
            System.out.println(handling.summary());
            System.out.flush();
            return stop.finished(0);
        } catch (RuntimeException e) {
            log.error("fatal: {}", e.toString(), e);
            System.err.println("fatal: " + e);
            return stop.finished(1);
        }
    }

    /**
     * After a rejected commit the rest of the batch was not projected, yet poll has moved past it:
     * each partition still assigned goes back to its first record not projected, so a rejection
     * that leaves the partition here (a retriable answer, a stale epoch) skips nothing. A partition
     * that moved is read by its new owner from the committed offset.
     */
    void afterRejectedCommit(KafkaConsumer<String, String> c, ConsumerRecords<String, String> records, Map<TopicPartition, Long> handled) {
        java.util.Set<TopicPartition> mine = c.assignment();
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<String, String>> batch = records.records(tp);
            long from = handled.getOrDefault(tp, batch.get(0).offset());
            if (mine.contains(tp) && from <= batch.get(batch.size() - 1).offset()) {
                try {
                    c.seek(tp, from);
                    log.info("{}: back to offset {} after the rejected commit (the rest of the batch was not projected)", tp, from);
                } catch (IllegalStateException revokedJustNow) {
                    // it left the assignment since: its new owner reads it from the committed offset
                }
            }
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

    private Properties config() {
        Properties p = SubjectLogs.consumerProperties(o.client(), o.bootstrap(), o.group(), o.instanceId(), o.groupProtocol(), o.maxPollIntervalMs(),
                o.sessionTimeoutMs(), o.maxPollRecords());
        if (commitsOnATimer()) {
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
            p.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, "1000");
        }
        return p;
    }
}

