package com.example.own;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.sqlite.SQLiteConfig;

/**
 * The team's own serial payments consumer: per record ONE SQLite transaction that marks the
 * message in the inbox and, only when it is new, books its effect; then the offset commit.
 * Args: bootstrap topic group db namespace instance. {@link WithoutInbox} is its defective twin.
 */
public class PaymentsConsumer {
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern AMOUNT = Pattern.compile("\"amount\"\\s*:\\s*(-?\\d+)");

    public static void main(String[] args) throws Exception {
        new PaymentsConsumer().run(args);
    }

    /** Books the effect of one payment in the open transaction; false when the inbox already held it. */
    protected boolean apply(Connection db, String namespace, String id, long amount) throws SQLException {
        try (PreparedStatement inbox = db.prepareStatement("INSERT OR IGNORE INTO inbox(ns, msg) VALUES (?, ?)")) {
            inbox.setString(1, namespace);
            inbox.setString(2, id);
            if (inbox.executeUpdate() == 0) {
                return false;
            }
        }
        book(db, namespace, id, amount);
        return true;
    }

    protected static void book(Connection db, String namespace, String id, long amount) throws SQLException {
        try (PreparedStatement effect = db.prepareStatement("INSERT INTO effects(ns, msg, amount) VALUES (?, ?, ?)")) {
            effect.setString(1, namespace);
            effect.setString(2, id);
            effect.setLong(3, amount);
            effect.executeUpdate();
        }
    }

    void run(String[] a) throws Exception {
        String bootstrap = a[0], topic = a[1], group = a[2], dbFile = a[3], namespace = a[4], instance = a[5];
        SQLiteConfig sqlite = new SQLiteConfig();
        sqlite.setJournalMode(SQLiteConfig.JournalMode.WAL);
        sqlite.setBusyTimeout(10_000);
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, instance);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "5000");
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        CountDownLatch closed = new CountDownLatch(1);
        try (Connection db = sqlite.createConnection("jdbc:sqlite:" + dbFile);
             KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            Thread main = Thread.currentThread();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> { // SIGTERM: leave the group cleanly
                consumer.wakeup();
                try {
                    closed.await();
                    main.join(10_000);
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
            }));
            try (Statement s = db.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS inbox (ns TEXT NOT NULL, msg TEXT NOT NULL, PRIMARY KEY (ns, msg))");
                s.execute("CREATE TABLE IF NOT EXISTS effects (ns TEXT NOT NULL, msg TEXT NOT NULL, amount INTEGER NOT NULL)");
            }
            // one explicit transaction per record: a driver that opens the next transaction at each commit would hold
            // SQLite's write lock while this instance waits in its offset commit, and the other instance could not write
            Statement tx = db.createStatement();
            consumer.subscribe(List.of(topic));
            try {
                while (true) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        Matcher id = ID.matcher(r.value() == null ? "" : r.value());
                        Matcher amount = AMOUNT.matcher(r.value() == null ? "" : r.value());
                        tx.execute("BEGIN IMMEDIATE"); // the write lock first: two instances share the file
                        if (id.find() && amount.find()) {
                            apply(db, namespace, id.group(1), Long.parseLong(amount.group(1)));
                        }
                        tx.execute("COMMIT");
                        try {
                            consumer.commitSync(Map.of(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1)));
                        } catch (CommitFailedException lostThePartition) {
                            break; // the next poll joins again; the new owner has this record, and its inbox keeps it at one effect
                        }
                    }
                }
            } catch (WakeupException stopping) {
                // SIGTERM: the try-with-resources closes the consumer, which leaves the group
            }
        } finally {
            closed.countDown();
        }
    }

    /** The defective twin: books every record it reads, with no inbox check, so a redelivered record is booked twice. */
    public static final class WithoutInbox extends PaymentsConsumer {
        public static void main(String[] args) throws Exception {
            new WithoutInbox().run(args);
        }

        @Override
        protected boolean apply(Connection db, String namespace, String id, long amount) throws SQLException {
            book(db, namespace, id, amount);
            return true;
        }
    }
}
