package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.lab.Subject;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Test-only broken variants of the reference share consumer ({@code consume --group-type share}), to prove
 * the lab catches them: {@code share-no-inbox} applies every delivery (a second effect after a lock-expiry
 * redelivery); {@code share-ack-first} acknowledges and commits BEFORE its DB transaction (a crash between
 * loses the record); {@code share-release-malformed} RELEASEs a record it cannot read instead of accepting its
 * quarantine (delivered again and again until the broker archives it); {@code share-reject-malformed} REJECTs
 * it; {@code share-reject-redelivered} REJECTs any record delivered a second time, unapplied ("a redelivery is suspect":
 * its effect is lost when the first delivery never applied it); {@code share} is the reference itself. Test hooks, the same for every mode, to put
 * the fault where the tests want it: {@code stall-first=MS} holds its first record for MS after its DB
 * transaction and before its acknowledgement (past a short lock: the record is redelivered and the late
 * acknowledgement refused); {@code crash-at=N} halts the JVM as it starts the DB transaction of its N-th
 * record (from 1); {@code stall-b=MS} is {@code stall-first} for an instance whose name ends in {@code -B} only (the
 * lab's second instance; the first one as the reference); {@code until-idle-ms=MS} is {@code --until-idle};
 * {@code lock-ms=MS} sets its own group's {@code share.record.lock.duration.ms} as it starts (an application that
 * configures its group, over what the lab set); {@code hang-after-ack=N} hangs after {@code acknowledge} of its
 * N-th record, before the {@code commitSync} that would send it (the acknowledgement never leaves; say, a blocking call
 * between the two);
 * {@code stall-after=N} stops in the projection of its record N+1, the record acquired and never acknowledged;
 * {@code no-log=1} keeps no processing log (the lab cannot name the records it applied).
 * Args: mode bootstrap topic group db namespace instance logdir [stall-first=MS] [stall-b=MS] [crash-at=N] [until-idle-ms=MS]
 * [lock-ms=MS] [hang-after-ack=N] [stall-after=N] [no-log=1].
 */
public final class ShareTwinMain {
    private ShareTwinMain() {
    }

    public static void main(String[] a) {
        Map<String, Integer> hooks = Arrays.stream(a).skip(8).map(h -> h.split("=", 2))
                .collect(Collectors.toMap(h -> h[0], h -> Integer.valueOf(h[1])));
        Integer idleMs = hooks.get("until-idle-ms");
        ShareInboxConsumer.Options o = new ShareInboxConsumer.Options(a[1], a[2], a[3], a[4], a[5], a[6], idleMs == null ? null : java.time.Duration.ofMillis(idleMs),
                hooks.containsKey("no-log") ? null : Path.of(a[7], a[6] + ".processing.jsonl"), ShareInboxConsumer.DEFAULT_MAX_POLL_RECORDS, io.replaylab.kafka.ClientProperties.none());
        // stall-b: an instance named ...-B (the lab's second one) never gets past its first record's transaction
        int stallFirst = a[6].endsWith("-B") && hooks.containsKey("stall-b") ? hooks.get("stall-b") : hooks.getOrDefault("stall-first", 0);
        if (hooks.containsKey("lock-ms")) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrap()))) {
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, o.group()), List.of(new AlterConfigOp(
                        new ConfigEntry("share.record.lock.duration.ms", hooks.get("lock-ms").toString()), AlterConfigOp.OpType.SET)))).all().get();
            } catch (Exception e) {
                throw new IllegalStateException("could not set the group's lock: " + e, e);
            }
        }
        if (hooks.containsKey("hang-after-ack") || hooks.containsKey("stall-after")) {
            Thread main = Thread.currentThread(); // a SIGTERM ends the hang: the lab's stop need not wait for its kill
            Runtime.getRuntime().addShutdownHook(new Thread(main::interrupt));
        }
        System.exit(twin(a[0], o, stallFirst, hooks.getOrDefault("crash-at", 0), hooks.getOrDefault("hang-after-ack", 0),
                hooks.getOrDefault("stall-after", 0)).run());
    }

    /** The reference share consumer with one step changed, by mode, and the test hooks in its projection step. */
    static ShareInboxConsumer twin(String mode, ShareInboxConsumer.Options o, int stallFirstMs, int crashAt, int hangAfterAck, int stallAfter) {
        AtomicInteger records = new AtomicInteger();
        AtomicInteger acknowledged = new AtomicInteger();
        return new ShareInboxConsumer(o) {
            @Override
            void acknowledging(ConsumerRecord<String, String> r) {
                if (acknowledged.incrementAndGet() == hangAfterAck) {
                    System.out.println("hanging after acknowledging " + r.topic() + "-" + r.partition() + "@" + r.offset() + ", before its commit");
                    System.out.flush();
                    sleepUntilStopped();
                }
            }

            @Override
            InboxProjection projection() {
                if (!mode.equals("share-no-inbox")) {
                    return super.projection();
                }
                return new InboxProjection(o.db(), o.namespace(), o.instanceId()) {
                    @Override
                    boolean claim(Connection c, String topic, int partition, long offset, String id, String now) {
                        return true; // no check at all: a redelivery applies a second effect
                    }
                };
            }

            @Override
            AcknowledgeType quarantinedAck() {
                return switch (mode) {
                    case "share-release-malformed" -> AcknowledgeType.RELEASE; // "try again later", every time: the broker archives it at its limit
                    case "share-reject-malformed", "share-reject-redelivered" -> AcknowledgeType.REJECT; // the consumer's own word: never again
                    default -> super.quarantinedAck();
                };
            }

            @Override
            boolean acknowledgesFirst() {
                return switch (mode) {
                    case "share", "share-no-inbox", "share-release-malformed", "share-reject-malformed", "share-reject-redelivered" -> false;
                    case "share-ack-first" -> true;
                    default -> throw new IllegalArgumentException("unknown mode " + mode);
                };
            }

            @Override
            InboxProjection.Result project(InboxProjection db, ConsumerRecord<String, String> r, Payment p) {
                int n = records.incrementAndGet();
                if (stallAfter > 0 && n > stallAfter) {
                    sleepUntilStopped(); // acquired, never applied nor acknowledged: the group cannot drain through this member
                }
                if (n == crashAt) {
                    System.out.println("crash at record " + n + ": " + p.id());
                    System.out.flush();
                    Runtime.getRuntime().halt(137); // no shutdown hook, no acknowledgement, no close: as a SIGKILL
                }
                if (mode.equals("share-reject-redelivered") && r.deliveryCount().orElse((short) 1) >= 2) {
                    return InboxProjection.Result.QUARANTINED; // not applied, and REJECTed as a quarantined record is
                }
                InboxProjection.Result result = super.project(db, r, p);
                if (n == 1 && stallFirstMs > 0) {
                    try {
                        Thread.sleep(stallFirstMs); // the DB transaction is committed, the acknowledgement not sent: the lock runs out
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return result;
            }
        };
    }

    private static void sleepUntilStopped() {
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("stopped while hanging");
        }
    }

    /** The --subject-cmd template for a mode, on this JVM's classpath. */
    public static String template(String mode) {
        return Subject.javaCommand(ShareTwinMain.class.getName(), ChildProcess.shortLived("-Xmx256m").toArray(String[]::new)) + " " + mode
                + " {bootstrap} {topic} {group} {db} {namespace} {instance} {logdir}";
    }
}
