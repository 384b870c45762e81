package io.replaylab.barrier.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.WirePoint;
import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.BarrierTransition;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.barrier.jdi.CommitLoopMain;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.broker.LocalKafkaCluster;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.testing.Groups;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The wire barrier between real Java clients and a real broker. */
@LocalKafkaTest
class WireProxyTest {
    @TempDir
    Path dir;

    private final List<AutoCloseable> cleanup = new ArrayList<>();
    private final List<BarrierTransition> moves = new CopyOnWriteArrayList<>();
    private final List<CallOutcome> outcomes = new CopyOnWriteArrayList<>();
    private final List<String> observations = new CopyOnWriteArrayList<>();
    private final BarrierListener listener = new BarrierListener() {
        @Override
        public void onTransition(BarrierTransition t) {
            moves.add(t);
        }

        @Override
        public void onOutcome(CallOutcome o) {
            outcomes.add(o);
        }

        @Override
        public void onObservation(String point, String what) {
            observations.add(what);
        }
    };

    @AfterEach
    void stopEverything() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    private WireProxy proxy(LocalKafka kafka, Duration retryGrace) {
        WireProxy p = WireProxy.start(kafka.bootstrapServers(), WireProxy.DEFAULT_MAX_FRAME_BYTES, retryGrace);
        cleanup.add(p);
        return p;
    }

    private ChildProcess commitLoop(String bootstrap, LabNamespace ns, String protocol, String client, int sessionMs) {
        List<String> cmd = ChildProcess.java(ChildProcess.shortLived("-Xmx128m"), CommitLoopMain.class.getName(), bootstrap, ns.topic(), ns.group(),
                protocol, "300000", "" + sessionMs, dir.resolve("target.db").toString(), client);
        ChildProcess p = ChildProcess.of(cmd).name(client).output(dir.resolve(client + ".out"), dir.resolve(client + ".err")).start();
        cleanup.add(p::kill);
        return p;
    }

    private static int port(String bootstrap) {
        return Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap, String group, String protocol, Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.putAll(extra);
        return new KafkaConsumer<>(p);
    }

