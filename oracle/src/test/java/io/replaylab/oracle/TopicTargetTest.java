package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Properties;
import java.util.Set;

import io.replaylab.evidence.Status;
import io.replaylab.oracle.TopicOracle.Isolation;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.PartitionRef;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** An output topic as the target (consume-transform-produce): what read_committed sees is judged, what only read_uncommitted sees is named. */
@LocalKafkaTest
class TopicTargetTest {
    private static String payment(LabNamespace ns, int i) {
        return "{\"id\": \"" + ns.prefix() + "-" + i + "\", \"account\": \"acc\", \"amount\": " + (i * 100 - 50) + "}";
    }

    private static void source(String bootstrap, LabNamespace ns, int n) throws Exception {
        Clients.createTopic(bootstrap, ns.topic(), 1);
        try (KafkaProducer<String, String> p = Clients.producer(bootstrap)) {
            for (int i = 0; i < n; i++) {
                p.send(new ProducerRecord<>(ns.topic(), 0, "acc", payment(ns, i))).get();
            }
        }
    }

    /** A source of {@code n} payments and the transform's output topic, empty; the output topic's name. */
    private static String sourceAndOutput(String bootstrap, LabNamespace ns, int n) throws Exception {
        source(bootstrap, ns, n);
        return outputTopic(bootstrap, ns);
    }

    /** The transform's output topic, created: one partition. */
    private static String outputTopic(String bootstrap, LabNamespace ns) throws Exception {
        String out = ns.topic("output");
        Clients.createTopic(bootstrap, out, 1);
        return out;
    }

    private static KafkaProducer<String, String> transactional(String bootstrap, String id) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        producer.initTransactions();
        return producer;
    }

    private static void inTransaction(KafkaProducer<String, String> p, String topic, boolean commit, String... values) {
        p.beginTransaction();
        for (String v : values) {
            p.send(new ProducerRecord<>(topic, 0, "acc", v));
        }
        if (commit) {
            p.commitTransaction();
        } else {
            p.flush(); // written to the log, then aborted (an abort drops what was never sent)
            p.abortTransaction();
        }
    }

    @Test
    void everyRecordExactlyOnceUnderReadCommittedPassesAndAnAbortedTransactionDoesNotCount(LocalKafka kafka, LabNamespace ns) throws Exception {
        String b = kafka.bootstrapServers();
        String out = sourceAndOutput(b, ns, 4);
        try (KafkaProducer<String, String> p = transactional(b, ns.prefix() + "-tx")) {
            inTransaction(p, out, true, payment(ns, 0), payment(ns, 1));
            inTransaction(p, out, false, payment(ns, 2)); // a zombie's transaction, aborted: invisible to read_committed
            inTransaction(p, out, true, payment(ns, 2), payment(ns, 3));
        }

        Comparison c = TopicOracle.of(SourceSpec.topic(b, ns.topic())).compare(SourceSpec.topic(b, out), null);

        assertThat(c.status()).as(c.reason()).isEqualTo(Status.PASS);
        assertThat(c.targetEffects()).isEqualTo(4);
        assertThat(TopicOracle.of(SourceSpec.topic(b, out)).notCommitted()).containsExactly(ns.prefix() + "-2");
        assertThat(TopicOracle.of(SourceSpec.topic(b, out)).positionsOf(ns.prefix() + "-2")).as("the aborted copy is not read_committed")
                .containsExactly(new TopicOracle.Position(PartitionRef.of(out, 0), 5));
        assertThat(TopicOracle.of(SourceSpec.topic(b, ns.topic())).positionsOf(ns.prefix() + "-3")).containsExactly(new TopicOracle.Position(PartitionRef.of(ns.topic(), 0), 3));
        assertThat(TopicOracle.of(SourceSpec.topic(b, ns.topic())).positionsOf("nowhere")).isEmpty();
        assertThat(TopicOracle.of(SourceSpec.topic(b, out)).count(Isolation.READ_UNCOMMITTED, Set.of(ns.prefix() + "-2")))
                .isEqualTo(new TopicOracle.TopicCount(Isolation.READ_UNCOMMITTED, 5, Map.of(ns.prefix() + "-2", 2L)));
        assertThat(TopicOracle.of(SourceSpec.topic(b, out)).count(Isolation.READ_COMMITTED, Set.of(ns.prefix() + "-2")))
                .isEqualTo(new TopicOracle.TopicCount(Isolation.READ_COMMITTED, 4, Map.of(ns.prefix() + "-2", 1L)));
    }

    @Test
    void aSecondCommittedCopyIsADuplicateAndAMissingOneIsMissing(LocalKafka kafka, LabNamespace ns) throws Exception {
        String b = kafka.bootstrapServers();
        String out = sourceAndOutput(b, ns, 3);
        try (KafkaProducer<String, String> zombie = transactional(b, ns.prefix() + "-a");
             KafkaProducer<String, String> successor = transactional(b, ns.prefix() + "-b")) {
            inTransaction(zombie, out, true, payment(ns, 0)); // the zombie's commit went through after all
            inTransaction(successor, out, true, payment(ns, 0), payment(ns, 1)); // record 2 never written
        }

        Comparison c = TopicOracle.of(SourceSpec.topic(b, ns.topic())).compare(SourceSpec.topic(b, out), null);

        assertThat(c.status()).isEqualTo(Status.FAIL);
        assertThat(c.duplicated().count()).isEqualTo(1);
        assertThat(c.missing().count()).isEqualTo(1);
        assertThat(c.unexpected().count()).isZero();
        assertThat(c.namespace()).isEqualTo("topic " + out + " (read_committed)");
        assertThat(TopicOracle.of(SourceSpec.topic(b, out)).notCommitted()).isEmpty();
    }

    @Test
    void anOpenTransactionIsSeenOnlyByReadUncommittedAndHoldsBackReadCommitted(LocalKafka kafka, LabNamespace ns) throws Exception {
        String b = kafka.bootstrapServers();
        String out = outputTopic(b, ns);
        try (KafkaProducer<String, String> p = transactional(b, ns.prefix() + "-open")) {
            p.beginTransaction();
            p.send(new ProducerRecord<>(out, 0, "acc", payment(ns, 7))).get();
            // still open: read_committed stops at the last stable offset, before it
            assertThat(TopicOracle.of(SourceSpec.topic(b, out)).notCommitted()).containsExactly(ns.prefix() + "-7");
            assertThat(TopicOracle.of(SourceSpec.topic(b, out)).count(Isolation.READ_COMMITTED, Set.of()).records()).isZero();
            p.abortTransaction();
        }
    }

    @Test
    void anOutputRecordThatIsNotAnEffectFailsTheComparisonNamingIt(LocalKafka kafka, LabNamespace ns) throws Exception {
        String b = kafka.bootstrapServers();
        String out = sourceAndOutput(b, ns, 1);
        try (KafkaProducer<String, String> p = Clients.producer(b)) {
            p.send(new ProducerRecord<>(out, 0, "acc", "not json")).get();
        }
        assertThatThrownBy(() -> TopicOracle.of(SourceSpec.topic(b, ns.topic())).compare(SourceSpec.topic(b, out), null))
                .hasMessageContaining("the output record " + out + "-0@0 cannot be read as an effect");
    }
}
