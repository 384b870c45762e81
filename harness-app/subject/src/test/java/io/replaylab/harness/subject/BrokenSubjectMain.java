package io.replaylab.harness.subject;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.lab.Subject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;


/**
 * Test-only broken variants of the reference consumer, to prove the lab catches them:
 * {@code no-inbox} applies an effect without the inbox check (a second effect on redelivery);
 * {@code commit-first} commits the offset BEFORE the DB commit; {@code auto-commit} leaves its commits to the client's timer; {@code skip-replay} jumps over committed-but-unread
 * records to the end (a replay delivers nothing); {@code stall}, {@code stall-on-replay}, {@code stall-in-g2},
 * {@code stall-after-rebalance} stop reading at that moment, {@code stall-on-duplicate} at a message id it has already handled (a
 * re-sent one), {@code hang-at-second} in its second record's handler, before its DB transaction; {@code lossy} loses every 10th effect;
 * {@code occupy-plans} puts a file where the harness saves its plans; {@code ignore-sigterm} never leaves the group;
 * {@code global-inbox} checks ids without their namespace; {@code write-to-g1} rebuilds into generation 1; {@code skip-ahead}
 * (consumer protocol) commits past the rest of its batch after a rejected commit.
 * Args: mode bootstrap topic group db namespace instance logdir.
 */
public final class BrokenSubjectMain {
    private BrokenSubjectMain() {
    }

    public static void main(String[] a) throws Exception {
        String mode = a[0];
        if (mode.equals("occupy-plans")) {
            // something else holds the path where the harness saves its reset plans: the reset must be refused, not forced
            Path plans = Path.of(a[7]).resolveSibling("plans");
            if (!java.nio.file.Files.exists(plans)) {
                java.nio.file.Files.writeString(plans, "not a directory");
            }
            mode = "none";
        }
        if (mode.equals("ignore-sigterm")) {
            sun.misc.Signal.handle(new sun.misc.Signal("TERM"), s -> { }); // only SIGKILL ends it; it never leaves the group
            mode = "none";
        }
        // skip-ahead shows its defect where a rejected commit leaves the partition with the consumer: the consumer protocol's stale epoch
        org.apache.kafka.clients.consumer.GroupProtocol protocol = mode.equals("skip-ahead") ? org.apache.kafka.clients.consumer.GroupProtocol.CONSUMER
                : org.apache.kafka.clients.consumer.GroupProtocol.CLASSIC;
        InboxConsumer.Options o = new InboxConsumer.Options(a[1], a[2], a[3], a[4], a[5], a[6], protocol, 5000, 6000, null,
                Path.of(a[7], a[6] + ".assignments.jsonl"), Path.of(a[7], a[6] + ".processing.jsonl"), 100, io.replaylab.kafka.ClientProperties.none());
        System.exit(twin(mode, o).run());
    }

