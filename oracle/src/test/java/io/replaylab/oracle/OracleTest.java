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
import io.replaylab.kafka.PartitionRef;
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

/**
 * Known-answer tests: real topics, real databases, one discrepancy kind at a time. Here against
 * SQLite files; {@link OraclePostgresTest} runs every one of them again against a real PostgreSQL.
 */
@LocalKafkaTest
class OracleTest {
    @TempDir
    Path dir;

    /** The test's target database, made on first use. */
    private String db;
    private int files;

    record Sent(String id, int partition, long offset, long amount) {
    }

    /** A new empty database: its JDBC URL. */
    String newDatabase() {
        return "jdbc:sqlite:" + dir.resolve("target-" + (++files) + ".db");
    }

    /** A database that does not exist: the oracle must not create it. */
    String absentDatabase() {
        return "jdbc:sqlite:" + dir.resolve("absent.db");
    }

    /** How the oracle reaches {@code url} (PostgreSQL adds a login). */
    TargetSpec spec(String url, String namespace) {
        return new TargetSpec(url, namespace, TargetSpec.REFERENCE_QUERY);
    }

    Connection connect(String url) throws Exception {
        return DriverManager.getConnection(url);
    }

    private String db() {
        if (db == null) {
            db = newDatabase();
        }
        return db;
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

    /** Writes the rows into the test's database; returns its URL. */
    private String ledger(String namespace, List<Sent> rows) throws Exception {
        try (Connection c = connect(db())) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS ledger (namespace TEXT, message_id TEXT, amount BIGINT)");
            }
            insert(c, namespace, rows);
        }
        return db();
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

    private void sql(String url, String sql) throws Exception {
        try (Connection c = connect(url); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private Comparison compare(LocalKafka kafka, LabNamespace ns, String url, String namespace) {
        return compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), spec(url, namespace), null);
    }

    private static Comparison compare(SourceSpec source, TargetSpec target, io.replaylab.kafka.OffsetSnapshot committed) {
        try (Target t = Target.open(target)) {
            return Oracle.of(source, t).compare(committed);
        }
    }

    private static TargetSnapshot snapshot(TargetSpec target, Path file) {
        try (Target t = Target.open(target)) {
            return t.snapshot(file);
        }
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

        RecordParser throwing = (key, value, headers) -> {
            if (new String(value, java.nio.charset.StandardCharsets.UTF_8).startsWith("not")) {
                throw new IllegalArgumentException("boom");
            }
            return RecordParsers.paymentJson().parse(key, value);
        };
        assertThatThrownBy(() -> compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()).parser(throwing),
                spec(db(), ns.inbox(1)), null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the record parser failed on " + ns.topic() + "-0@4")
                .hasMessageContaining("boom");
    }

    @Test
    void aShareGroupsArchivedRecordWithoutEffectIsArchivedOrRejectedNotMissingAndOnlyARejectedPoisonIsTheConsumersWord(LocalKafka kafka,
            LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 6, "not json", "still not json");
        List<Sent> rows = new ArrayList<>(sent);
        rows.remove(4); // released until the broker archived it
        rows.remove(2); // the consumer REJECTed it, a readable payment
        rows.remove(0); // simply missing
        String db = ledger(ns.inbox(1), rows);
        PartitionRef p0 = PartitionRef.of(ns.topic(), 0);
        List<ArchivedRecord> archived = List.of(ArchivedRecord.atLimit(p0, 4, 5), ArchivedRecord.rejected(p0, 2, 1),
                ArchivedRecord.atLimit(p0, 6, 5), ArchivedRecord.rejected(p0, 7, 1), // the malformed ones: released, rejected
                ArchivedRecord.atLimit(p0, 5, 5)); // 5 has its effect
        try (Target t = Target.open(spec(db, ns.inbox(1)))) {
            Oracle oracle = Oracle.of(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), t);
            Comparison c = oracle.compare(null, archived);

