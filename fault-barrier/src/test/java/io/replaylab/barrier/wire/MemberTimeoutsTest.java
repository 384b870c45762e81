package io.replaylab.barrier.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A member's own timeouts as its client sends them, and its heartbeats withheld so that the
 * coordinator drops it after its session timeout while its client's threads go on: real Java
 * clients of both group protocols, a real broker.
 */
@LocalKafkaTest
class MemberTimeoutsTest {

    @Test
    void aClassicMembersTimeoutsAreReadFromItsJoinGroupAndWithheldHeartbeatsGetItDroppedLongBeforeItsPollInterval(LocalKafka kafka, LabNamespace ns)
            throws Exception {
        heldMemberIsDroppedAtItsSessionTimeout(kafka, ns, "classic");
    }

    @Test
    void aConsumerProtocolMembersPollIntervalIsReadFromItsHeartbeatAndWithheldHeartbeatsGetItFencedByTheBrokersSessionTimeout(LocalKafka kafka,
            LabNamespace ns) throws Exception {
        heldMemberIsDroppedAtItsSessionTimeout(kafka, ns, "consumer");
    }

    /**
     * The member stops polling (a held processing thread) with max.poll.interval.ms at the client's
     * default of 300 s, and its heartbeats are withheld: the coordinator drops it after its session
     * timeout (3 s classic, the lab broker's 6 s consumer protocol), while the client got an answer
     * to every heartbeat it sent.
     */
    private static void heldMemberIsDroppedAtItsSessionTimeout(LocalKafka kafka, LabNamespace ns, String protocol) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        try (WireProxy proxy = WireProxy.start(kafka.bootstrapServers());
                KafkaConsumer<String, String> a = consumer(proxy, ns.group(), protocol);
                Admin admin = Clients.admin(kafka.bootstrapServers())) {
            a.subscribe(List.of(ns.topic()));
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (a.assignment().isEmpty() && System.nanoTime() < deadline) {
                a.poll(Duration.ofMillis(100));
            }
            assertThat(a.assignment()).as("A joined").isNotEmpty();
            String member = a.groupMetadata().memberId();

            Optional<MemberTimeouts> seen = proxy.witness().timeouts(ns.group(), member);
            assertThat(seen).as("the timeouts A's client sent").hasValueSatisfying(t -> {
                assertThat(t.clientId()).isEqualTo("A-" + protocol);
                assertThat(t.rebalance()).as("max.poll.interval.ms, the client's default").isEqualTo(Duration.ofMinutes(5));
                if (protocol.equals("classic")) {
                    assertThat(t.protocol()).isEqualTo(MemberTimeouts.Protocol.CLASSIC);
                    assertThat(t.session()).contains(Duration.ofSeconds(3));
                    assertThat(t.request()).startsWith("JoinGroup v");
                    assertThat(t.summary()).startsWith("classic protocol, session.timeout.ms 3000, max.poll.interval.ms 300000 (JoinGroup v");
                } else {
                    assertThat(t.protocol()).isEqualTo(MemberTimeouts.Protocol.CONSUMER);
                    assertThat(t.session()).as("the broker's, not the member's").isEmpty();
                    assertThat(t.request()).startsWith("ConsumerGroupHeartbeat v");
                }
            });

            WireFault.Api api = protocol.equals("classic") ? WireFault.Api.HEARTBEAT : WireFault.Api.CONSUMER_GROUP_HEARTBEAT;
            ArmedFault withheld = proxy.inject(new WireFault(WireFault.Target.of(api).group(ns.group()).member(member).every(),
                    new WireFault.Effect.Withhold()));
            // A polls no more, as a held thread: only its heartbeat thread talks to the coordinator now
            long heldAt = System.nanoTime();
            Optional<ConsumerGroupDescription> empty = Optional.empty();
            while (System.nanoTime() - heldAt < 60_000_000_000L) {
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(ns.group())).describedGroups().get(ns.group()).get();
                if (d.members().stream().noneMatch(m -> m.consumerId().equals(member))) {
                    empty = Optional.of(d);
                    break;
                }
                Thread.sleep(200);
            }
            Duration dropped = Duration.ofNanos(System.nanoTime() - heldAt);
            withheld.disarm();

            Duration session = protocol.equals("classic") ? Duration.ofSeconds(3) : Duration.ofSeconds(6); // the lab broker's, consumer protocol
            assertThat(empty).as("the coordinator dropped A's member").isPresent();
            assertThat(dropped).as("dropped at its session timeout (and a heartbeat interval), not after its 300 s poll interval")
                    .isLessThan(session.plusSeconds(15));
            assertThat(withheld.firings()).as("A's heartbeats were answered by the proxy")
                    .anySatisfy(f -> assertThat(f.done()).startsWith("answered as a live member's without forwarding it"));
        }
    }

    @Test
    void withholdAimsAtHeartbeatsOnly() {
        assertThat(WireFault.parse("heartbeat:withhold@every").effect()).isEqualTo(new WireFault.Effect.Withhold());
        assertThat(WireFault.parse("consumer-group-heartbeat:withhold").at("g", null).meaning()).isEqualTo("the first ConsumerGroupHeartbeat of group g: "
                + "kept from the coordinator and answered as a live member's by the proxy (the coordinator drops the member after its session timeout)");
        assertThat(new WireFault(WireFault.Target.of(WireFault.Api.HEARTBEAT).member("m-1"), new WireFault.Effect.Withhold()).meaning())
                .contains("of member m-1");
        assertThatThrownBy(() -> WireFault.parse("offset-commit:withhold")).hasMessageContaining(
                "withhold answers a heartbeat as the coordinator answers a live member: its target must be heartbeat or consumer-group-heartbeat, was offset-commit");
    }

    private static KafkaConsumer<String, String> consumer(WireProxy proxy, String group, String protocol) {
        Properties p = new Properties();
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "A-" + protocol);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        if (protocol.equals("classic")) {
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "3000");
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        }
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }
}
