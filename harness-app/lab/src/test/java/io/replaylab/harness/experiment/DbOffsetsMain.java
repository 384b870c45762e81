package io.replaylab.harness.experiment;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaylab.harness.lab.Subject;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A Java consumer that keeps its positions in its own database (Kafka's "storing offsets outside Kafka") and never commits an
 * offset to Kafka: per record ONE JDBC transaction writes the message id (the primary key keeps it once), and the partition's
 * next offset; on an assignment it seeks each partition to its stored offset. Args: bootstrap topic group db namespace instance.
 * With {@code ALSO_COMMITS=1} in its environment it also commits each record's next offset to Kafka after its transaction (for
 * its lag to show), and still reads from its database's positions. With {@code ASSIGNS=1} it assigns itself every partition of
 * the topic (Kafka's standalone consumer: it never joins its group) and seeks each to its stored offset.
 */
public final class DbOffsetsMain {
    private DbOffsetsMain() {
    }

    public static final String TARGET_QUERY = "SELECT msg AS message_id, cents AS amount FROM dbo_payments WHERE ns = {namespace}";

    public static void main(String[] a) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", a[0]);
        p.put("group.id", a[2]);
        p.put("client.id", a[5]);
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("max.poll.interval.ms", "5000");
        p.put("session.timeout.ms", "6000");
        p.put("heartbeat.interval.ms", "1500");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        ObjectMapper json = new ObjectMapper();
        boolean alsoCommits = "1".equals(System.getenv("ALSO_COMMITS"));
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + Path.of(a[3])); KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            try (Statement s = db.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("PRAGMA busy_timeout=10000");
                s.execute("CREATE TABLE IF NOT EXISTS dbo_payments (ns TEXT, msg TEXT, cents INTEGER, PRIMARY KEY (ns, msg))");
                s.execute("CREATE TABLE IF NOT EXISTS dbo_positions (grp TEXT, topic TEXT, part INTEGER, next INTEGER, PRIMARY KEY (grp, topic, part))");
            }
            Thread main = Thread.currentThread();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> { // SIGTERM: the poll wakes up, and the consumer leaves its group
                c.wakeup();
                try {
                    main.join(20_000);
                } catch (InterruptedException ignored) {
                    // exiting
                }
            }));
            db.setAutoCommit(false);
            ConsumerRebalanceListener seeks = new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    // nothing to commit: the positions are written with the effects
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    for (TopicPartition tp : partitions) {
                        try (PreparedStatement q = db.prepareStatement("SELECT next FROM dbo_positions WHERE grp = ? AND topic = ? AND part = ?")) {
                            q.setString(1, a[2]);
                            q.setString(2, tp.topic());
                            q.setInt(3, tp.partition());
                            try (ResultSet rs = q.executeQuery()) {
                                if (rs.next()) {
                                    c.seek(tp, rs.getLong(1));
                                } else {
                                    c.seekToBeginning(List.of(tp));
                                }
                            }
                            db.rollback(); // ends the read: an open one would refuse the next write a snapshot other writers moved past
                        } catch (java.sql.SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }
            };
            if ("1".equals(System.getenv("ASSIGNS"))) { // ASSIGNS=1: no group membership, its positions its database's alone
                List<TopicPartition> all = c.partitionsFor(a[1]).stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
                c.assign(all);
                seeks.onPartitionsAssigned(all);
            } else {
                c.subscribe(List.of(a[1]), seeks);
            }
            while (true) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    JsonNode n = json.readTree(r.value());
                    try (PreparedStatement ins = db.prepareStatement("INSERT OR IGNORE INTO dbo_payments VALUES (?,?,?)");
                            PreparedStatement pos = db.prepareStatement("INSERT OR REPLACE INTO dbo_positions VALUES (?,?,?,?)")) {
                        ins.setString(1, a[4]);
                        ins.setString(2, n.get("id").asText());
                        ins.setLong(3, n.get("amount").asLong());
                        ins.executeUpdate();
                        pos.setString(1, a[2]);
                        pos.setString(2, r.topic());
                        pos.setInt(3, r.partition());
                        pos.setLong(4, r.offset() + 1);
                        pos.executeUpdate();
                    }
                    db.commit();
                    if (alsoCommits) { // the offset in Kafka too, for its lag to show: the positions it reads from stay its database's
                        c.commitSync(java.util.Map.of(new TopicPartition(r.topic(), r.partition()),
                                new org.apache.kafka.clients.consumer.OffsetAndMetadata(r.offset() + 1)));
                    }
                }
            }
        } catch (WakeupException stopping) {
            // SIGTERM: closing the consumer (try-with-resources) leaves the group
        }
    }

    /** This consumer as the lab's subject (a Java main class of the test class path). */
    public static Subject subject() {
        return Subject.javaMain(DbOffsetsMain.class, "{bootstrap}", "{topic}", "{group}", "{db}", "{namespace}", "{instance}");
    }
}
