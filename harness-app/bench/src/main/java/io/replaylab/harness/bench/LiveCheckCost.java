package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.harness.experiment.Experiments;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.oracle.RecordParsers;
import io.replaylab.oracle.SourceIndex;
import io.replaylab.oracle.SourceMapping;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TargetSpec;
import io.replaylab.oracle.TopicOracle;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What the live frontier check adds to a commit: a consumer commits each record (commitSync) through
 * the proxy, once with the check armed on its group and once without, in A B B A order; the check
 * reads the source's index and asks a SQLite file in WAL mode (every id has its effect: each commit
 * is checked and none is ahead) once per commit.
 */
final class LiveCheckCost {
    private LiveCheckCost() {
    }

    /** Measures and prints; leaves no topic and no file behind. */
    static void measure(PrintWriter out, String bootstrap, WireProxy proxy, LabNamespace ns, int commits, int runs) throws Exception {
        String topic = ns.topic("commits");
        Path dir = Files.createTempDirectory("replay-lab-bench-live-check");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            try {
                measure(out, bootstrap, proxy, ns, topic, commits, runs, dir);
            } finally {
                admin.deleteTopics(List.of(topic)).all().get();
            }
        } finally {
            try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static void measure(PrintWriter out, String bootstrap, WireProxy proxy, LabNamespace ns, String topic, int commits, int runs, Path dir)
            throws Exception {
        Files.createDirectories(dir);
        Path db = dir.resolve("target.db");
        try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, "acks", "all"), new StringSerializer(),
                new StringSerializer()); Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("CREATE TABLE effects (message_id TEXT PRIMARY KEY, amount INTEGER)");
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO effects VALUES (?, 1)")) {
                for (int i = 0; i < commits; i++) {
                    p.send(new ProducerRecord<>(topic, 0, "id-" + i, "{\"amountCents\":1}"));
                    insert.setString(1, "id-" + i);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            c.commit();
            p.flush();
        }
        SourceSpec source = SourceSpec.topic(bootstrap, topic).parser(RecordParsers.mapped(SourceMapping.of("key", "json:/amountCents", 0)));
        SourceIndex index = TopicOracle.of(source).index();
        index.between(0, 0, commits); // read once, before anything is timed
        ExperimentRecorder e = RunRecorder.start(dir.resolve("run"), "bench-live-check").experiment("live-check", "R11");
        Alternation alternation = Alternation.of(2);
        Samples plain = Samples.empty();
        Samples checked = Samples.empty();
        try (Target target = Target.open(new TargetSpec("jdbc:sqlite:" + db, null, "SELECT message_id, amount FROM effects"))) {
            for (int round = 0; round <= runs; round++) { // round 0 warms up
                long[] ns0 = new long[2];
                for (int path : alternation.turns(round, 2)) {
                    String group = ns.group("r" + round + "-" + path + "-" + System.nanoTime());
                    WireProxy.Checking on = path == 1 ? proxy.checkCommits(group, Experiments.liveCheck(e, topic, index, () -> target)) : null;
                    try {
                        ns0[path] += commitEach(proxy.bootstrapServers(), topic, group, commits);
                    } finally {
                        if (on != null) {
                            on.close();
                        }
                    }
                }
                double plainUs = ns0[0] / 2.0 / commits / 1e3;
                double checkedUs = ns0[1] / 2.0 / commits / 1e3;
                out.printf("%-8s per commit: plain %.0f us, with the live check %.0f us (+%.0f us)%n", round == 0 ? "warm-up" : "round " + round,
                        plainUs, checkedUs, checkedUs - plainUs);
                if (round > 0) {
                    plain.add(plainUs);
                    checked.add(checkedUs);
                }
            }
        }
        out.printf("live check, %d sequential commitSync through the proxy per path and run, %d rounds: median per commit plain %.0f us, "
                + "checked %.0f us = %.3fx (+%.0f us: an index lookup and one indexed SQLite query per commit)%n", commits, runs, plain.median(),
                checked.median(), checked.median() / plain.median(), checked.median() - plain.median());
    }

    /** A consumer that commits every record on its own (commitSync of offset + 1); the time all commits took, in ns. */
    private static long commitEach(String bootstrap, String topic, String group, int commits) {
        Map<String, Object> cfg = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cfg, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            int done = 0;
            long time = 0;
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (done < commits) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("committed " + done + " of " + commits + " records within 2 minutes");
                }
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    long t0 = System.nanoTime();
                    c.commitSync(Map.of(tp, new OffsetAndMetadata(r.offset() + 1)));
                    time += System.nanoTime() - t0;
                    done++;
                }
            }
            return time;
        }
    }
}