    /** The reference consumer with one step changed, by mode. */
    static InboxConsumer twin(String mode, InboxConsumer.Options o) {
        return switch (mode) {
            case "none" -> new InboxConsumer(o);
            case "no-inbox" -> new InboxConsumer(o) {
                @Override
                InboxProjection projection() {
                    return withoutInbox(o.namespace(), o);
                }
            };
            case "write-to-g1" -> new InboxConsumer(o) { // generation 2 writes into generation 1's namespace, without the inbox check
                @Override
                InboxProjection projection() {
                    return withoutInbox(o.namespace().replaceAll("/g2$", "/g1"), o);
                }
            };
            case "global-inbox" -> new InboxConsumer(o) {
                @Override
                InboxProjection projection() {
                    return new InboxProjection(o.db(), o.namespace(), o.instanceId()) {
                        @Override
                        boolean claim(Connection c, String topic, int partition, long offset, String id, String now) throws SQLException {
                            try (PreparedStatement seen = c.prepareStatement("SELECT 1 FROM inbox WHERE message_id = ?")) {
                                seen.setString(1, id); // by id alone, whatever the namespace: an old generation's rows suppress a rebuild
                                try (ResultSet rs = seen.executeQuery()) {
                                    if (rs.next()) {
                                        return false;
                                    }
                                }
                            }
                            return super.claim(c, topic, partition, offset, id, now);
                        }
                    };
                }
            };
            case "skip-ahead" -> new InboxConsumer(o) { // a rejected commit: give up the rest of the batch and commit past it
                @Override
                void afterRejectedCommit(KafkaConsumer<String, String> c, org.apache.kafka.clients.consumer.ConsumerRecords<String, String> records,
                        Map<TopicPartition, Long> handled) {
                    try {
                        c.commitSync(); // the positions poll reached: every record of the batch not projected is skipped for good
                    } catch (RuntimeException ignored) {
                        // the next poll rejoins
                    }
                }
            };
            case "auto-commit" -> new InboxConsumer(o) { // enable.auto.commit: the timer commits what poll returned, applied or not
                @Override
                boolean commitsOnATimer() {
                    return true;
                }
            };
            case "commit-first" -> new InboxConsumer(o) {
                @Override
                boolean commitsFirst() {
                    return true;
                }
            };
            case "lossy" -> new InboxConsumer(o) { // every 10th record committed without its effect: a silent loss
                @Override
                InboxProjection.Result project(InboxProjection db, ConsumerRecord<String, String> r, Payment p) {
                    return r.offset() % 10 == 9 ? InboxProjection.Result.APPLIED : super.project(db, r, p);
                }
            };
            case "stall-on-duplicate", "hang-at-second" -> new InboxConsumer(o) { // hangs in its handler: at an id it handled before (never
                // past a re-sent record), or at its second record (after its first record's DB and offset commits, before its second's)
                private final java.util.Set<String> handled = new HashSet<>();

                @Override
                InboxProjection.Result project(InboxProjection db, ConsumerRecord<String, String> r, Payment p) {
                    if (mode.equals("hang-at-second") ? handled.add(p.id()) && handled.size() == 2 : !handled.add(p.id())) {
                        try {
                            Thread.sleep(Long.MAX_VALUE);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("stopped while stalled at " + p.id(), e);
                        }
                    }
                    return super.project(db, r, p);
                }
            };
            case "skip-replay" -> new InboxConsumer(o) {
                @Override
                void onAssigned(KafkaConsumer<String, String> c, Collection<TopicPartition> parts, int n) {
                    skipToEnd(c, parts);
                }
            };
            case "stall", "stall-in-g2", "stall-after-rebalance", "stall-on-replay" -> new InboxConsumer(o) {
                @Override
                void onAssigned(KafkaConsumer<String, String> c, Collection<TopicPartition> parts, int n) {
                    if (stalls(mode, o, c, parts, n)) {
                        c.pause(parts); // still polls (stays in the group), reads nothing
                    }
                }
            };
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        };
    }

    private static InboxProjection withoutInbox(String namespace, InboxConsumer.Options o) {
        return new InboxProjection(o.db(), namespace, o.instanceId()) {
            @Override
            boolean claim(Connection c, String topic, int partition, long offset, String id, String now) {
                return true; // no check at all: a redelivery applies a second effect
            }
        };
    }

    /** Whether a stall mode stops reading these partitions at this instance's {@code n}-th assignment (from 0). */
    private static boolean stalls(String mode, InboxConsumer.Options o, KafkaConsumer<String, String> c, Collection<TopicPartition> parts, int n) {
        return switch (mode) {
            case "stall" -> true;
            case "stall-in-g2" -> o.namespace().endsWith("/g2");
            case "stall-after-rebalance" -> n > 0;
            default -> { // stall-on-replay: a partition that resumes from a committed offset below its end, at the process's first
                // assignment (the replay's process): a rejoin of the first pass's (its poll interval passed on a slow machine) reads on
                if (n > 0) {
                    yield false;
                }
                Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(parts));
                Map<TopicPartition, Long> ends = c.endOffsets(parts);
                yield parts.stream().anyMatch(tp -> committed.get(tp) != null && committed.get(tp).offset() < ends.get(tp));
            }
        };
    }

    /** skip-replay: a partition with a committed offset below its end is moved to the end, committed, and never read ("we never reprocess"). */
    private static void skipToEnd(KafkaConsumer<String, String> c, Collection<TopicPartition> parts) {
        Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(parts));
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
        }
    }

    /** The --subject-cmd template for a mode, on this JVM's classpath. */
    public static String template(String mode) {
        return Subject.javaCommand(BrokenSubjectMain.class.getName(), ChildProcess.shortLived("-Xmx256m").toArray(String[]::new)) + " " + mode + " {bootstrap} {topic} {group} {db} {namespace} {instance} {logdir}";
    }
}
