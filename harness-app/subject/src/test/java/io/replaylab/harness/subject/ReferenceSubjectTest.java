package io.replaylab.harness.subject;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaylab.evidence.Json;
import io.replaylab.kafka.ExecuteResetOptions;
import io.replaylab.kafka.GroupState;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.kafka.ResetScope;
import io.replaylab.kafka.ResetTargets;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.broker.LocalKafkaConfig;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.oracle.testing.LocalPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reference producer and consumer as separate processes, against the real broker and real SQLite files. */
@LocalKafkaTest
class ReferenceSubjectTest {
    @TempDir
    Path dir;

    private JsonNode produce(LocalKafka kafka, LabNamespace ns, int count, int partitions, int malformed) throws Exception {
        return Launch.produce(dir, kafka, ns, count, partitions, malformed);
    }

    private Process consume(LocalKafka kafka, LabNamespace ns, String instance, String group, String inbox, String idle)
            throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("consume", "--bootstrap-server", kafka.bootstrapServers(),
                "--topic", ns.topic(), "--group", group, "--db", dir.resolve("target.db").toString(), "--namespace", inbox,
                "--instance-id", instance, "--assignment-log", dir.resolve(instance + ".assignments.jsonl").toString(),
                "--processing-log", dir.resolve(instance + ".processing.jsonl").toString()));
        if (idle != null) {
            args.addAll(List.of("--until-idle", idle));
        }
        return Launch.subject(dir, instance, args.toArray(String[]::new));
    }

    /** The rows in the ledger of {@code inbox} so far; 0 while a writer keeps the file busy. */
    private long applied(String inbox) {
        try {
            return Db.count(dir.resolve("target.db"), "SELECT count(*) FROM ledger WHERE namespace = ?", inbox);
        } catch (java.sql.SQLException busy) {
            return 0;
        }
    }

    private long lines(String instance, String result) throws Exception {
        return Files.readAllLines(dir.resolve(instance + ".processing.jsonl")).stream()
                .filter(l -> l.contains("\"result\":\"" + result + "\"")).count();
    }

    @Test
    void consumingToTheEndAppliesEveryRecordOnceAndBalancesEqualTheManifest(LocalKafka kafka, LabNamespace ns) throws Exception {
        JsonNode manifest = produce(kafka, ns, 300, 3, 0);
        String inbox = ns.inbox(1);

        assertThat(Launch.await(consume(kafka, ns, "A", ns.group(), inbox, "PT3S"), 90)).isZero();

        Path db = dir.resolve("target.db");
        assertThat(Db.count(db, "SELECT count(*) FROM inbox WHERE namespace = ?", inbox)).isEqualTo(300);
        assertThat(Db.count(db, "SELECT count(*) FROM ledger WHERE namespace = ?", inbox)).isEqualTo(300);
        Map<String, Long> expected = Json.mapper().convertValue(manifest.get("accountSums"),
                new com.fasterxml.jackson.core.type.TypeReference<Map<String, Long>>() { });
        assertThat(Db.balances(db, inbox)).isEqualTo(expected);
        assertThat(lines("A", "applied")).isEqualTo(300);
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            assertThat(ops.describe(ns.group()).totalLag()).isZero();
        }
    }

    @Test
    void intoPostgresEveryRecordIsAppliedOnceBadOnesAreQuarantinedAndARedeliveryAddsNothing(LocalKafka kafka, LabNamespace ns) throws Exception {
        JsonNode manifest = produce(kafka, ns, 120, 3, 4);
        LocalPostgres pg = LocalPostgres.shared();
        String url = pg.createDatabase();
        Map<String, String> env = Map.of(io.replaylab.harness.lab.Subject.TARGET_PASSWORD_ENV, LocalPostgres.PASSWORD);
        for (String group : List.of(ns.group(), ns.group("again"))) { // a second group redelivers every record to the same inbox
            Process p = Launch.start(dir, "pg-" + group, env, ReferenceSubject.class.getName(), "consume", "--bootstrap-server",
                    kafka.bootstrapServers(), "--topic", ns.topic(), "--group", group, "--db", url + "?user=" + LocalPostgres.USER,
                    "--namespace", ns.inbox(1), "--instance-id", "A", "--until-idle", "PT3S");
            assertThat(Launch.await(p, 90)).as(Files.readString(dir.resolve("pg-" + group + ".err"))).isZero();
        }

        Map<String, Long> balances = new java.util.TreeMap<>();
        try (var c = pg.connect(url); var s = c.createStatement()) {
            assertThat(count(s, "SELECT count(*) FROM inbox")).isEqualTo(120);
            assertThat(count(s, "SELECT count(*) FROM ledger")).as("the redelivery found every inbox row: no second effect").isEqualTo(120);
            assertThat(count(s, "SELECT count(*) FROM quarantine")).isEqualTo(4);
            try (var rs = s.executeQuery("SELECT account, balance FROM balance")) {
                while (rs.next()) {
                    balances.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        assertThat(balances).isEqualTo(Json.mapper().convertValue(manifest.get("accountSums"),
                new com.fasterxml.jackson.core.type.TypeReference<Map<String, Long>>() { }));

        Process refused = Launch.start(dir, "pg-refused", Map.of(io.replaylab.harness.lab.Subject.TARGET_PASSWORD_ENV, "wrong-pw-77"), ReferenceSubject.class.getName(),
                "consume", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(), "--group", ns.group("x"),
                "--db", url + "?user=" + LocalPostgres.USER, "--namespace", ns.inbox(1), "--instance-id", "B");
        assertThat(Launch.await(refused, 60)).isEqualTo(1);
        assertThat(Files.readString(dir.resolve("pg-refused.err"))).contains("password authentication failed").doesNotContain("wrong-pw-77");
    }

    private static long count(java.sql.Statement s, String sql) throws Exception {
        try (var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void replayAfterAnOffsetResetRedeliversEverythingWithoutASecondEffect(LocalKafka kafka, LabNamespace ns) throws Exception {
        produce(kafka, ns, 200, 3, 0);
        String inbox = ns.inbox(1);
        assertThat(Launch.await(consume(kafka, ns, "A", ns.group(), inbox, "PT3S"), 90)).isZero();
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            ops.executeReset(ops.planReset(ns.group(), ResetScope.allTopics(), ResetTargets.toEarliest()),
                    ExecuteResetOptions.custom().allowPrefix(ns.prefix()).planDir(dir.resolve("plans")).build());
        }

        assertThat(Launch.await(consume(kafka, ns, "A2", ns.group(), inbox, "PT3S"), 90)).isZero();

        assertThat(lines("A2", "duplicate")).isEqualTo(200);
        assertThat(lines("A2", "applied")).isZero();
        assertThat(Db.count(dir.resolve("target.db"), "SELECT count(*) FROM ledger WHERE namespace = ?", inbox)).isEqualTo(200);
    }

    /** The generation of a consumer's last assignment when it holds partitions now, from its assignment log. */
    private static java.util.Optional<String> sharing(Path log) throws java.io.IOException {
        if (!Files.exists(log)) {
            return java.util.Optional.empty();
        }
        List<String> lines = Files.readAllLines(log);
        String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"event\":\"assigned\",\"partitions\":\\[\"[^]]*\\],\"generation\":(\\d+)")
                .matcher(last);
        return m.find() ? java.util.Optional.of(m.group(1)) : java.util.Optional.empty();
    }

    @Test
    void twoProcessesShareOneGroupAndOneDbAndApplyEveryRecordExactlyOnce(LocalKafka kafka, LabNamespace ns) throws Exception {
        // the topic first and the records once both share it: with the records there from the start, A once drained all
        // 600 records of then before B's JVM had joined (a fresh-clone run), and B applied none
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            ops.createTopic(ns, ns.topic(), 4);
        }
        String inbox = ns.inbox(1);
        Process a = consume(kafka, ns, "A", ns.group(), inbox, null);
        Process b = consume(kafka, ns, "B", ns.group(), inbox, null);
        // both in one generation, each with partitions: B alone at first had all four, and once drained them all before A joined
        Launch.until("A and B share the partitions in one generation", () -> sharing(dir.resolve("A.assignments.jsonl")).isPresent()
                && sharing(dir.resolve("A.assignments.jsonl")).equals(sharing(dir.resolve("B.assignments.jsonl"))), a, b);
        produce(kafka, ns, 240, 4, 0);
        // stopped once every record is applied (SIGTERM, as the lab stops them): no idle time to wait out
        Launch.until("every record applied", () -> applied(inbox) >= 240, a, b);
        a.destroy();
        b.destroy();

        Launch.exitsZero(dir, "A", a);
        Launch.exitsZero(dir, "B", b);

        Path db = dir.resolve("target.db");
        assertThat(Db.count(db, "SELECT count(*) FROM ledger WHERE namespace = ?", inbox)).isEqualTo(240);
        assertThat(Db.count(db, "SELECT count(DISTINCT message_id) FROM ledger WHERE namespace = ?", inbox)).isEqualTo(240);
        assertThat(Db.count(db, "SELECT count(DISTINCT instance) FROM ledger WHERE namespace = ?", inbox))
                .as("A: %s%nB: %s%nB.err: %s", Files.readString(dir.resolve("A.assignments.jsonl")), Files.readString(dir.resolve("B.assignments.jsonl")),
                        Files.readString(dir.resolve("B.err")))
                .isEqualTo(2);
        assertThat(Files.readString(dir.resolve("A.assignments.jsonl"))).contains("\"event\":\"assigned\"");
        assertThat(Files.readString(dir.resolve("B.assignments.jsonl"))).contains("\"event\":\"assigned\"");
        assertThat(Files.readString(dir.resolve("A.err")) + Files.readString(dir.resolve("B.err"))).doesNotContain("SQLITE_BUSY")
                .doesNotContain("fatal");
    }

    @Test
    void badRecordsAreQuarantinedWithReasonsAndOffsetsMovePastThem(LocalKafka kafka, LabNamespace ns) throws Exception {
        produce(kafka, ns, 60, 2, 8);
        String inbox = ns.inbox(1);

        assertThat(Launch.await(consume(kafka, ns, "A", ns.group(), inbox, "PT3S"), 90)).isZero();

        Path db = dir.resolve("target.db");
        assertThat(Db.count(db, "SELECT count(*) FROM ledger WHERE namespace = ?", inbox)).isEqualTo(60);
        assertThat(Db.count(db, "SELECT count(*) FROM quarantine WHERE namespace = ?", inbox)).isEqualTo(8);
        assertThat(Db.column(db, "SELECT DISTINCT CASE WHEN reason LIKE 'not JSON%' THEN 'not JSON' "
                + "WHEN reason LIKE 'non-integer%' THEN 'non-integer amount' ELSE reason END FROM quarantine WHERE namespace = ?", inbox))
                .containsExactlyInAnyOrder("not JSON", "missing id", "non-integer amount", "null value");
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            OffsetSnapshot s = ops.describe(ns.group());
            assertThat(s.partitions()).allSatisfy(p -> assertThat(p.committed()).isEqualTo(p.logEnd()));
            assertThat(s.partitions().stream().mapToLong(PartitionOffsets::logEnd).sum()).isEqualTo(68);
        }
    }

    @Test
    void aNewGenerationNamespaceOnTheSameDbRebuildsEveryEffect(LocalKafka kafka, LabNamespace ns) throws Exception {
        produce(kafka, ns, 150, 3, 0);
        assertThat(Launch.await(consume(kafka, ns, "G1", ns.group("g1"), ns.inbox(1), "PT3S"), 90)).isZero();

        assertThat(Launch.await(consume(kafka, ns, "G2", ns.group("g2"), ns.inbox(2), "PT3S"), 90)).isZero();

        Path db = dir.resolve("target.db");
        assertThat(Db.count(db, "SELECT count(*) FROM ledger WHERE namespace = ?", ns.inbox(2))).isEqualTo(150);
        assertThat(Db.count(db, "SELECT count(*) FROM ledger WHERE namespace = ?", ns.inbox(1))).isEqualTo(150);
        assertThat(Db.balances(db, ns.inbox(2))).isEqualTo(Db.balances(db, ns.inbox(1)));
    }

    @Test
    void sigtermFinishesTheRecordInHandLeavesTheGroupAndExitsZero(LocalKafka kafka, LabNamespace ns) throws Exception {
        produce(kafka, ns, 3000, 1, 0);
        Process a = consume(kafka, ns, "A", ns.group(), ns.inbox(1), null);
        Path log = dir.resolve("A.processing.jsonl");
        Launch.until("A handled 20 records", () -> Files.exists(log) && Files.readAllLines(log).size() >= 20, a);
        a.destroy(); // SIGTERM in the middle of the topic, a record in hand

        assertThat(Launch.await(a, 30)).isZero();
        long handled = Files.readAllLines(log).size();
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            OffsetSnapshot s = ops.describe(ns.group());
            assertThat(s.state()).isEqualTo(GroupState.EMPTY); // it left the group, no session timeout to wait out
            assertThat(s.totalLag()).as("stopped mid-way, not after the end").isPositive();
            assertThat(s.partitions().get(0).committed()).as("every record it handled, the one in hand included, is committed")
                    .isEqualTo(handled);
        }
        assertThat(Db.count(dir.resolve("target.db"), "SELECT count(*) FROM inbox WHERE namespace = ?", ns.inbox(1)))
                .as("and each has its one effect: nothing half-written").isEqualTo(handled);
    }

    @Test
    void sigtermWithTheBrokerGoneExitsWithinFiveSecondsAndLeavesNoHalfWrittenEffect(LabNamespace ns) throws Exception {
        try (LocalKafka own = LocalKafka.create(LocalKafkaConfig.custom().workDir(dir.resolve("own-broker")).build()).start()) {
            produce(own, ns, 300, 1, 0);
            Process a = consume(own, ns, "A", ns.group(), ns.inbox(1), null);
            Path log = dir.resolve("A.processing.jsonl");
            Launch.until("A handled 5 records", () -> Files.exists(log) && Files.readAllLines(log).size() >= 5, a);
            own.stop(); // the broker goes away under the consumer
            Thread.sleep(1000);

            long t0 = System.nanoTime();
            a.destroy(); // SIGTERM
            assertThat(a.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)).as("exited within 5 s of SIGTERM").isTrue();
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5000);
        }
        Path db = dir.resolve("target.db");
        assertThat(Db.column(db, "PRAGMA integrity_check")).containsExactly("ok");
        long inbox = Db.count(db, "SELECT count(*) FROM inbox WHERE namespace = ?", ns.inbox(1));
        assertThat(inbox).isPositive().isEqualTo(Db.count(db, "SELECT count(*) FROM ledger WHERE namespace = ?", ns.inbox(1)));
    }
}
