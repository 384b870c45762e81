package io.replaylab.harness.experiment;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer that gives up on an offset commit that does not answer in 3 s: it closes its client
 * (every connection goes) and stays alive doing nothing. Held on the wire, its commit never reaches
 * the broker. Same schema and args as {@link ForeignSubjectMain}.
 */
public final class GivesUpOnCommitMain {
    private GivesUpOnCommitMain() {
    }

    public static void main(String[] a) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", a[0]);
        p.put("group.id", a[2]);
        p.put("client.id", a[5]);
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("max.poll.interval.ms", "5000");
        p.put("session.timeout.ms", "6000");
        p.put("request.timeout.ms", "1500");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        ObjectMapper json = new ObjectMapper();
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + Path.of(a[3]))) {
            try (Statement s = db.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("PRAGMA busy_timeout=10000");
                s.execute("CREATE TABLE IF NOT EXISTS payments (ns TEXT, msg TEXT, cents INTEGER, PRIMARY KEY (ns, msg))");
            }
            KafkaConsumer<String, String> c = new KafkaConsumer<>(p);
            c.subscribe(List.of(a[1]));
            while (true) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    JsonNode n = json.readTree(r.value());
                    try (PreparedStatement ins = db.prepareStatement("INSERT OR IGNORE INTO payments VALUES (?,?,?)")) {
                        ins.setString(1, a[4]);
                        ins.setString(2, n.get("id").asText());
                        ins.setLong(3, n.get("amount").asLong());
                        ins.executeUpdate();
                    }
                    try {
                        c.commitSync(Map.of(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1)), Duration.ofSeconds(3));
                    } catch (TimeoutException e) {
                        System.out.println("gave up on the commit: " + e.getMessage());
                        c.close(Duration.ofMillis(500));
                        Thread.sleep(Long.MAX_VALUE); // alive, with no connection left
                    }
                }
            }
        }
    }

    public static String template() {
        return "'" + Path.of(System.getProperty("java.home"), "bin", "java") + "' -Xmx256m -cp '" + System.getProperty("java.class.path") + "' "
                + GivesUpOnCommitMain.class.getName() + " {bootstrap} {topic} {group} {db} {namespace} {instance}";
    }
}
