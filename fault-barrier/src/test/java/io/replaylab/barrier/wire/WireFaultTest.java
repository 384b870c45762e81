package io.replaylab.barrier.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Faults aimed at one request on the wire, between real Java clients and a real broker: what the client did is observed, not assumed. */
@LocalKafkaTest
class WireFaultTest {
    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    private WireProxy proxy(LocalKafka kafka) {
        WireProxy p = WireProxy.start(kafka.bootstrapServers());
        cleanup.add(p);
        return p;
    }

    private KafkaConsumer<String, String> consumer(WireProxy proxy, String group) {
        KafkaConsumer<String, String> c = Clients.consumer(proxy.bootstrapServers(), group);
        cleanup.add(c);
        return c;
    }

    /** A proxy with {@code spec} armed on the group's requests, a topic of one partition, and a consumer through the proxy assigned to it. */
    private Aimed aim(LocalKafka kafka, LabNamespace ns, String spec) {
        WireProxy proxy = proxy(kafka);
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        ArmedFault fault = proxy.inject(WireFault.parse(spec).at(ns.group(), null));
        TopicPartition tp = new TopicPartition(ns.topic(), 0);
        KafkaConsumer<String, String> c = consumer(proxy, ns.group());
        c.assign(List.of(tp));
        return new Aimed(proxy, fault, c, tp);
    }

    private record Aimed(WireProxy proxy, ArmedFault fault, KafkaConsumer<String, String> c, TopicPartition tp) {
        void commit(long offset) {
            c.commitSync(Map.of(tp, new OffsetAndMetadata(offset)), Duration.ofSeconds(30));
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> stored(LocalKafka kafka, String group) throws Exception {
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        }
    }

    /** The effects' catalogue is whole: every kind of effect has one name there, and the help the parser gives lists each. */
    @Test
    void everyEffectHasOneNameInTheCatalogueAndTheHelpListsIt() {
        java.util.Set<Class<?>> made = new java.util.HashSet<>();
        for (WireFault.EffectKind k : WireFault.EffectKind.values()) {
            WireFault.Effect e = k.make.apply(k == WireFault.EffectKind.ERROR ? "NOT_COORDINATOR" : k == WireFault.EffectKind.REWIND ? "5"
                    : k == WireFault.EffectKind.DELAY ? "2s" : null);
            assertThat(e.spec()).as(k.name()).startsWith(k.name);
            assertThat(WireFault.EFFECTS).contains(k.name + k.usage);
            made.add(e.getClass());
        }
        assertThat(made).containsExactlyInAnyOrderElementsOf(effects(WireFault.Effect.class));
    }

    /** The records a sealed type permits, through its sealed subtypes (e.g. the OffsetFetch answers). */
    private static List<Class<?>> effects(Class<?> type) {
        return type.isSealed() ? java.util.Arrays.stream(type.getPermittedSubclasses()).flatMap(c -> effects(c).stream()).toList() : List.of(type);
    }

    @Test
    void aCommitAnsweredCoordinatorLoadInProgressIsRetriedByCommitSyncAndStored(LocalKafka kafka, LabNamespace ns) throws Exception {
        Aimed at = aim(kafka, ns, "offset-commit:error=COORDINATOR_LOAD_IN_PROGRESS");

        at.commit(7); // returns: the client retried

        assertThat(stored(kafka, ns.group())).containsEntry(at.tp(), new OffsetAndMetadata(7));
        FaultFiring f = at.fault().firings().get(0);
        assertThat(at.fault().firings()).hasSize(1);
        assertThat(f.request()).startsWith("OffsetCommit v").contains("group " + ns.group()).contains(ns.topic() + "-0=7");
        assertThat(f.done()).isEqualTo("answered COORDINATOR_LOAD_IN_PROGRESS without forwarding it (the broker never saw it)");
        assertThat(f.after()).as("what the client did next: the same commit again").anyMatch(a -> a.startsWith("OffsetCommit") && a.endsWith(ns.topic() + "-0=7"));
        List<WitnessedCommit> seen = at.proxy().witness().commits(ns.group());
        assertThat(seen.get(0).fate()).isEqualTo(WitnessedCommit.Fate.FAULTED);
        assertThat(seen.get(0).fateText()).isEqualTo("answered COORDINATOR_LOAD_IN_PROGRESS by a fault in the proxy (the broker never saw it)");
        assertThat(seen).last().satisfies(w -> assertThat(w.accepted()).isTrue());
    }

