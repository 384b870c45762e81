package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.replaylab.evidence.Check;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Offsets;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Known-answer tests: real topics, real SQLite files, one discrepancy kind at a time. */
@LocalKafkaTest
class OracleTest {
    @TempDir
    Path dir;

    record Sent(String id, int partition, long offset, long amount) {
    }

    /** Produces {@code n} payments to partition 0 ({@code id = ns-i}, amount = i*100 - 250) plus optional raw values. */
    private List<Sent> produce(LocalKafka kafka, LabNamespace ns, int n, String... raw) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        List<Sent> sent = new ArrayList<>();
        try (KafkaProducer<String, String> p = Clients.producer(kafka.bootstrapServers())) {
            for (int i = 0; i < n; i++) {
                long amount = i * 100L - 250;
                String id = ns.prefix() + "-" + i;
                var md = p.send(new ProducerRecord<>(ns.topic(), 0, "acc", "{\"id\": \"" + id + "\", \"account\": \"acc\", \"amount\": " + amount + "}")).get();
                sent.add(new Sent(id, 0, md.offset(), amount));
            }
            for (String r : raw) {
                p.send(new ProducerRecord<>(ns.topic(), 0, "acc", r)).get();
            }
        }
        return sent;
    }

    private Path ledger(String namespace, List<Sent> rows) throws Exception {
        Path db = dir.resolve("target.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS ledger (namespace TEXT, message_id TEXT, amount INTEGER)");
            }
            insert(c, namespace, rows);
        }
        return db;
    }

    private static void insert(Connection c, String namespace, List<Sent> rows) throws Exception {
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO ledger VALUES (?,?,?)")) {
            for (Sent r : rows) {
                ins.setString(1, namespace);
                ins.setString(2, r.id());
                ins.setLong(3, r.amount());
                ins.executeUpdate();
            }
        }
    }

    private void sql(Path db, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private Comparison compare(LocalKafka kafka, LabNamespace ns, Path db, String namespace) {
        return Oracle.compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), TargetSpec.sqlite(db, namespace));
    }

    @Test
    void identicalSourceAndTargetPass(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = new ArrayList<>(produce(kafka, ns, 20, "{\"id\": \"zahlung-ä€😀\", \"amount\": -5}")); // escapes nothing, not ASCII
        sent.add(new Sent("zahlung-ä€😀", 0, 20, -5));
        Comparison c = compare(kafka, ns, ledger(ns.inbox(1), sent), ns.inbox(1));

        assertThat(c.status()).as(c.reason()).isEqualTo(Status.PASS);
        assertThat(c.sourceRecords()).isEqualTo(21);
        assertThat(c.targetEffects()).isEqualTo(21);
        assertThat(c.findings()).allSatisfy(f -> assertThat(f.count()).isZero());
        assertThat(c.toChecks()).extracting(Check::status).containsOnly(Status.PASS);
    }

    @Test
    void missingEffectsAreCountedWithTheirCoordinates(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 10);
        Comparison c = compare(kafka, ns, ledger(ns.inbox(1), sent.subList(0, 8)), ns.inbox(1));

        assertThat(c.status()).isEqualTo(Status.FAIL);
        assertThat(c.missing().count()).isEqualTo(2);
        assertThat(c.missing().examples()).containsExactly(ns.prefix() + "-8 (p0@8, amount 550)", ns.prefix() + "-9 (p0@9, amount 650)");
        assertThat(c.reason()).isEqualTo("2 missing");
    }

    @Test
    void aSecondEffectIsCaughtAsDuplicated(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 5);
        List<Sent> rows = new ArrayList<>(sent);
        rows.add(sent.get(3));
        Comparison c = compare(kafka, ns, ledger(ns.inbox(1), rows), ns.inbox(1));

        assertThat(c.status()).isEqualTo(Status.FAIL);
        assertThat(c.duplicated().count()).isEqualTo(1);
        assertThat(c.duplicated().examples()).containsExactly(ns.prefix() + "-3 x2");
        assertThat(c.toChecks()).filteredOn(ch -> ch.name().equals("no second effect")).extracting(Check::status).containsExactly(Status.FAIL);
    }

    @Test
    void anEffectWithNoSourceRecordIsUnexpectedAndAWrongAmountIsMismatched(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 5);
        List<Sent> rows = new ArrayList<>(sent);
        rows.set(1, new Sent(sent.get(1).id(), 0, 1, sent.get(1).amount() + 1));
        rows.add(new Sent("ghost-1", 0, 0, 7));
        Comparison c = compare(kafka, ns, ledger(ns.inbox(1), rows), ns.inbox(1));

        assertThat(c.unexpected().count()).isEqualTo(1);
        assertThat(c.unexpected().examples()).containsExactly("ghost-1");
        assertThat(c.mismatched().count()).isEqualTo(1);
        assertThat(c.mismatched().examples()).containsExactly(ns.prefix() + "-1 source -150 target -149");
        assertThat(c.missing().count()).isZero();
    }

    @Test
    void malformedSourceRecordsAreListedNeverDropped(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 4, "not json", "{\"id\": \"x\", \"amount\": 1.5}", "{\"amount\": 3}");
        Comparison c = compare(kafka, ns, ledger(ns.inbox(1), sent), ns.inbox(1));

        assertThat(c.status()).isEqualTo(Status.PASS);
        assertThat(c.malformed().count()).isEqualTo(3);
        assertThat(c.malformed().examples()).containsExactly("p0@4: not JSON", "p0@5: non-integer amount: 1.5", "p0@6: missing id");
        assertThat(c.reason()).contains("3 malformed source record(s) listed");

        RecordParser throwing = (key, value) -> {
            if (value.startsWith("not")) {
                throw new IllegalArgumentException("boom");
            }
            return RecordParsers.paymentJson().parse(key, value);
        };
        assertThatThrownBy(() -> Oracle.compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()).parser(throwing),
                TargetSpec.sqlite(dir.resolve("target.db"), ns.inbox(1))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the record parser failed on " + ns.topic() + "-0@4")
                .hasMessageContaining("boom");
    }

    @Test
    void aCommittedOffsetBeyondAMissingEffectIsAHole(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 10);
        List<Sent> rows = new ArrayList<>(sent);
        rows.remove(3);
        Path db = ledger(ns.inbox(1), rows);
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 10);
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            Comparison c = Oracle.compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), TargetSpec.sqlite(db, ns.inbox(1)),
                    ops.describe(ns.group()));

            assertThat(c.holes().count()).isEqualTo(1);
            assertThat(c.holes().examples()).containsExactly(ns.topic() + "-0 committed 10 but offset 3 (" + ns.prefix() + "-3) has no effect");
            assertThat(c.toChecks()).filteredOn(ch -> ch.requirement().equals("R11")).extracting(Check::status).containsExactly(Status.FAIL);

            Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 3);
            Comparison below = Oracle.compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), TargetSpec.sqlite(db, ns.inbox(1)),
                    ops.describe(ns.group()));
            assertThat(below.holes().count()).as("offset 3 is not below the committed 3: not a hole, still missing").isZero();
            assertThat(below.missing().count()).isEqualTo(1);
        }
    }

    @Test
    void snapshotsAreEqualOrShowTheExactDifference(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 6);
        Path db = ledger(ns.inbox(1), sent);
        TargetSpec t = TargetSpec.sqlite(db, ns.inbox(1));
        TargetSnapshot a = Oracle.snapshot(t, dir.resolve("a.tsv"));
        TargetSnapshot b = Oracle.snapshot(t, dir.resolve("b.tsv"));

        assertThat(a.rows()).isEqualTo(6);
        assertThat(a.digest()).isEqualTo(b.digest()).hasSize(64);
        assertThat(a.diff(b).equal()).isTrue();
        assertThat(a.equalityCheck(b).status()).isEqualTo(Status.PASS);

        sql(db, "UPDATE ledger SET amount = amount + 1 WHERE message_id = '" + ns.prefix() + "-2'");
        TargetSnapshot c = Oracle.snapshot(t, dir.resolve("c.tsv"));
        SnapshotDiff d = a.diff(c);
        assertThat(d.equal()).isFalse();
        assertThat(d.onlyBeforeExamples()).containsExactly(ns.prefix() + "-2=-50");
        assertThat(d.onlyAfterExamples()).containsExactly(ns.prefix() + "-2=-49");
        assertThat(a.equalityCheck(c).status()).isEqualTo(Status.FAIL);
    }

    @Test
    void aNewGenerationNamespaceIsJudgedOnItsOwnAndTheOldOneStaysUntouched(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 8);
        Path db = ledger(ns.inbox(1), sent);
        TargetSnapshot g1Before = Oracle.snapshot(TargetSpec.sqlite(db, ns.inbox(1)), dir.resolve("g1a.tsv"));

        assertThat(compare(kafka, ns, db, ns.inbox(2)).missing().count()).as("an old inbox does not count for g2").isEqualTo(8);
        ledger(ns.inbox(2), sent);
        Comparison g2 = compare(kafka, ns, db, ns.inbox(2));

        assertThat(g2.status()).isEqualTo(Status.PASS);
        assertThat(g1Before.diff(Oracle.snapshot(TargetSpec.sqlite(db, ns.inbox(1)), dir.resolve("g1b.tsv"))).equal()).isTrue();
    }

    @Test
    void aForeignSchemaPlugsInThroughATargetQueryWithTheNamespaceBoundAsAParameter(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 5);
        Path db = dir.resolve("foreign.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            c.createStatement().execute("CREATE TABLE payments (msg TEXT, cents NUMERIC, ns TEXT)");
            for (Sent s : sent) {
                c.createStatement().execute("INSERT INTO payments VALUES ('" + s.id() + "', " + s.amount() + ", 'lab')");
            }
        }
        String q = "SELECT msg AS message_id, cents AS amount FROM payments WHERE ns = {namespace}";
        TargetSpec t = new TargetSpec("jdbc:sqlite:" + db, "lab", q);

        assertThat(Oracle.compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), t).status()).isEqualTo(Status.PASS);
        Comparison injected = Oracle.compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), t.namespace("x' OR '1'='1"));
        assertThat(injected.targetEffects()).as("the namespace is a bound value, not SQL").isZero();
        assertThatThrownBy(() -> new TargetSpec("jdbc:sqlite:" + db, null, q)).hasMessageContaining("no namespace was given");
        assertThatThrownBy(() -> Oracle.compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()),
                new TargetSpec("jdbc:sqlite:" + db, null, "SELECT msg AS id, cents AS amount FROM payments")))
                .hasMessageContaining("column named 'message_id'");
    }

    @Test
    void floatingPointOrNullValuesAndMissingDatabasesAreRefusedClearly(LocalKafka kafka, LabNamespace ns) throws Exception {
        produce(kafka, ns, 1);
        Path db = dir.resolve("float.db");
        sql(db, "CREATE TABLE ledger (namespace TEXT, message_id TEXT, amount REAL)");
        sql(db, "INSERT INTO ledger VALUES ('n', '" + ns.prefix() + "-0', -250.5)");
        assertThatThrownBy(() -> compare(kafka, ns, db, "n")).hasMessageContaining("floating point")
                .hasMessageContaining("message_id " + ns.prefix() + "-0");
        sql(db, "DELETE FROM ledger");
        sql(db, "INSERT INTO ledger VALUES ('n', NULL, 5)");
        assertThatThrownBy(() -> compare(kafka, ns, db, "n")).hasMessageContaining("a target row has a NULL message_id");
        sql(db, "UPDATE ledger SET message_id = 'x', amount = NULL");
        assertThatThrownBy(() -> compare(kafka, ns, db, "n")).hasMessageContaining("target row with message_id x has a NULL amount");
        assertThatThrownBy(() -> compare(kafka, ns, dir.resolve("absent.db"), "n")).hasMessageContaining("does not exist");
        assertThatThrownBy(() -> Oracle.cut(kafka.bootstrapServers(), ns.topic("absent"))).hasMessageContaining("does not exist");
    }

    @Test
    void recordsAfterTheCutAreNotJudged(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 4);
        Cut cut = Oracle.cut(kafka.bootstrapServers(), ns.topic());
        try (KafkaProducer<String, String> p = Clients.producer(kafka.bootstrapServers())) {
            p.send(new ProducerRecord<>(ns.topic(), 0, "acc", "{\"id\": \"late\", \"amount\": 1}")).get();
        }
        Comparison c = Oracle.compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()).upTo(cut), TargetSpec.sqlite(ledger("n", sent), "n"));

        assertThat(c.status()).isEqualTo(Status.PASS);
        assertThat(c.sourceRecords()).isEqualTo(4);
        assertThat(c.cut().total()).isEqualTo(4);
        // the evidence names the cut (R13)
        assertThat(c.toPayload().cut()).containsExactly(java.util.Map.entry(ns.topic() + "-0", 4L));
        assertThat(c.toPayload().cutAt()).isEqualTo(cut.takenAt());
        assertThat(c.toPayload().summary()).contains("up to the cut {" + ns.topic() + "-0=4}");
    }

    /** Each discrepancy kind, alone, makes the verdict FAIL with every other count zero (none rides on another). */
    @ParameterizedTest(name = "{0} alone")
    @ValueSource(strings = {"missing", "duplicated", "unexpected", "mismatched"})
    void eachDiscrepancyAloneFailsTheVerdict(String kind, LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 6);
        List<Sent> rows = new ArrayList<>(sent);
        switch (kind) {
            case "missing" -> rows.remove(2);
            case "duplicated" -> rows.add(sent.get(2));
            case "unexpected" -> rows.add(new Sent("ghost", 0, -1, 7));
            default -> rows.set(2, new Sent(sent.get(2).id(), 0, 2, sent.get(2).amount() + 1));
        }
        Comparison c = compare(kafka, ns, ledger(ns.inbox(1), rows), ns.inbox(1));

        assertThat(c.status()).as(c.reason()).isEqualTo(Status.FAIL);
        assertThat(c.reason()).isEqualTo("1 " + kind);
        assertThat(c.findings()).filteredOn(f -> !f.kind().equals(kind)).allSatisfy(f -> assertThat(f.count()).as(f.kind()).isZero());
        assertThat(c.findings()).filteredOn(f -> f.kind().equals(kind)).singleElement().satisfies(f -> assertThat(f.count()).isEqualTo(1));
        assertThat(c.toChecks()).extracting(Check::status).contains(Status.FAIL);
    }

    @Test
    void malformedRecordsAloneAreListedAndDoNotFail(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 4, "not json");
        Comparison c = compare(kafka, ns, ledger(ns.inbox(1), sent), ns.inbox(1));

        assertThat(c.status()).as(c.reason()).isEqualTo(Status.PASS);
        assertThat(c.malformed().count()).isEqualTo(1);
        assertThat(c.findings()).filteredOn(f -> !f.kind().equals("malformed")).allSatisfy(f -> assertThat(f.count()).as(f.kind()).isZero());
        assertThat(c.reason()).endsWith("1 malformed source record(s) listed");
    }
}
