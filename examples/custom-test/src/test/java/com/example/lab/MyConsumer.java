package com.example.lab;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** "My" consumer, as a lab would have one: per record, inbox row + effect in ONE SQLite transaction, then commitSync. */
final class MyConsumer {
    static final String TARGET_QUERY = "SELECT message_id, amount FROM effects";

    private MyConsumer() {
    }

    /** Consumes until 3 s pass without a record; returns the records it saw. */
    static long drain(String bootstrap, String topic, String group, Path db) throws Exception {
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        long seen = 0;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS inbox (message_id TEXT PRIMARY KEY)");
                s.execute("CREATE TABLE IF NOT EXISTS effects (message_id TEXT, amount INTEGER)");
            }
            c.setAutoCommit(false);
            consumer.subscribe(List.of(topic));
            long idleSince = System.nanoTime();
            while (System.nanoTime() - idleSince < 3_000_000_000L) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    idleSince = System.nanoTime();
                    seen++;
                    String id = r.value().replaceAll(".*\"id\": \"([^\"]+)\".*", "$1");
                    long amount = Long.parseLong(r.value().replaceAll(".*\"amount\": (-?[0-9]+).*", "$1"));
                    try (PreparedStatement inbox = c.prepareStatement("INSERT OR IGNORE INTO inbox VALUES (?)");
                         PreparedStatement effect = c.prepareStatement("INSERT INTO effects VALUES (?, ?)")) {
                        inbox.setString(1, id);
                        if (inbox.executeUpdate() == 1) { // new: apply the effect in the same transaction
                            effect.setString(1, id);
                            effect.setLong(2, amount);
                            effect.executeUpdate();
                        }
                    }
                    c.commit();
                    consumer.commitSync(Map.of(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1)));
                }
            }
        }
        return seen;
    }
}
