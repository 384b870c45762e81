package io.replaylab.barrier.jdi;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A small serial consumer for the debugger tests (it knows nothing of barriers): per record it
 * commits an effect row to SQLite, THEN calls {@code commitSync}. Args: bootstrap topic group
 * protocol(classic|consumer) maxPollIntervalMs sessionTimeoutMs(classic; 0 = default) db clientId [tx]; with {@code tx} each
 * effect is its own transaction that ends in {@code Connection#commit} (else autocommit does it).
 */
public final class CommitLoopMain {
    private CommitLoopMain() {
    }

    public static void main(String[] a) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a[0]);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, a[2]);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, a[3]);
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, a[4]);
        if (a[3].equals("classic") && !a[5].equals("0")) {
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, a[5]);
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Integer.toString(Integer.parseInt(a[5]) / 4));
        }
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, a[7]);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + a[6]);
             KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            try (Statement s = db.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("PRAGMA busy_timeout=10000");
                s.execute("CREATE TABLE IF NOT EXISTS effects (client TEXT, partition INTEGER, \"offset\" INTEGER)");
            }
            boolean tx = a.length > 8 && a[8].equals("tx");
            Runnable inTransaction = () -> {
                try {
                    db.commit();
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            };
            db.setAutoCommit(!tx);
            c.subscribe(List.of(a[1]));
            while (true) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    try (PreparedStatement ins = db.prepareStatement("INSERT INTO effects VALUES (?,?,?)")) {
                        ins.setString(1, a[7]);
                        ins.setInt(2, r.partition());
                        ins.setLong(3, r.offset());
                        ins.executeUpdate(); // autocommit: the DB commit happens here
                    }
                    if (tx) {
                        System.out.println("calling commit of " + r.partition() + "@" + r.offset());
                        inTransaction.run(); // through a lambda, as a retry library would call it
                    }
                    System.out.println("calling commitSync " + r.partition() + "@" + (r.offset() + 1));
                    try {
                        c.commitSync(Map.of(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1)));
                        System.out.println("commit accepted");
                    } catch (CommitFailedException e) {
                        System.out.println("commit rejected: " + e.getMessage());
                        break;
                    }
                }
            }
        }
    }

    /** How many effects {@code client} has committed to the program's SQLite file. */
    public static long effects(Path db, String client) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             PreparedStatement q = c.prepareStatement("SELECT count(*) FROM effects WHERE client = ?")) {
            q.setString(1, client);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Waits (with a deadline) until {@code client} has at least {@code count} effects; returns how many it has. */
    public static long awaitEffects(Path db, String client, long count) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        long n = effects(db, client);
        while (n < count && System.nanoTime() < deadline) {
            Thread.sleep(100);
            n = effects(db, client);
        }
        return n;
    }
}