    @Test
    void aCommitAnsweredNotCoordinatorSendsTheClientToFindItsCoordinatorAgain(LocalKafka kafka, LabNamespace ns) throws Exception {
        Aimed at = aim(kafka, ns, "offset-commit:error=NOT_COORDINATOR");

        at.commit(3);

        assertThat(stored(kafka, ns.group())).containsEntry(at.tp(), new OffsetAndMetadata(3));
        assertThat(at.fault().firings()).singleElement().satisfies(f -> assertThat(f.after()).anyMatch(a -> a.startsWith("FindCoordinator")));
    }

    @Test
    void aLostAnswerLeavesTheCommitStoredWhileTheClientSawItsConnectionClose(LocalKafka kafka, LabNamespace ns) throws Exception {
        Aimed at = aim(kafka, ns, "offset-commit:lost-answer");

        Throwable thrown = null;
        try {
            at.commit(5);
        } catch (RuntimeException e) {
            thrown = e; // whatever the client does, it is recorded as observed below
        }

        assertThat(stored(kafka, ns.group())).as("the broker stored it").containsEntry(at.tp(), new OffsetAndMetadata(5));
        FaultFiring f = at.fault().awaitFiring(Duration.ofSeconds(5)).orElseThrow();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (at.fault().firings().get(0).after().stream().noneMatch(a -> a.startsWith("the proxy closed")) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        f = at.fault().firings().get(0);
        assertThat(f.done()).isEqualTo("forwarded; the broker answered {NONE=1}; that answer was dropped and the client's connection closed");
        assertThat(f.after()).anyMatch(a -> a.startsWith("the proxy closed connection"));
        assertThat(at.proxy().witness().commits(ns.group())).first().satisfies(w -> assertThat(w.accepted()).as("stored, on the wire").isTrue());
        if (thrown == null) {
            assertThat(f.after()).as("commitSync returned: it sent the commit again").anyMatch(a -> a.startsWith("OffsetCommit"));
            int closedAt = f.after().indexOf(f.after().stream().filter(a -> a.startsWith("the proxy closed")).findFirst().orElseThrow());
            assertThat(f.after().subList(closedAt, f.after().size())).as("its resend went over a connection it opened after the closing")
                    .anyMatch(a -> a.startsWith("opened connection"));
        }
    }

    @Test
    void aRewoundOffsetFetchDeliversRecordsAgainAtTheirOwnOffsetsWithNoResetByAnyone(LocalKafka kafka, LabNamespace ns) throws Exception {
        Rewound r = rewindBy5(kafka, ns, 0);

        assertThat(r.first().offset()).as("resumed 5 below the committed offset").isEqualTo(15);
        assertThat(r.first().value()).isEqualTo("v-0-15");
        assertThat(stored(kafka, ns.group())).as("the broker's own offset never moved").containsEntry(new TopicPartition(ns.topic(), 0),
                new OffsetAndMetadata(20));
        assertThat(r.fault().firings()).singleElement().satisfies(f -> assertThat(f.done()).isEqualTo("answered the committed offsets lower: "
                + ns.topic() + "-0 20→15"));
    }

    @Test
    void aRewindNeverGoesBelowTheLogStartSoTheClientIsRedeliveredRatherThanReset(LocalKafka kafka, LabNamespace ns) throws Exception {
        Rewound r = rewindBy5(kafka, ns, 18);

        assertThat(r.first().offset()).as("resumed at the log start, not 5 below the commit (out of range: the reset policy would follow)")
                .isEqualTo(18);
        assertThat(r.fault().firings()).singleElement().satisfies(f -> assertThat(f.done()).isEqualTo("answered the committed offsets lower: "
                + ns.topic() + "-0 20→18 (the log start: 5 lower is out of range)"));
    }

    private record Rewound(ArmedFault fault, ConsumerRecord<String, String> first) {
    }

    /**
     * 30 records with the log starting at {@code logStart} and the group committed at 20, then a consumer of the group through
     * the proxy with {@code offset-fetch:rewind=5} armed: its first record. It has no reset policy, so an offset out of range
     * throws instead of jumping somewhere.
     */
    private Rewound rewindBy5(LocalKafka kafka, LabNamespace ns, long logStart) throws Exception {
        WireProxy proxy = proxy(kafka);
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 1, 30);
        TopicPartition tp = new TopicPartition(ns.topic(), 0);
        if (logStart > 0) {
            try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
                admin.deleteRecords(Map.of(tp, org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(logStart))).all().get();
            }
        }
        try (KafkaConsumer<String, String> first = Clients.consumer(kafka.bootstrapServers(), ns.group())) {
            first.assign(List.of(tp));
            first.commitSync(Map.of(tp, new OffsetAndMetadata(20)));
        }
        ArmedFault fault = proxy.inject(WireFault.parse("offset-fetch:rewind=5").at(ns.group(), null));
        KafkaConsumer<String, String> c = Clients.consumer(proxy.bootstrapServers(), ns.group(), "classic", "none");
        cleanup.add(c);
        c.subscribe(List.of(ns.topic()));
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (got.isEmpty() && System.nanoTime() < deadline) {
            c.poll(Duration.ofMillis(200)).forEach(got::add);
        }
        assertThat(got).as("records within 30 s").isNotEmpty();
        return new Rewound(fault, got.get(0));
    }