            assertThat(c.missing().examples()).containsExactly(ns.prefix() + "-0 (p0@0, amount -250)");
            assertThat(c.archived().count()).isEqualTo(2);
            assertThat(c.archived().examples()).containsExactly(ns.prefix() + "-4 (p0@4) archived after 5 deliveries",
                    "p0@6 (malformed) archived after 5 deliveries");
            assertThat(c.rejected().examples()).as("a readable record REJECTed: its effect is lost all the same")
                    .containsExactly(ns.prefix() + "-2 (p0@2) rejected by the consumer at delivery 1");
            assertThat(c.malformed().count()).as("listed as malformed all the same").isEqualTo(2);
            assertThat(c.reason()).isEqualTo("1 missing, 2 archived, 1 rejected");
            assertThat(c.toChecks()).filteredOn(ch -> ch.name().equals("no record archived with nobody's word for it")
                    || ch.name().equals("no readable record rejected without its effect")).extracting(Check::status)
                    .containsExactly(Status.FAIL, Status.FAIL);

            Comparison plain = oracle.compare();
            assertThat(plain.archived()).as("no archived records given: no archived finding").isNull();
            assertThat(plain.missing().count()).isEqualTo(3);

            ledger(ns.inbox(1), List.of(sent.get(0), sent.get(2), sent.get(4)));
            Comparison meant = oracle.compare(null, List.of(ArchivedRecord.rejected(p0, 7, 1)));
            assertThat(meant.status()).as(meant.reason()).isEqualTo(Status.PASS);
            assertThat(meant.rejected().count()).as("a REJECTed malformed record is the consumer's word on it").isZero();
            assertThatThrownBy(() -> oracle.compare(null, List.of(ArchivedRecord.atLimit(PartitionRef.of("another", 0), 1, 5))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not of the source topic " + ns.topic());
        }
    }

