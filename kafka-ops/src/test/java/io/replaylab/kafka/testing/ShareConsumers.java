package io.replaylab.kafka.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.replaylab.kafka.GroupType;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.OffsetSnapshot;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Real share consumers (KIP-932) for tests: explicit acknowledgement, one group, against the shared broker. */
public final class ShareConsumers {
    private ShareConsumers() {
    }

    /**
     * A share group starts at the log end by default ({@code share.auto.offset.reset=latest}): a test that produces first
     * sets its group to start at the earliest record before any member joins.
     */
    public static void startAtEarliest(String bootstrap, String group) {
        try (Admin admin = Clients.admin(bootstrap)) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
                    List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                    .all().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot set share.auto.offset.reset of share group " + group, e);
        }
    }

    /** A share consumer that acknowledges explicitly, subscribed to {@code topics}. */
    public static KafkaShareConsumer<String, String> open(String bootstrap, String group, String clientId, Collection<String> topics) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put("share.acknowledgement.mode", "explicit");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
        c.subscribe(topics);
        return c;
    }

    /**
     * Polls until {@code count} records were received, accepting each and committing the acknowledgements
     * after every poll; fails when the broker refused an acknowledgement or the records did not come in time.
     *
     * @return the records received, in the order received
     */
    public static List<ConsumerRecord<String, String>> acknowledge(KafkaShareConsumer<String, String> c, int count, Duration timeout) {
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (got.size() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the share consumer received " + got.size() + " of " + count + " records within " + timeout);
            }
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                c.acknowledge(r, AcknowledgeType.ACCEPT);
                got.add(r);
            }
            Map<TopicIdPartition, Optional<KafkaException>> result = c.commitSync(Duration.ofSeconds(10));
            result.forEach((tp, error) -> error.ifPresent(e -> {
                throw new AssertionError("the broker refused the acknowledgement of " + tp + ": " + e, e);
            }));
        }
        return got;
    }

    /** Waits until the share group's description satisfies {@code condition}; fails naming the last description otherwise. */
    public static OffsetSnapshot await(KafkaOps ops, String group, java.util.function.Predicate<OffsetSnapshot> condition, String what,
            Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        OffsetSnapshot s = ops.describe(group, GroupType.SHARE);
        while (!condition.test(s)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("share group " + group + " never showed " + what + " within " + timeout + "; last: " + s);
            }
            Thread.sleep(200);
            s = ops.describe(group, GroupType.SHARE);
        }
        return s;
    }
}
