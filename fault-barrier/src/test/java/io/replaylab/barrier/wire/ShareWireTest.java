package io.replaylab.barrier.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.CommitOffset;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.WirePoint;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.testing.ShareConsumers;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Share groups (KIP-932) through the wire proxy, with a real broker and real {@code KafkaShareConsumer}s:
 * the witness reads each record's delivery count and each acknowledgement's fate off the wire, and the
 * share acknowledgement hold point holds a member's acknowledgement past its lock.
 */
@LocalKafkaTest
class ShareWireTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @AfterEach
    void stopEverything() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closing(T c) {
        cleanup.add(c);
        return c;
    }

    /** One record in a one-partition topic; the share group starts at the earliest record, with this record lock. */
    private static void oneRecord(LocalKafka kafka, LabNamespace ns, Duration lock) throws Exception {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 1, 1);
        ShareConsumers.startAtEarliest(kafka.bootstrapServers(), ns.group());
        if (lock != null) {
            try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, ns.group()), List.of(new AlterConfigOp(
                        new ConfigEntry("share.record.lock.duration.ms", Long.toString(lock.toMillis())), AlterConfigOp.OpType.SET))))
                        .all().get(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Polls until a record comes (the member joins and is given the partition first). */
    private static ConsumerRecord<String, String> pollOne(KafkaShareConsumer<String, String> c) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                return r;
            }
        }
        throw new AssertionError("no record within " + WAIT);
    }

    @Test
    void aHeldAcknowledgementOutlivesItsLockTheRecordGoesToAnotherMemberWithDeliveryCountTwoAndTheBrokerRefusesTheStaleAcknowledgement(
            LocalKafka kafka, LabNamespace ns) throws Exception {
        oneRecord(kafka, ns, Duration.ofSeconds(1));
        WireProxy proxy = closing(WireProxy.start(kafka.bootstrapServers()));
        ShareWitness witness = proxy.witness().share();
        List<CallOutcome> outcomes = new CopyOnWriteArrayList<>();
        BarrierListener listener = new BarrierListener() {
            @Override
            public void onTransition(io.replaylab.barrier.BarrierTransition t) {
                // the moves are the barrier's own; this test asks for the outcome
            }

            @Override
            public void onOutcome(CallOutcome o) {
                outcomes.add(o);
            }
        };
        KafkaShareConsumer<String, String> a = closing(ShareConsumers.open(proxy.bootstrapServers(), ns.group(), "share-a", List.of(ns.topic())));

        ConsumerRecord<String, String> record = pollOne(a);
        assertThat(record.deliveryCount()).hasValue((short) 1);
        ShareWitness.Delivery first = witness.awaitDelivery(d -> d.covers(ns.topic(), 0, record.offset()), WAIT).orElseThrow();
        assertThat(first.clientId()).isEqualTo("share-a");
        assertThat(first.deliveryCount()).isEqualTo(1);
        assertThat(first.memberId()).isNotEmpty();

        Barrier barrier = proxy.arm("share-ack", WirePoint.shareAcknowledgement(ns.group()), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
        CompletableFuture<Map<TopicIdPartition, Optional<KafkaException>>> aCommits = CompletableFuture.supplyAsync(() -> {
            a.acknowledge(record, AcknowledgeType.ACCEPT);
            return a.commitSync(WAIT);
        });
        Arrival held = barrier.awaitArrival(WAIT);
        assertThat(held.context()).containsEntry("member", first.memberId()).containsEntry("client.id", "share-a")
                .containsEntry("acknowledgements", ns.topic() + "-0 " + record.offset() + " ACCEPT");
        assertThat(held.offsets()).containsExactly(new CommitOffset(ns.topic(), 0, record.offset()));

        // the lock (1 s) expires while A's acknowledgement is held: B, another member, gets the record again
        KafkaShareConsumer<String, String> b = closing(ShareConsumers.open(proxy.bootstrapServers(), ns.group(), "share-b", List.of(ns.topic())));
        ConsumerRecord<String, String> again = pollOne(b);
        assertThat(again.offset()).isEqualTo(record.offset());
        ShareWitness.Delivery redelivered = witness.awaitDelivery(d -> d.covers(ns.topic(), 0, record.offset()) && d.deliveryCount() >= 2,
                WAIT).orElseThrow();
        assertThat(redelivered.clientId()).isEqualTo("share-b");
        assertThat(redelivered.memberId()).isNotEqualTo(first.memberId());
        assertThat(witness.deliveryCount(ns.group(), ns.topic(), 0, record.offset())).isEqualTo(2);
        assertThat(aCommits).as("A's commitSync waits for its held acknowledgement").isNotDone();

        barrier.release();

        CallOutcome outcome = barrier.awaitOutcome(WAIT).orElseThrow();
        assertThat(outcome.verdict()).isEqualTo(CallOutcome.Verdict.REJECTED);
        assertThat(outcome.errorName()).isEqualTo("INVALID_RECORD_STATE");
        ShareWitness.Acknowledgement stale = witness.awaitAcknowledgement(x -> x.covers(ns.topic(), 0, record.offset())
                && x.clientId().equals("share-a"), WAIT).orElseThrow();
        assertThat(stale.refused()).isTrue();
        assertThat(stale.error()).isEqualTo("INVALID_RECORD_STATE");
        assertThat(stale.held()).isTrue();
        assertThat(stale.type()).isEqualTo(ShareWitness.AckType.ACCEPT);
        assertThat(stale.memberId()).isEqualTo(first.memberId());
        Map<TopicIdPartition, Optional<KafkaException>> reported = aCommits.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(reported.values()).as("what A's client reported").singleElement()
                .satisfies(e -> assertThat(e).get().extracting(x -> x.getClass().getSimpleName()).isEqualTo("InvalidRecordStateException"));
        assertThat(outcomes).containsExactly(outcome);
    }

    @Test
    void aHeldShareAcknowledgeGoesOutOnReleaseAndTheBrokerAcceptsIt(LocalKafka kafka, LabNamespace ns) throws Exception {
        oneRecord(kafka, ns, null); // the broker's default lock (30 s) outlasts the hold
        WireProxy proxy = closing(WireProxy.start(kafka.bootstrapServers()));
        KafkaShareConsumer<String, String> a = closing(ShareConsumers.open(proxy.bootstrapServers(), ns.group(), "share-a", List.of(ns.topic())));
        ConsumerRecord<String, String> record = pollOne(a);
        Barrier barrier = proxy.arm("share-ack", WirePoint.shareAcknowledgement(ns.group()), HoldMode.THREAD, BarrierListener.NONE,
                BarrierOptions.ofDefaults());
        AtomicBoolean returned = new AtomicBoolean();
        CompletableFuture<Map<TopicIdPartition, Optional<KafkaException>>> commits = CompletableFuture.supplyAsync(() -> {
            a.acknowledge(record, AcknowledgeType.ACCEPT);
            Map<TopicIdPartition, Optional<KafkaException>> r = a.commitSync(WAIT);
            returned.set(true);
            return r;
        });

        Arrival held = barrier.awaitArrival(WAIT);
        Thread.sleep(300);

        assertThat(held.context()).containsEntry("api", "ShareAcknowledge").containsEntry("group", ns.group());
        assertThat(returned).as("commitSync has not returned while its ShareAcknowledge is held").isFalse();
        barrier.release();
        assertThat(barrier.awaitOutcome(WAIT).orElseThrow().verdict()).isEqualTo(CallOutcome.Verdict.ACCEPTED);
        assertThat(commits.get(WAIT.toSeconds(), TimeUnit.SECONDS).values()).allSatisfy(e -> assertThat(e).isEmpty());
        ShareWitness.Acknowledgement ack = proxy.witness().share().awaitAcknowledgement(x -> x.covers(ns.topic(), 0, record.offset()), WAIT)
                .orElseThrow();
        assertThat(ack.accepted()).isTrue();
        assertThat(ack.held()).isTrue();
        assertThat(ack.api()).isEqualTo("ShareAcknowledge");
        assertThat(proxy.witness().share().acknowledgements(ns.group())).singleElement().isEqualTo(ack);
    }

    @Test
    void aReleaseThatRidesOnTheNextShareFetchIsHeldThereAndTheRecordComesBackWithDeliveryCountTwo(LocalKafka kafka, LabNamespace ns)
            throws Exception {
        oneRecord(kafka, ns, null);
        WireProxy proxy = closing(WireProxy.start(kafka.bootstrapServers()));
        ShareWitness witness = proxy.witness().share();
        KafkaShareConsumer<String, String> a = closing(ShareConsumers.open(proxy.bootstrapServers(), ns.group(), "share-a", List.of(ns.topic())));
        ConsumerRecord<String, String> record = pollOne(a);
        Barrier barrier = proxy.arm("share-ack", WirePoint.shareAcknowledgement(ns.group()), HoldMode.THREAD, BarrierListener.NONE,
                BarrierOptions.ofDefaults());

        a.acknowledge(record, AcknowledgeType.RELEASE);
        CompletableFuture<ConsumerRecord<String, String>> next = CompletableFuture.supplyAsync(() -> pollOne(a)); // the release rides on this fetch
        Arrival held = barrier.awaitArrival(WAIT);

        assertThat(held.context()).containsEntry("api", "ShareFetch")
                .containsEntry("acknowledgements", ns.topic() + "-0 " + record.offset() + " RELEASE");
        barrier.release();
        assertThat(barrier.awaitOutcome(WAIT).orElseThrow().verdict()).isEqualTo(CallOutcome.Verdict.ACCEPTED);
        ConsumerRecord<String, String> again = next.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(again.offset()).isEqualTo(record.offset());
        assertThat(again.deliveryCount()).hasValue((short) 2);
        ShareWitness.Acknowledgement released = witness.awaitAcknowledgement(x -> x.covers(ns.topic(), 0, record.offset()), WAIT).orElseThrow();
        assertThat(released.api()).isEqualTo("ShareFetch");
        assertThat(released.type()).isEqualTo(ShareWitness.AckType.RELEASE);
        assertThat(released.accepted()).isTrue();
        witness.awaitDelivery(d -> d.covers(ns.topic(), 0, record.offset()) && d.deliveryCount() == 2, WAIT).orElseThrow();
        assertThat(witness.deliveries(ns.group(), ns.topic(), 0, record.offset())).extracting(ShareWitness.Delivery::deliveryCount)
                .containsExactly(1, 2);
        assertThat(witness.deliveries(ns.group(), ns.topic(), 0, record.offset())).extracting(ShareWitness.Delivery::clientId)
                .containsOnly("share-a");
    }
}
