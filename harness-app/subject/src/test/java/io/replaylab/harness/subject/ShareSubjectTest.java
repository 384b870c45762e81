package io.replaylab.harness.subject;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaylab.evidence.Json;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.Clients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference subject's share-consumer mode ({@code consume --group-type share}) and its defective twins
 * ({@link ShareTwinMain}) as separate processes, against the real broker (share groups are on by default
 * from Kafka 4.2) and real SQLite files.
 */
@LocalKafkaTest
class ShareSubjectTest {
    /** The shortest lock the lab's broker allows a share group (its group.share.min.record.lock.duration.ms). */
    private static final String SHORT_LOCK_MS = "1000";

    @TempDir
    Path dir;

    private JsonNode produce(LocalKafka kafka, LabNamespace ns, int count, int partitions, int malformed) throws Exception {
        return Launch.produce(dir, kafka, ns, count, partitions, malformed);
    }

    /**
     * What the lab does before a share-mode subject starts: the group reads from the earliest record (a new share group
     * starts at latest, and the records are produced first), with these other group configs.
     */
    private static void prepareGroup(LocalKafka kafka, String group, Map<String, String> more) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>(List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)));
        more.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), ops)).all().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Per partition of the group: its lag as the broker reports it (listShareGroupOffsets: records not yet acknowledged,
     * available or acquired, up to the log end). Not the start offset: after the last record of a partition is acknowledged
     * it stays at that record (the broker keeps the acknowledged batch's state), one below the log end, with lag 0.
     */
    private static Map<String, Long> lags(LocalKafka kafka, String group) throws Exception {
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) {
            Map<TopicPartition, SharePartitionOffsetInfo> offsets = admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                    .partitionsToOffsetInfo(group).get(10, TimeUnit.SECONDS);
            Map<String, Long> out = new java.util.TreeMap<>();
            offsets.forEach((tp, info) -> out.put(tp.toString(), info.lag().orElse(-1L)));
            return out;
        }
    }

    /** Every partition of the topic has a share-group state and nothing left in it to acknowledge. */
    private static void assertDrained(LocalKafka kafka, String group, int partitions) throws Exception {
        assertThat(lags(kafka, group)).as("the share group's lag per partition").hasSize(partitions).allSatisfy((tp, lag) -> assertThat(lag)
                .as(tp).isZero());
    }

    /** The share group's members; 0 before the first one's heartbeat created the group. */
    private static int members(Admin admin, String group) throws Exception {
        try {
            return admin.describeShareGroups(List.of(group)).all().get().get(group).members().size();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) {
                return 0;
            }
            throw e;
        }
    }

    private Process share(LocalKafka kafka, LabNamespace ns, String instance, String idle) {
        return Launch.subject(dir, instance, "consume", "--group-type", "share", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(),
                "--group", ns.group(), "--db", dir.resolve("target.db").toString(), "--namespace", ns.inbox(1), "--instance-id", instance,
                "--processing-log", dir.resolve(instance + ".processing.jsonl").toString(), "--until-idle", idle);
    }

    private Process twin(LocalKafka kafka, LabNamespace ns, String mode, String instance, String... hooks) {
        List<String> args = new ArrayList<>(List.of(mode, kafka.bootstrapServers(), ns.topic(), ns.group(), dir.resolve("target.db").toString(),
                ns.inbox(1), instance, dir.toString()));
        args.addAll(List.of(hooks));
        return Launch.start(dir, instance, ShareTwinMain.class.getName(), args.toArray(String[]::new));
    }

    private List<JsonNode> log(String instance) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve(instance + ".processing.jsonl"))) {
            out.add(Json.mapper().readTree(line));
        }
        return out;
    }

    private static List<JsonNode> withResult(List<JsonNode> log, String result) {
        return log.stream().filter(n -> n.path("result").asText().equals(result)).toList();
    }

    private long ledger(LabNamespace ns) throws Exception {
        return Db.count(dir.resolve("target.db"), "SELECT count(*) FROM ledger WHERE namespace = ?", ns.inbox(1));
    }

    @Test
    void aShareConsumerAppliesEveryRecordOnceQuarantinesBadOnesAndLeavesNothingUnacknowledged(LocalKafka kafka, LabNamespace ns)
            throws Exception {
        JsonNode manifest = produce(kafka, ns, 90, 3, 3);
        prepareGroup(kafka, ns.group(), Map.of());

        long t0 = System.nanoTime();
        assertThat(Launch.await(share(kafka, ns, "A", "PT3S"), 90)).as(Files.readString(dir.resolve("A.err"))).isZero();
        System.out.printf("share consumer: 93 records in %d ms (3 s idle included)%n", (System.nanoTime() - t0) / 1_000_000);

        Path db = dir.resolve("target.db");
        assertThat(ledger(ns)).isEqualTo(90);
        assertThat(Db.count(db, "SELECT count(DISTINCT message_id) FROM ledger WHERE namespace = ?", ns.inbox(1))).isEqualTo(90);
        assertThat(Db.count(db, "SELECT count(*) FROM quarantine WHERE namespace = ?", ns.inbox(1))).isEqualTo(3);
        assertThat(Db.balances(db, ns.inbox(1))).isEqualTo(Json.mapper().convertValue(manifest.get("accountSums"),
                new com.fasterxml.jackson.core.type.TypeReference<Map<String, Long>>() { }));
        List<JsonNode> log = log("A");
        assertThat(withResult(log, "applied")).hasSize(90);
        assertThat(withResult(log, "quarantined")).hasSize(3);
        assertThat(withResult(log, "acknowledged")).as("every record, a quarantined one too, acknowledged ACCEPT").hasSize(93)
                .allSatisfy(n -> assertThat(n.path("ack").asText()).isEqualTo("ACCEPT"));
        assertThat(log).as("each line carries the record's delivery count: its first delivery").allSatisfy(n ->
                assertThat(n.path("deliveryCount").asInt()).isEqualTo(1));
        assertDrained(kafka, ns.group(), 3);
        assertThat(Files.exists(dir.resolve("A.assignments.jsonl"))).isFalse();
    }

    @Test
    void twoShareMembersOnOneGroupShareTheRecordsWithOneEffectPerId(LocalKafka kafka, LabNamespace ns) throws Exception {
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers())) {
            ops.createTopic(ns, ns.topic(), 4);
        }
        prepareGroup(kafka, ns.group(), Map.of());
        Process a = share(kafka, ns, "A", "PT6S");
        Process b = share(kafka, ns, "B", "PT6S");
        try (Admin admin = Clients.admin(kafka.bootstrapServers())) { // the records once both are members: else A may drain them alone
            Launch.until("both members joined", () -> members(admin, ns.group()) >= 2, a, b);
        }
        produce(kafka, ns, 200, 4, 0);

        Launch.exitsZero(dir, "A", a);
        Launch.exitsZero(dir, "B", b);

        Path db = dir.resolve("target.db");
        assertThat(ledger(ns)).isEqualTo(200);
        assertThat(Db.count(db, "SELECT count(DISTINCT message_id) FROM ledger WHERE namespace = ?", ns.inbox(1))).isEqualTo(200);
        assertThat(Db.column(db, "SELECT DISTINCT instance FROM ledger WHERE namespace = ?", ns.inbox(1))).as("both applied some")
                .containsExactlyInAnyOrder("A", "B");
        assertThat(withResult(log("A"), "acknowledged").size() + withResult(log("B"), "acknowledged").size()).isGreaterThanOrEqualTo(200);
        assertDrained(kafka, ns.group(), 4);
    }

    @Test
    void aRedeliveryAfterALockExpiryIsADuplicateForTheReferenceAndItsLateAcknowledgementIsRefused(LocalKafka kafka, LabNamespace ns)
            throws Exception {
        produce(kafka, ns, 10, 1, 0);
        prepareGroup(kafka, ns.group(), Map.of("share.record.lock.duration.ms", SHORT_LOCK_MS));

        // the first record held 3 s after its DB commit, past its 1 s lock: the broker makes it available again
        assertThat(Launch.await(twin(kafka, ns, "share", "A", "stall-first=3000", "until-idle-ms=3000"), 90))
                .as(Files.readString(dir.resolve("A.err"))).isZero();

        List<JsonNode> log = log("A");
        JsonNode first = log.get(0);
        assertThat(first.path("result").asText()).isEqualTo("applied");
        // the client may have acquired the next record too while the first one stalled (one fetch ahead: seen once in a full
        // verify): its lock ran out as well, so it is refused and redelivered the same way
        List<JsonNode> refused = withResult(log, "ack-rejected");
        assertThat(refused).as("the late acknowledgement, refused").isNotEmpty().allSatisfy(n -> {
            assertThat(n.path("exception").asText()).isEqualTo("org.apache.kafka.common.errors.InvalidRecordStateException"); // INVALID_RECORD_STATE
            assertThat(n.path("deliveryCount").asInt()).isEqualTo(1);
        });
        assertThat(refused.get(0).path("offset").asLong()).isEqualTo(first.path("offset").asLong());
        assertThat(withResult(log, "duplicate")).as("each redelivery meets the inbox").allSatisfy(n -> assertThat(n.path("deliveryCount").asInt())
                .isEqualTo(2)).extracting(n -> n.path("id").asText()).containsExactlyElementsOf(refused.stream().map(n -> n.path("id").asText()).toList());
        assertThat(ledger(ns)).as("one effect per message").isEqualTo(10);
        assertDrained(kafka, ns.group(), 1);
    }

    @Test
    void shareNoInboxAppliesTheRedeliveryAfterALockExpiryASecondTime(LocalKafka kafka, LabNamespace ns) throws Exception {
        produce(kafka, ns, 10, 1, 0);
        prepareGroup(kafka, ns.group(), Map.of("share.record.lock.duration.ms", SHORT_LOCK_MS));

        assertThat(Launch.await(twin(kafka, ns, "share-no-inbox", "A", "stall-first=3000", "until-idle-ms=3000"), 90))
                .as(Files.readString(dir.resolve("A.err"))).isZero();

        String first = log("A").get(0).path("id").asText();
        assertThat(ledger(ns)).as("a second effect (of the first record, and of one acquired ahead of it if the client did)").isBetween(11L, 12L);
        assertThat(Db.count(dir.resolve("target.db"), "SELECT count(*) FROM ledger WHERE namespace = ? AND message_id = ?", ns.inbox(1), first))
                .isEqualTo(2);
        assertThat(log("A")).filteredOn(n -> n.path("id").asText().equals(first) && n.path("result").asText().equals("applied"))
                .extracting(n -> n.path("deliveryCount").asInt()).containsExactly(1, 2);
    }

    @Test
    void aCrashBeforeTheDbTransactionLosesTheRecordForShareAckFirstButNotForTheReference(LocalKafka kafka, LabNamespace ns) throws Exception {
        produce(kafka, ns, 10, 1, 0);
        prepareGroup(kafka, ns.group(), Map.of("share.record.lock.duration.ms", SHORT_LOCK_MS));

        // ack-first: the 5th record acknowledged, then the crash before its DB transaction; a reference member finishes the topic
        assertThat(Launch.await(twin(kafka, ns, "share-ack-first", "A", "crash-at=5"), 60)).isEqualTo(137);
        assertThat(Launch.await(share(kafka, ns, "B", "PT3S"), 90)).as(Files.readString(dir.resolve("B.err"))).isZero();
        String lost = Files.readString(dir.resolve("A.out")).replaceAll("(?s).*crash at record 5: (\\S+).*", "$1");
        assertThat(ledger(ns)).as("the acknowledged record never reached the DB, and the group will not deliver it again").isEqualTo(9);
        assertThat(Db.count(dir.resolve("target.db"), "SELECT count(*) FROM ledger WHERE namespace = ? AND message_id = ?", ns.inbox(1), lost))
                .isZero();
        assertDrained(kafka, ns.group(), 1);

        // the reference, crashed at the same point of a second group: its record is released at the lock's expiry and applied by B2
        String again = ns.group("again");
        prepareGroup(kafka, again, Map.of("share.record.lock.duration.ms", SHORT_LOCK_MS));
        List<String> args = new ArrayList<>(List.of("share", kafka.bootstrapServers(), ns.topic(), again, dir.resolve("again.db").toString(),
                ns.inbox(1), "A2", dir.toString(), "crash-at=5"));
        assertThat(Launch.await(Launch.start(dir, "A2", ShareTwinMain.class.getName(), args.toArray(String[]::new)), 60)).isEqualTo(137);
        assertThat(Launch.await(Launch.subject(dir, "B2", "consume", "--group-type", "share", "--bootstrap-server", kafka.bootstrapServers(),
                "--topic", ns.topic(), "--group", again, "--db", dir.resolve("again.db").toString(), "--namespace", ns.inbox(1),
                "--instance-id", "B2", "--processing-log", dir.resolve("B2.processing.jsonl").toString(), "--until-idle", "PT3S"), 90)).isZero();
        assertThat(Db.count(dir.resolve("again.db"), "SELECT count(DISTINCT message_id) FROM ledger WHERE namespace = ?", ns.inbox(1))).isEqualTo(10);
        assertThat(Db.count(dir.resolve("again.db"), "SELECT count(*) FROM ledger WHERE namespace = ?", ns.inbox(1))).isEqualTo(10);
    }
}
