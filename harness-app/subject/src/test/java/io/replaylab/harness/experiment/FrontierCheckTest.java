package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.replaylab.barrier.CommitOffset;
import io.replaylab.barrier.wire.CommitCheck;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.oracle.SourceMapping;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TargetSpec;
import io.replaylab.oracle.TopicOracle;
import io.replaylab.oracle.RecordParsers;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The live check's arithmetic on a real topic and a real SQLite file: what a commit covers, and a commit nobody can be named for. */
@LocalKafkaTest
class FrontierCheckTest {
    @TempDir
    Path dir;

    @Test
    void aCommitAheadThatNoInstanceCanBeNamedForIsRecordedAndNeverKilledAndTheExperimentIsNotRun(LocalKafka kafka) throws Exception {
        String topic = topicOfFour(kafka);
        ExperimentRecorder e = RunRecorder.start(dir.resolve("run"), "t").experiment(CommitAheadExperiment.NAME, "R11");
        boolean[] killed = {false};
        try (Target target = ledger("'id-0'", "'id-1'")) {
            FrontierCheck check = new FrontierCheck(e, topic, index(kafka, topic), () -> target, List::of);
            check.crashAtFirstAhead("commit-ahead-A", i -> {
                killed[0] = true;
                return null;
            });

            check.check(commit(topic, 2)); // covers id-0, id-1: both applied
            assertThat(check.check(commit(topic, 4))).as("covers id-2, id-3: neither; no sender stopped, so a barrier may hold it")
                    .isEqualTo(CommitCheck.After.GOES_ON);
            check.check(commit(topic, 1)); // back after a reset: covers nothing new

            assertThat(check.tally().covering()).isEqualTo(2);
            assertThat(check.tally().ahead()).singleElement().satisfies(a -> {
                assertThat(a.instance()).contains("an unknown client (client id 'stranger'");
                assertThat(a.uncovered()).extracting(x -> x.id()).containsExactly("id-2", "id-3");
            });
            assertThat(killed[0]).as("a commit no instance is named for is never crashed blindly").isFalse();
            Event summary = e.record(Source.here("test"), new Payload.Note("summary"));
            Outcome o = CommitAheadExperiment.verdict(e, check, summary, CommitCheck.Kind.OFFSET_COMMIT);
            assertThat(o.status()).isEqualTo(Status.NOT_RUN);
            assertThat(o.reason()).contains("1 commit(s) ahead of the database were seen").contains("none of them A's to kill");
        }
    }

    /** The target: a SQLite ledger holding an effect of each of {@code applied} (SQL literals). */
    private Target ledger(String... applied) throws Exception {
        Path db = dir.resolve("target.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("CREATE TABLE payment_ledger (payment_id TEXT, amount_cents INTEGER)");
            s.execute("INSERT INTO payment_ledger VALUES " + java.util.Arrays.stream(applied).map(id -> "(" + id + ", 1)").collect(java.util.stream.Collectors.joining(", ")));
        }
        return Target.open(new TargetSpec("jdbc:sqlite:" + db, null, "SELECT payment_id AS message_id, amount_cents AS amount FROM payment_ledger"));
    }

    /** The oracle's index of the topic's records, as the lab reads them (the key is the id). */
    private static io.replaylab.oracle.SourceIndex index(LocalKafka kafka, String topic) throws Exception {
        return TopicOracle.of(SourceSpec.topic(kafka.bootstrapServers(), topic).parser(RecordParsers.mapped(SourceMapping.of("key", "json:/amountCents", 0))))
                .index();
    }

    /** A topic of one partition holding id-0 .. id-3. */
    private static String topicOfFour(LocalKafka kafka) throws Exception {
        String topic = "frontier-" + UUID.randomUUID();
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 1, (short) 1))).all().get();
        }
        try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", kafka.bootstrapServers()), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 4; i++) {
                p.send(new ProducerRecord<>(topic, 0, "id-" + i, "{\"amountCents\":1}")).get();
            }
        }
        return topic;
    }

    @Test
    void aCommitTheLabCouldNotCheckLeavesItsRangeUncheckedAndThePassOfCommitAheadNotRun(LocalKafka kafka) throws Exception {
        String topic = topicOfFour(kafka);
        ExperimentRecorder e = RunRecorder.start(dir.resolve("run"), "t").experiment(CommitAheadExperiment.NAME, "R11");
        FrontierCheck check = new FrontierCheck(e, topic, index(kafka, topic), () -> {
            throw new IllegalStateException("the target was closed");
        }, List::of);

        check.check(commit(topic, 2));
        check.check(commit(topic, 4));

        assertThat(check.tally().covering()).isZero();
        assertThat(check.tally().unchecked()).hasSize(2).allSatisfy(u -> assertThat(u).contains("the target was closed"));
        Outcome o = CommitAheadExperiment.verdict(e, check, e.record(Source.here("test"), new Payload.Note("summary")),
                CommitCheck.Kind.OFFSET_COMMIT);
        assertThat(o.status()).isEqualTo(Status.NOT_RUN);
        assertThat(o.reason()).contains("2 commit(s) could not be checked").contains("cannot be ruled out");
    }

    @Test
    void aShareAcknowledgementIsCheckedForExactlyTheRecordsItAcceptsAndOneAheadIsListedAsAnAcknowledgement(LocalKafka kafka) throws Exception {
        String topic = topicOfFour(kafka);
        ExperimentRecorder e = RunRecorder.start(dir.resolve("run"), "t").experiment(ShareAckAheadExperiment.NAME, "R11");
        try (Target target = ledger("'id-0'", "'id-2'")) {
            FrontierCheck check = new FrontierCheck(e, topic, index(kafka, topic), () -> target, List::of);

            check.check(acknowledgement(topic, 0, 2)); // id-0 and id-2 applied; id-1 (offset 1, RELEASEd, say) is not among them
            check.check(acknowledgement(topic, 3));    // id-3: no effect yet

            assertThat(check.tally().covering()).isEqualTo(2);
            assertThat(check.tally().ahead()).singleElement().satisfies(a -> {
                assertThat(a.uncovered()).extracting(x -> x.id()).containsExactly("id-3");
                assertThat(a.offset()).isEqualTo(3);
            });
            assertThat(e.events()).extracting(ev -> ev.payload().summary()).anyMatch(t -> t.startsWith("acknowledgement ahead of the database: "
                    + "an unknown client (client id 'stranger'") && t.endsWith("ACCEPTed 1 record(s) of " + topic + "-0 with no effect in the "
                    + "target yet: [id-3 (0@3)]"));
            Outcome o = CommitAheadExperiment.verdict(e, check, e.record(Source.here("test"), new Payload.Note("summary")),
                    CommitCheck.Kind.ACKNOWLEDGEMENT);
            assertThat(o.reason()).startsWith("1 acknowledgement(s) ahead of the database were seen");
        }
    }

    private static CommitCheck.Pending acknowledgement(String topic, long... offsets) {
        return new CommitCheck.Pending(CommitCheck.Kind.ACKNOWLEDGEMENT, "g", "m-1", 1, "stranger", 1, "connection 1",
                java.util.Arrays.stream(offsets).mapToObj(o -> new CommitOffset(topic, 0, o)).toList());
    }

    private static CommitCheck.Pending commit(String topic, long offset) {
        return new CommitCheck.Pending(CommitCheck.Kind.OFFSET_COMMIT, "g", "m-1", 1, "stranger", 1, "connection 1",
                List.of(new CommitOffset(topic, 0, offset)));
    }
}