    @Test
    void aCommittedOffsetBeyondAMissingEffectIsAHole(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 10);
        List<Sent> rows = new ArrayList<>(sent);
        rows.remove(3);
        String db = ledger(ns.inbox(1), rows);
        Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 10);
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            Comparison c = compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), spec(db, ns.inbox(1)), ops.describe(ns.group()));

            assertThat(c.holes().count()).isEqualTo(1);
            assertThat(c.holes().examples()).containsExactly(ns.topic() + "-0 committed 10 but offset 3 (" + ns.prefix() + "-3) has no effect");
            assertThat(c.toChecks()).filteredOn(ch -> ch.requirement().equals("R11")).extracting(Check::status).containsExactly(Status.FAIL);

            Offsets.commit(kafka.bootstrapServers(), ns.group(), ns.topic(), 0, 3);
            Comparison below = compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()), spec(db, ns.inbox(1)), ops.describe(ns.group()));
            assertThat(below.holes().count()).as("offset 3 is not below the committed 3: not a hole, still missing").isZero();
            assertThat(below.missing().count()).isEqualTo(1);
        }
    }

    @Test
    void snapshotsAreEqualOrShowTheExactDifference(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 6);
        String db = ledger(ns.inbox(1), sent);
        TargetSpec t = spec(db, ns.inbox(1));
        TargetSnapshot a = snapshot(t, dir.resolve("a.tsv"));
        TargetSnapshot b = snapshot(t, dir.resolve("b.tsv"));

        assertThat(a.rows()).isEqualTo(6);
        assertThat(a.digest()).isEqualTo(b.digest()).hasSize(64);
        assertThat(a.diff(b).equal()).isTrue();
        assertThat(a.equalityCheck(b).status()).isEqualTo(Status.PASS);

        sql(db, "UPDATE ledger SET amount = amount + 1 WHERE message_id = '" + ns.prefix() + "-2'");
        TargetSnapshot c = snapshot(t, dir.resolve("c.tsv"));
        SnapshotDiff d = a.diff(c);
        assertThat(d.equal()).isFalse();
        assertThat(d.onlyBeforeExamples()).containsExactly(ns.prefix() + "-2=-50");
        assertThat(d.onlyAfterExamples()).containsExactly(ns.prefix() + "-2=-49");
        assertThat(a.equalityCheck(c).status()).isEqualTo(Status.FAIL);
    }

    @Test
    void theEffectsOfOneRecordConfirmAHeldConsumersDbCommit(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 3, "not json");
        List<Sent> rows = new ArrayList<>(sent.subList(0, 2));
        rows.add(sent.get(0)); // a second effect of offset 0
        String db = ledger(ns.inbox(1), rows);
        SourceSpec source = SourceSpec.topic(kafka.bootstrapServers(), ns.topic());
        PartitionRef p0 = PartitionRef.of(ns.topic(), 0);
        try (Target t = Target.open(spec(db, ns.inbox(1)))) {
            assertThat(Oracle.of(source, t).effectsAt(p0, 1)).isEqualTo(new Oracle.RecordEffects(p0, 1, ns.prefix() + "-1", 1))
                    .satisfies(r -> assertThat(r.appliedOnce()).isTrue());
            assertThat(Oracle.of(source, t).effectsAt(p0, 0).effects()).isEqualTo(2);
            assertThat(Oracle.of(source, t).effectsAt(p0, 0).appliedOnce()).isFalse();
            assertThat(Oracle.of(source, t).effectsAt(p0, 2).appliedOnce()).as("not applied yet").isFalse();
            assertThat(Oracle.of(source, t).effectsAt(p0, 3)).as("a malformed record has no identity").isEqualTo(new Oracle.RecordEffects(p0, 3, null, 0));
            assertThat(Oracle.of(source.timeout(java.time.Duration.ofSeconds(2)), t).effectsAt(p0, 99).messageId()).as("beyond the end").isNull();
            assertThatThrownBy(() -> Oracle.of(source, t).effectsAt(PartitionRef.of(ns.topic("other"), 0), 1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not of the source topic " + ns.topic());
        }
    }

    @Test
    void theRecordACommitCoversLastIsFoundBelowATransactionalProducersMarkers(LocalKafka kafka, LabNamespace ns) throws Exception {
        io.replaylab.kafka.testing.Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1);
        java.util.Properties p = new java.util.Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("transactional.id", ns.prefix() + "-tx");
        p.put("key.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
        p.put("value.serializer", org.apache.kafka.common.serialization.StringSerializer.class.getName());
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> tx = new org.apache.kafka.clients.producer.KafkaProducer<>(p)) {
            tx.initTransactions();
            for (int i = 0; i < 2; i++) { // two transactions: records at 0 and 2, commit markers at 1 and 3
                tx.beginTransaction();
                tx.send(new org.apache.kafka.clients.producer.ProducerRecord<>(ns.topic(), 0, "k",
                        "{\"id\":\"" + ns.prefix() + "-" + i + "\",\"amount\":" + (10 + i) + "}"));
                tx.commitTransaction();
            }
        }
        String db = ledger(ns.inbox(1), List.of(new Sent(ns.prefix() + "-1", 0, 2, 11)));
        SourceSpec source = SourceSpec.topic(kafka.bootstrapServers(), ns.topic());
        PartitionRef p0 = PartitionRef.of(ns.topic(), 0);
        try (Target t = Target.open(spec(db, ns.inbox(1)))) {
            assertThat(Oracle.of(source.timeout(java.time.Duration.ofSeconds(2)), t).effectsAt(p0, 3).messageId())
                    .as("the offset before a commit of 4 is a marker: no record there").isNull();
            assertThat(Oracle.of(source, t).effectsBefore(p0, 4)).contains(new Oracle.RecordEffects(p0, 2, ns.prefix() + "-1", 1));
            assertThat(Oracle.of(source, t).effectsBefore(p0, 2)).contains(new Oracle.RecordEffects(p0, 0, ns.prefix() + "-0", 0));
            assertThat(Oracle.of(source, t).effectsBefore(p0, 0)).as("nothing below the log start").isEmpty();
        }
    }

    @Test
    void aNewGenerationNamespaceIsJudgedOnItsOwnAndTheOldOneStaysUntouched(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 8);
        String db = ledger(ns.inbox(1), sent);
        TargetSnapshot g1Before = snapshot(spec(db, ns.inbox(1)), dir.resolve("g1a.tsv"));

        assertThat(compare(kafka, ns, db, ns.inbox(2)).missing().count()).as("an old inbox does not count for g2").isEqualTo(8);
        ledger(ns.inbox(2), sent);
        Comparison g2 = compare(kafka, ns, db, ns.inbox(2));

        assertThat(g2.status()).isEqualTo(Status.PASS);
        assertThat(g1Before.diff(snapshot(spec(db, ns.inbox(1)), dir.resolve("g1b.tsv"))).equal()).isTrue();
    }

    @Test
    void aForeignSchemaPlugsInThroughATargetQueryWithTheNamespaceBoundAsAParameter(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 5);
        String db = newDatabase();
        try (Connection c = connect(db)) {
            c.createStatement().execute("CREATE TABLE payments (msg TEXT, cents NUMERIC, ns TEXT)");
            for (Sent s : sent) {
                c.createStatement().execute("INSERT INTO payments VALUES ('" + s.id() + "', " + s.amount() + ", 'lab')");
            }
        }
        String q = "SELECT msg AS message_id, cents AS amount FROM payments WHERE ns = {namespace}";
        TargetSpec t = spec(db, "lab").query(q);
        SourceSpec source = SourceSpec.topic(kafka.bootstrapServers(), ns.topic());

        assertThat(compare(source, t, null).status()).isEqualTo(Status.PASS);
        Comparison injected = compare(source, t.namespace("x' OR '1'='1"), null);
        assertThat(injected.targetEffects()).as("the namespace is a bound value, not SQL").isZero();
        assertThatThrownBy(() -> compare(source, t.namespace(null), null)).as("refused when read, before any row").hasMessageContaining("no namespace was given");
        assertThatThrownBy(() -> compare(source, t.query("SELECT msg AS id, cents AS amount FROM payments"), null))
                .hasMessageContaining("column named 'message_id'");
    }

    @Test
    void floatingPointOrNullValuesAndMissingDatabasesAreRefusedClearly(LocalKafka kafka, LabNamespace ns) throws Exception {
        produce(kafka, ns, 1);
        String db = newDatabase();
        sql(db, "CREATE TABLE ledger (namespace TEXT, message_id TEXT, amount REAL)");
        sql(db, "INSERT INTO ledger VALUES ('n', '" + ns.prefix() + "-0', -250.5)");
        assertThatThrownBy(() -> compare(kafka, ns, db, "n")).hasMessageContaining("floating point")
                .hasMessageContaining("message_id " + ns.prefix() + "-0");
        sql(db, "DELETE FROM ledger");
        sql(db, "INSERT INTO ledger VALUES ('n', NULL, 5)");
        assertThatThrownBy(() -> compare(kafka, ns, db, "n")).hasMessageContaining("a target row has a NULL message_id");
        sql(db, "UPDATE ledger SET message_id = 'x', amount = NULL");
        assertThatThrownBy(() -> compare(kafka, ns, db, "n")).hasMessageContaining("target row with message_id x has a NULL amount");
        assertThatThrownBy(() -> compare(kafka, ns, absentDatabase(), "n")).hasMessageContaining("does not exist");
        assertThatThrownBy(() -> TopicOracle.of(SourceSpec.topic(kafka.bootstrapServers(), ns.topic("absent"))).cut()).hasMessageContaining("does not exist");
    }

    @Test
    void recordsAfterTheCutAreNotJudged(LocalKafka kafka, LabNamespace ns) throws Exception {
        List<Sent> sent = produce(kafka, ns, 4);
        Cut cut = TopicOracle.of(SourceSpec.topic(kafka.bootstrapServers(), ns.topic())).cut();
        try (KafkaProducer<String, String> p = Clients.producer(kafka.bootstrapServers())) {
            p.send(new ProducerRecord<>(ns.topic(), 0, "acc", "{\"id\": \"late\", \"amount\": 1}")).get();
        }
        Comparison c = compare(SourceSpec.topic(kafka.bootstrapServers(), ns.topic()).upTo(cut), spec(ledger("n", sent), "n"), null);

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