    @ParameterizedTest(name = "{0} protocol")
    @ValueSource(strings = {"classic", "consumer"})
    void producesConsumesAndCommitsThroughTheProxyUnchanged(String protocol, LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, WireProxy.DEFAULT_RETRY_GRACE);
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 2);
        Clients.fill(proxy.bootstrapServers(), ns.topic(), 2, 25); // produce through the proxy

        Set<String> seen = new HashSet<>();
        Set<String> sentAs = new HashSet<>();
        try (KafkaConsumer<String, String> c = consumer(proxy.bootstrapServers(), ns.group(), protocol,
                Map.of(ConsumerConfig.CLIENT_ID_CONFIG, "witnessed"))) {
            c.subscribe(List.of(ns.topic()));
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (seen.size() < 50 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    seen.add(r.value());
                }
                c.commitSync();
                sentAs.add(c.groupMetadata().memberId() + "@" + c.groupMetadata().generationId());
            }
        }

        assertThat(seen).hasSize(50).contains("v-0-0", "v-1-24");
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) { // read back directly from the broker
            OffsetSnapshot s = ops.describe(ns.group());
            assertThat(s.partitions()).extracting(p -> p.committed()).containsOnly(25L);
        }
        int brokerPort = port(kafka.bootstrapServers());
        assertThat(proxy.nodePorts()).hasSize(1).doesNotContainValue(brokerPort);
        try (Admin admin = Clients.admin(proxy.bootstrapServers())) { // DescribeCluster answers are rewritten too
            assertThat(admin.describeCluster().nodes().get()).extracting(n -> n.host() + ":" + n.port())
                    .containsExactly("127.0.0.1:" + proxy.nodePorts().values().iterator().next());
        }
        assertThat(proxy.requestCount()).isGreaterThan(10);
        // the proxy's own CPU time (its connection loops, ended or running) grows with what passes through it
        Duration cpu = proxy.cpuTime();
        assertThat(cpu).isGreaterThan(Duration.ZERO);
        try (Admin admin = Clients.admin(proxy.bootstrapServers())) {
            admin.describeCluster().nodes().get();
        }
        assertThat(proxy.cpuTime()).isGreaterThan(cpu);
        // the witness saw every commit with the broker's answer, and the member and generation (or epoch) the client committed as
        List<WitnessedCommit> commits = proxy.witness().commits(ns.group());
        assertThat(commits).isNotEmpty().allSatisfy(w -> {
            assertThat(w.accepted()).as(w.summary()).isTrue();
            assertThat(w.clientId()).isEqualTo("witnessed");
            assertThat(w.held()).isFalse();
            assertThat(w.answers()).containsOnlyKeys(ns.topic() + "-0", ns.topic() + "-1").containsValues("NONE");
        });
        assertThat(commits).extracting(w -> w.memberId() + "@" + w.generation()).containsAnyElementsOf(sentAs);
        assertThat(commits).extracting(WitnessedCommit::seq).isSorted();
        assertThat(commits.get(commits.size() - 1).offsetsText()).isEqualTo(ns.topic() + "-0=25," + ns.topic() + "-1=25");
        WitnessedCommit last = commits.get(commits.size() - 1);
        assertThat(proxy.witness().generation(ns.group(), last.memberId())).as("the generation the wire last saw for the member").hasValue(last.generation());
        assertThat(proxy.witness().sawClient("witnessed")).isTrue();
        assertThat(proxy.witness().sawClient("nobody")).isFalse();
        assertThat(proxy.witness().sawMember(last.memberId())).isTrue();
    }

    @Test
    void largeFetchAnswersPassThroughIntact(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, WireProxy.DEFAULT_RETRY_GRACE);
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        String filler = "x".repeat(1000);
        try (KafkaProducer<String, String> producer = Clients.producer(kafka.bootstrapServers())) {
            for (int i = 0; i < 4000; i++) {
                producer.send(new ProducerRecord<>(ns.topic(), 0, "k" + i, i + ":" + filler));
            }
            producer.flush();
        }

        // answers of up to 1 MB (max.partition.fetch.bytes): sent on while they arrive, the last 64 KB kept for broker names
        List<ConsumerRecord<String, String>> read = Clients.readAll(proxy.bootstrapServers(), new TopicPartition(ns.topic(), 0), 4000,
                Duration.ofSeconds(60));

        assertThat(read).hasSize(4000);
        for (int i = 0; i < read.size(); i++) {
            assertThat(read.get(i).offset()).isEqualTo(i);
            assertThat(read.get(i).value()).isEqualTo(i + ":" + filler);
        }
    }

    /**
     * KIP-951: a broker that lost a partition's leadership names the new leader in its Fetch
     * answer's NodeEndpoints, after every other partition's records. Here that answer is large (1 MB
     * of another partition), so its front goes on as it arrives and the name is rewritten in the
     * kept tail; the client must learn the proxy's port for the new leader, never the broker's.
     */
    @Test
    void aNewLeaderNamedAtTheEndOfALargeFetchAnswerIsTheProxysPort(LocalKafkaCluster cluster, LabNamespace ns) throws Exception {
        WireProxy proxy = WireProxy.start(cluster.bootstrapServers());
        cleanup.add(proxy);
        TopicPartition big = new TopicPartition(ns.topic(), 0);
        TopicPartition moving = new TopicPartition(ns.topic(), 1);
        try (Admin admin = Clients.admin(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(ns.topic(), Map.of(0, List.of(1, 2), 1, List.of(1, 2))))).all().get();
            String filler = "x".repeat(1000);
            try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers())) {
                for (int i = 0; i < 4000; i++) {
                    producer.send(new ProducerRecord<>(ns.topic(), 0, "k" + i, filler));
                    if (i < 10) {
                        producer.send(new ProducerRecord<>(ns.topic(), 1, "k" + i, "m" + i));
                    }
                }
                producer.flush();
            }
            try (KafkaConsumer<String, String> c = consumer(proxy.bootstrapServers(), ns.group(), "classic", Map.of())) {
                c.assign(List.of(big, moving));
                c.seekToBeginning(List.of(big, moving));
                int moved = 0;
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (moved < 10 && System.nanoTime() < deadline) {
                    moved += c.poll(Duration.ofMillis(200)).records(moving).size();
                }
                assertThat(moved).as("the moving partition's first records, while broker 1 leads both").isEqualTo(10);
                c.pause(List.of(big, moving));
                for (int i = 0; i < 5; i++) {
                    c.poll(Duration.ofMillis(100)); // fetches in flight come back and stay buffered
                }

                admin.alterPartitionReassignments(Map.of(moving, Optional.of(new NewPartitionReassignment(List.of(2, 1))))).all().get();
                while (!admin.listPartitionReassignments(Set.of(moving)).reassignments().get().isEmpty()) {
                    Thread.sleep(100);
                }
                admin.electLeaders(ElectionType.PREFERRED, Set.of(moving)).all().get();
                assertThat(cluster.awaitLeaderOtherThan(moving, 1, Duration.ofSeconds(30))).isEqualTo(2);

                c.seek(big, c.position(big)); // drops what is buffered: the next fetch to broker 1 asks for both partitions
                c.resume(List.of(big, moving));
                try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers())) {
                    for (int i = 10; i < 20; i++) {
                        producer.send(new ProducerRecord<>(ns.topic(), 1, "k" + i, "m" + i));
                    }
                    producer.flush();
                }
                List<String> after = new ArrayList<>();
                deadline = System.nanoTime() + 30_000_000_000L;
                while (after.size() < 10 && System.nanoTime() < deadline) {
                    c.poll(Duration.ofMillis(200)).records(moving).forEach(r -> after.add(r.value()));
                }

                assertThat(after).as("read from the new leader, through the proxy").hasSize(10).startsWith("m10");
                assertThat(proxy.inPlaceRewrites()).as("broker 1's 1 MB answer named broker 2 at its end").isPositive();
                Node leader = c.partitionsFor(ns.topic()).stream().filter(p -> p.partition() == 1).findFirst().orElseThrow().leader();
                assertThat(leader.id()).isEqualTo(2);
                assertThat(leader.host() + ":" + leader.port()).isEqualTo("127.0.0.1:" + proxy.nodePorts().get(2))
                        .isNotEqualTo("127.0.0.1:" + cluster.port(2));
            }
        }
    }

    @ParameterizedTest(name = "{0} protocol")
    @ValueSource(strings = {"classic", "consumer"})
    void aCommitHeldOnTheWireIsRejectedByTheBrokerOnceThePartitionMovedToB(String protocol, LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, WireProxy.DEFAULT_RETRY_GRACE);
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 1, 3);
        Barrier barrier = proxy.arm("offset-commit", WirePoint.offsetCommit(ns.group()), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
        // the heartbeats queue behind the held commit on the coordinator connection: the broker drops A after its session (3 s classic, 6 s consumer)
        ChildProcess a = commitLoop(proxy.bootstrapServers(), ns, protocol, "A", 3000);

        Arrival arrival = barrier.awaitArrival(Duration.ofSeconds(60));

        assertThat(arrival.context()).containsEntry("offsets", ns.topic() + "-0=1").containsEntry("group", ns.group())
                .containsKeys("member", "generation", "api.version");
        assertThat(CommitLoopMain.effects(dir.resolve("target.db"), "A")).as("held after its DB commit").isEqualTo(1);
        int brokerPort = port(kafka.bootstrapServers());
        Set<Integer> proxyPorts = new HashSet<>(proxy.nodePorts().values());
        proxyPorts.add(port(proxy.bootstrapServers()));
        assertThat(Sockets.remotePorts(a.pid())).as("A talks only to the proxy").isNotEmpty().doesNotContain(brokerPort)
                .isSubsetOf(proxyPorts);

        commitLoop(proxy.bootstrapServers(), ns, protocol, "B", 3000);
        Groups.awaitSoleOwner(kafka.bootstrapServers(), ns.group(), "B", Duration.ofSeconds(60));
        barrier.release();
        CallOutcome outcome = barrier.awaitOutcome(Duration.ofSeconds(30)).orElseThrow();

        assertThat(outcome.verdict() != CallOutcome.Verdict.NOT_DELIVERED).as(proxy.commitLog().toString()).isTrue();
        assertThat(outcome.verdict() == CallOutcome.Verdict.ACCEPTED).as(outcome.toString()).isFalse();
        assertThat(outcome.exceptionClass()).matches("[A-Z_,]+").isIn("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "STALE_MEMBER_EPOCH",
                "REBALANCE_IN_PROGRESS", "FENCED_MEMBER_EPOCH");
        assertThat(outcome.message()).contains(ns.topic() + "-0");
        a.awaitOutput("commit rejected", Duration.ofSeconds(20));
        assertThat(moves).extracting(BarrierTransition::to).containsExactly(BarrierState.ARMED, BarrierState.HELD, BarrierState.RELEASED);
        assertThat(outcomes).containsExactly(outcome);
        // the witness names the rejecter: the broker, with the same error, for the held member at its generation
        String member = arrival.context().get("member");
        int generation = Integer.parseInt(arrival.context().get("generation"));
        List<WitnessedCommit> held = proxy.witness().commits(ns.group()).stream().filter(WitnessedCommit::held).toList();
        assertThat(held).isNotEmpty().allSatisfy(w -> {
            assertThat(w.memberId()).isEqualTo(member);
            assertThat(w.generation()).isEqualTo(generation);
            assertThat(w.clientId()).isEqualTo("A");
        });
        // the answered one may be a held frame, or the client's resend after the release (its held connections closed): same member, same generation
        List<WitnessedCommit> stale = proxy.witness().commits(ns.group()).stream().filter(w -> w.memberId().equals(member) && w.generation() == generation)
                .toList();
        assertThat(stale).as(stale.toString()).filteredOn(WitnessedCommit::rejected).isNotEmpty()
                .allSatisfy(w -> assertThat(String.join(",", w.errors())).isEqualTo(outcome.exceptionClass()));
        assertThat(stale).noneMatch(WitnessedCommit::accepted);
        assertThat(proxy.witness().await(w -> w.clientId().equals("B") && w.accepted(), Duration.ofSeconds(30))).as("B's commit, stored").isPresent();
    }

    @Test
    void aBriefHoldWithNoRebalanceIsAccepted(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, WireProxy.DEFAULT_RETRY_GRACE);
        Barrier barrier = armedOnTwoRecords(proxy, kafka, ns, "offset-commit", WirePoint.offsetCommit(ns.group()));
        ChildProcess a = commitLoop(proxy.bootstrapServers(), ns, "classic", "A", 10000);
        barrier.awaitArrival(Duration.ofSeconds(60));
        Thread.sleep(1000);
        assertThat(Files.readString(dir.resolve("A.out"))).as("held: commitSync has not returned").doesNotContain("commit accepted");
        barrier.release();

        CallOutcome outcome = barrier.awaitOutcome(Duration.ofSeconds(30)).orElseThrow();

        assertThat(outcome.verdict() == CallOutcome.Verdict.ACCEPTED).isTrue();
        assertThat(outcome.verdict()).isEqualTo(CallOutcome.Verdict.ACCEPTED);
        a.awaitOutput("commit accepted", Duration.ofSeconds(20));
        assertThat(CommitLoopMain.awaitEffects(dir.resolve("target.db"), "A", 2)).as("the one-shot barrier let later commits pass").isEqualTo(2);
    }

    /**
     * A commit that moves no partition (the first one at offset 0, a timer's of positions that did not move, a parallel
     * consumer's while its lowest record is in flight) has no record in flight: it passes, and the first that moves one is held.
     */
    @Test
    void aCommitThatMovesNoPartitionPassesAndTheFirstThatMovesOneIsHeld(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, WireProxy.DEFAULT_RETRY_GRACE);
        Barrier barrier = armedAtOffsetCommit(proxy, kafka, ns);
        TopicPartition p0 = new TopicPartition(ns.topic(), 0);
        try (KafkaConsumer<String, String> c = consumer(proxy.bootstrapServers(), ns.group(), "classic", Map.of())) {
            c.assign(List.of(p0));
            c.commitSync(Map.of(p0, new OffsetAndMetadata(0)), Duration.ofSeconds(20));
            assertThat(barrier.state()).as("offset 0 carries no record").isEqualTo(BarrierState.ARMED);
            c.commitSync(Map.of(p0, new OffsetAndMetadata(0)), Duration.ofSeconds(20));
            assertThat(barrier.state()).as("offset 0 again moves nothing").isEqualTo(BarrierState.ARMED);
            assertThatThrownBy(() -> c.commitSync(Map.of(p0, new OffsetAndMetadata(3)), Duration.ofSeconds(2))).isInstanceOf(TimeoutException.class);
            assertThat(barrier.state()).isEqualTo(BarrierState.HELD);
            assertThat(barrier.arrival().orElseThrow().offsets()).extracting(o -> o.offset()).containsExactly(3L);
            barrier.release(); // before the close, which would wait out its own timeout (30 s) for the held commit
        }
    }

    /**
     * A check that stops a commit's sender (a crash at that commit) sends the commit straight on: an armed barrier would hold it, and
     * a held commit of a client that is gone is dropped with its connection; the broker stores it, as one already sent would arrive.
     */
    @Test
    void aCommitWhoseSenderACheckStoppedGoesToTheBrokerPastAnArmedBarrier(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, WireProxy.DEFAULT_RETRY_GRACE);
        Barrier barrier = armedAtOffsetCommit(proxy, kafka, ns);
        TopicPartition p0 = new TopicPartition(ns.topic(), 0);
        List<String> checked = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (WireProxy.Checking ignored = proxy.checkCommits(ns.group(), c -> {
            checked.add(c.offsetsText());
            return c.offsets().get(0).offset() == 5 ? CommitCheck.After.SENDER_STOPPED : CommitCheck.After.GOES_ON;
        }); KafkaConsumer<String, String> c = consumer(proxy.bootstrapServers(), ns.group(), "classic", Map.of())) {
            c.assign(List.of(p0));
            c.commitSync(Map.of(p0, new OffsetAndMetadata(5)), Duration.ofSeconds(20)); // would be held: it moves the partition

            assertThat(barrier.state()).as("the barrier never saw it").isEqualTo(BarrierState.ARMED);
            assertThatThrownBy(() -> c.commitSync(Map.of(p0, new OffsetAndMetadata(7)), Duration.ofSeconds(2)))
                    .as("a commit whose check let it go on as usual is held").isInstanceOf(TimeoutException.class);
            assertThat(checked).containsExactly(ns.topic() + "-0=5", ns.topic() + "-0=7");
            assertThat(barrier.state()).isEqualTo(BarrierState.HELD);
            assertThat(barrier.arrival().orElseThrow().offsets()).extracting(o -> o.offset()).containsExactly(7L);
            barrier.release(); // before the close, which would wait out its own timeout (30 s) for the held commit
        }
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            assertThat(admin.listConsumerGroupOffsets(ns.group()).partitionsToOffsetAndMetadata().get().get(p0).offset())
                    .as("the broker stored the checked commit, then the released one").isEqualTo(7);
        }
    }

    @Test
    void anAnswerHeldOnTheWireLeavesTheOffsetStoredWhileTheClientHasNotSeenIt(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, WireProxy.DEFAULT_RETRY_GRACE);
        Barrier barrier = armedOnTwoRecords(proxy, kafka, ns, "after-offset-commit", WirePoint.offsetCommitAnswer(ns.group()));
        ChildProcess a = commitLoop(proxy.bootstrapServers(), ns, "classic", "A", 10000);

        Arrival arrival = barrier.awaitArrival(Duration.ofSeconds(60));

        assertThat(arrival.context()).containsEntry("offsets", ns.topic() + "-0=1");
        try (io.replaylab.kafka.KafkaOps ops = io.replaylab.kafka.KafkaOps.connect(kafka.bootstrapServers(), Duration.ofSeconds(10))) {
            assertThat(ops.describe(ns.group()).partitions()).as("the broker stored it").anySatisfy(p -> assertThat(p.committed()).isEqualTo(1));
        }
        Thread.sleep(1000);
        assertThat(Files.readString(dir.resolve("A.out"))).as("the client has not seen the answer").contains("calling commitSync 0@1")
                .doesNotContain("commit accepted");
        barrier.release();

        assertThat(barrier.awaitOutcome(Duration.ofSeconds(30)).orElseThrow().verdict()).isEqualTo(CallOutcome.Verdict.ACCEPTED);
        a.awaitOutput("commit accepted", Duration.ofSeconds(20));
        assertThat(CommitLoopMain.awaitEffects(dir.resolve("target.db"), "A", 2)).as("later answers pass").isEqualTo(2);
        assertThat(proxy.commitLog()).anyMatch(l -> l.contains("its answer is held")).anyMatch(l -> l.contains("its answer goes to the client"));
    }

    /**
     * A stalled connection stalls both ways: what the client sends behind a commit whose answer may be held waits for that answer,
     * and is held with it. Else a heartbeat sent in the commit's round trip reached the coordinator while its client, hearing
     * nothing, gave its member up first and rejoined as a new one (a librdkafka consumer, in about one CI run in four).
     */
    @Test
    void whatAClientSendsBehindACommitWhoseAnswerIsHeldReachesTheBrokerOnlyAfterTheRelease(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, WireProxy.DEFAULT_RETRY_GRACE);
        Barrier barrier = armedOnTwoRecords(proxy, kafka, ns, "after-offset-commit", WirePoint.offsetCommitAnswer(ns.group()));
        TopicPartition p0 = new TopicPartition(ns.topic(), 0);
        List<Long> answered = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(proxy.bootstrapServers(), ns.group(), "classic", Map.of());
             Admin admin = Clients.admin(kafka.bootstrapServers())) {
            c.assign(List.of(p0));
            c.commitSync(Map.of(p0, new OffsetAndMetadata(0)), Duration.ofSeconds(20)); // moves nothing: passes, and finds the coordinator
            c.commitAsync(Map.of(p0, new OffsetAndMetadata(1)), (o, e) -> answered.add(o.get(p0).offset()));
            c.commitAsync(Map.of(p0, new OffsetAndMetadata(2)), (o, e) -> answered.add(o.get(p0).offset())); // sent in the first's round trip
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (barrier.state() == BarrierState.ARMED && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(50));
            }
            assertThat(barrier.state()).isEqualTo(BarrierState.HELD);
            for (int i = 0; i < 10; i++) {
                c.poll(Duration.ofMillis(100)); // time for the second commit to reach the broker, were it forwarded
            }

            assertThat(admin.listConsumerGroupOffsets(ns.group()).partitionsToOffsetAndMetadata().get().get(p0).offset())
                    .as("the broker stored the held commit and not the one behind it").isEqualTo(1);
            assertThat(answered).as("the client has seen no answer").isEmpty();
            barrier.release();
            deadline = System.nanoTime() + 20_000_000_000L;
            while (answered.size() < 2 && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(50));
            }
            assertThat(answered).containsExactly(1L, 2L);
            assertThat(admin.listConsumerGroupOffsets(ns.group()).partitionsToOffsetAndMetadata().get().get(p0).offset())
                    .as("released, the commit behind it went on").isEqualTo(2);
        }
    }

    @Test
    void aCommitWhoseClientGaveUpWhileHeldIsRecordedAsNotDelivered(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, Duration.ofSeconds(1));
        Barrier barrier = armedAtOffsetCommit(proxy, kafka, ns);
        TopicPartition tp = new TopicPartition(ns.topic(), 0);
        KafkaConsumer<String, String> c = consumer(proxy.bootstrapServers(), ns.group(), "classic",
                Map.of(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1500, ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 4000));
        c.assign(List.of(tp));

        assertThatThrownBy(() -> c.commitSync(Map.of(tp, new OffsetAndMetadata(7)), Duration.ofSeconds(4)))
                .isInstanceOf(TimeoutException.class);
        c.close(Duration.ofMillis(500)); // the client is gone: every connection that carried the commit closes
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (count(proxy, "dropped") < count(proxy, "held") && System.nanoTime() < deadline) {
            Thread.sleep(50); // the proxy sees each close a moment after the client made it
        }
        assertThat(count(proxy, "dropped")).as(proxy.commitLog().toString()).isEqualTo(count(proxy, "held")).isGreaterThanOrEqualTo(1);
        assertThat(barrier.state()).isEqualTo(BarrierState.HELD);
        Thread.sleep(1100); // past the 1 s retry grace from the client's last close: the release decides at once
        barrier.release();
        CallOutcome outcome = barrier.awaitOutcome(Duration.ofSeconds(10)).orElseThrow();

        assertThat(outcome.verdict() != CallOutcome.Verdict.NOT_DELIVERED).isFalse();
        assertThat(outcome.verdict()).isEqualTo(CallOutcome.Verdict.NOT_DELIVERED);
        assertThat(outcome.message()).contains("closed the connection")
                .containsPattern("it first closed one [0-9.]+ s into the hold, before the release \\(a client gives a request up after its request.timeout.ms");
        assertThat(observations).anyMatch(o -> o.contains("while its OffsetCommit was held"))
                .anyMatch(o -> o.startsWith("released with no held frame left on a live connection; waiting up to 0.0 s more"));
        assertThat(proxy.witness().commits(ns.group())).as("the witness: held, then never sent").isNotEmpty()
                .allSatisfy(w -> assertThat(w.fate()).isEqualTo(WitnessedCommit.Fate.NOT_SENT))
                .allSatisfy(w -> assertThat(w.held()).isTrue())
                .allSatisfy(w -> assertThat(w.fateText()).startsWith("never sent"));
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            assertThat(admin.listConsumerGroupOffsets(ns.group()).partitionsToOffsetAndMetadata().get())
                    .as("the broker never stored the held offset").doesNotContainKey(tp);
        }
    }

    @Test
    void aFrameThatIsNoKafkaRequestClosesOnlyItsOwnConnection(LocalKafka kafka, LabNamespace ns) throws Exception {
        WireProxy proxy = proxy(kafka, WireProxy.DEFAULT_RETRY_GRACE);
        try (Socket bad = new Socket("127.0.0.1", port(proxy.bootstrapServers()))) {
            DataOutputStream out = new DataOutputStream(bad.getOutputStream());
            out.writeInt(Integer.MAX_VALUE); // larger than any Kafka frame
            out.flush();
            bad.setSoTimeout(5000);
            assertThat(bad.getInputStream().read()).as("the proxy closed that connection").isEqualTo(-1);
        }
        try (Socket garbage = new Socket("127.0.0.1", port(proxy.bootstrapServers()))) {
            DataOutputStream out = new DataOutputStream(garbage.getOutputStream());
            out.writeInt(12);
            out.writeShort(32000); // no such api key
            out.writeShort(0);
            out.writeInt(1);
            out.writeInt(0);
            out.flush();
            garbage.setSoTimeout(5000);
            assertThat(garbage.getInputStream().read()).isEqualTo(-1);
        }
        Clients.createTopic(proxy.bootstrapServers(), ns.topic(), 1); // the proxy still serves everyone else
        Clients.fill(proxy.bootstrapServers(), ns.topic(), 1, 3);
        assertThat(Clients.readAll(proxy.bootstrapServers(), new TopicPartition(ns.topic(), 0), 3, Duration.ofSeconds(20))).hasSize(3);
    }

    @Test
    void anUpstreamThatIsNoAddressIsRefusedByName() {
        assertThatThrownBy(() -> WireProxy.start("localhost")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host:port");
        assertThatThrownBy(() -> WireProxy.start("localhost:notaport")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("localhost:notaport");
    }

    private static long count(WireProxy proxy, String what) {
        return proxy.commitLog().stream().filter(l -> l.contains(": " + what)).count();
    }

    /** A one-partition topic holding two records, and {@code point} armed on the proxy, held in its thread. */
    /** A one-partition topic, empty, and a barrier armed at the group's OffsetCommit (a test commits offsets of its own choosing). */
    private Barrier armedAtOffsetCommit(WireProxy proxy, LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        return proxy.arm("offset-commit", WirePoint.offsetCommit(ns.group()), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
    }

    private Barrier armedOnTwoRecords(WireProxy proxy, LocalKafka kafka, LabNamespace ns, String name, WirePoint point) throws Exception {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 1, 2);
        return proxy.arm(name, point, HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
    }
}