    @Test
    void aHeartbeatAnsweredRebalanceInProgressMakesTheClassicClientJoinAgain(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka);
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        ArmedFault fault = proxy.inject(WireFault.parse("heartbeat:error=REBALANCE_IN_PROGRESS").at(ns.group(), null));
        KafkaConsumer<String, String> c = consumer(proxy, ns.group());
        c.subscribe(List.of(ns.topic()));

        long deadline = System.nanoTime() + 30_000_000_000L;
        while ((fault.firings().isEmpty() || fault.firings().get(0).after().stream().noneMatch(a -> a.startsWith("JoinGroup")))
                && System.nanoTime() < deadline) {
            c.poll(Duration.ofMillis(200));
        }

        assertThat(fault.firings()).singleElement().satisfies(f -> {
            assertThat(f.done()).startsWith("answered REBALANCE_IN_PROGRESS");
            assertThat(f.after()).as("the client joined the group again").anyMatch(a -> a.startsWith("JoinGroup"));
        });
    }

    @Test
    void aDelayedFetchAnswerArrivesLateAndWhole(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka);
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 1, 10);
        ArmedFault fault = proxy.inject(WireFault.parse("fetch:delay=1500ms"));
        long start = System.nanoTime();
        List<ConsumerRecord<String, String>> read = Clients.readAll(proxy.bootstrapServers(), new TopicPartition(ns.topic(), 0), 10, Duration.ofSeconds(30));

        assertThat(read).hasSize(10);
        assertThat((System.nanoTime() - start) / 1_000_000).as("the first Fetch answer waited 1.5 s").isGreaterThanOrEqualTo(1500);
        assertThat(fault.firings()).singleElement().satisfies(f -> assertThat(f.done()).matches("the broker's answer \\{.*} held 1500 ms, then sent"));
    }

    @Test
    void aDisconnectAtFindCoordinatorIsFollowedByTheClientConnectingAgain(LocalKafka kafka, LabNamespace ns) throws Exception {
        Aimed at = aim(kafka, ns, "find-coordinator:disconnect");

        at.commit(2);

        assertThat(stored(kafka, ns.group())).containsEntry(at.tp(), new OffsetAndMetadata(2));
        assertThat(at.fault().firings()).singleElement().satisfies(f -> {
            assertThat(f.done()).isEqualTo("closed the connection at it; the request was never forwarded");
            assertThat(f.after()).anyMatch(a -> a.startsWith("the proxy closed connection")).anyMatch(a -> a.startsWith("FindCoordinator"));
        });
    }

    @Test
    void aFaultAimedAtTheSecondRequestOfOneClientLetsTheFirstAndOtherClientsPass(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka);
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        TopicPartition tp = new TopicPartition(ns.topic(), 0);
        KafkaConsumer<String, String> c = consumer(proxy, ns.group());
        c.assign(List.of(tp));
        c.commitSync(Map.of(tp, new OffsetAndMetadata(1)));
        String clientId = proxy.witness().commits(ns.group()).get(0).clientId();
        ArmedFault fault = proxy.inject(WireFault.parse("offset-commit:error=COORDINATOR_LOAD_IN_PROGRESS@2").at(ns.group(), clientId));
        KafkaConsumer<String, String> other = consumer(proxy, ns.group());
        other.assign(List.of(tp));
        other.commitSync(Map.of(tp, new OffsetAndMetadata(2))); // another client: not counted
        c.commitSync(Map.of(tp, new OffsetAndMetadata(3)));     // the first of c's since arming: passes
        assertThat(fault.firings()).isEmpty();
        c.commitSync(Map.of(tp, new OffsetAndMetadata(4)), Duration.ofSeconds(30));

        assertThat(fault.matched()).isGreaterThanOrEqualTo(2);
        assertThat(fault.firings()).singleElement().satisfies(f -> {
            assertThat(f.match()).isEqualTo(2);
            assertThat(f.clientId()).isEqualTo(clientId);
            assertThat(f.request()).contains(ns.topic() + "-0=4");
        });
    }

    @Test
    void badFaultSpecificationsAreRefusedNamingWhatWasWrongAndWhatIsValid() {
        assertThat(WireFault.parse("offset-commit:error=NOT_COORDINATOR@2").spec()).isEqualTo("offset-commit:error=NOT_COORDINATOR@2");
        assertThat(WireFault.parse("heartbeat:error=rebalance_in_progress@every").target().nth()).isZero();
        assertThat(WireFault.parse("offset-fetch:rewind=5").effect()).isEqualTo(new WireFault.Effect.Rewind(5));
        assertThat(WireFault.parse("fetch:delay=2s").effect()).isEqualTo(new WireFault.Effect.Delay(Duration.ofSeconds(2)));
        assertThat(WireFault.parse("offset-commit:lost-answer").at("g", "A").meaning())
                .isEqualTo("the first OffsetCommit of group g from client A: forwarded; the broker's answer dropped and the client's connection closed");

        assertThatThrownBy(() -> WireFault.parse("offset-comit:lost-answer")).hasMessage("unknown request 'offset-comit'; a fault aims at one of: "
                + "offset-commit, offset-fetch, heartbeat, join-group, sync-group, consumer-group-heartbeat, find-coordinator, fetch, produce");
        assertThatThrownBy(() -> WireFault.parse("offset-commit:error=NOT_A_CODE")).hasMessageStartingWith(
                "fault 'offset-commit:error=NOT_A_CODE': 'NOT_A_CODE' is no Kafka error name").hasMessageContaining("the effects are: error=CODE");
        assertThatThrownBy(() -> WireFault.parse("offset-commit:error=NONE")).hasMessageContaining("'NONE' is no Kafka error name");
        assertThatThrownBy(() -> WireFault.parse("offset-commit:rewind=5")).hasMessage(
                "fault 'offset-commit:rewind=5': rewind changes an OffsetFetch answer: its target must be offset-fetch, was offset-commit; the effects are: "
                        + WireFault.EFFECTS);
        assertThatThrownBy(() -> WireFault.parse("offset-fetch:rewind=0")).hasMessageContaining("at least 1, was 0");
        assertThatThrownBy(() -> WireFault.parse("fetch:delay=2")).hasMessageContaining("delay '2' must be a number with ms or s");
        assertThatThrownBy(() -> WireFault.parse("fetch:explode")).hasMessageContaining("unknown effect 'explode'");
        assertThatThrownBy(() -> WireFault.parse("fetch:disconnect@0")).hasMessageContaining("'@0' must be @N (N >= 1");
        assertThatThrownBy(() -> WireFault.parse("fetch")).hasMessageContaining("must be api:effect[@n]");
        assertThatThrownBy(() -> new WireFault.Effect.Error(Errors.NONE)).hasMessageContaining("was NONE");
    }
}
