package io.replaylab.harness.experiment;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A payments listener as a Spring Kafka user writes one, with nothing of replay-lab in it: a {@code MessageListener} in a
 * listener container with Spring's defaults (AckMode BATCH: the offsets of a poll's records committed, synchronously, after
 * the listener returned for all of them; the DefaultErrorHandler), its database work in a {@code TransactionTemplate} on
 * PostgreSQL (spring-jdbc): the payment id into {@code payment_inbox}, and only when new, the effect into
 * {@code payment_ledger}. Its client settings are the Java client's defaults but the group, earliest and read_committed.
 *
 * <p>Arguments: bootstrap topic group jdbc-url namespace client-id [no-inbox]; the password in REPLAYLAB_TARGET_PASSWORD.
 * {@code no-inbox}: the twin that applies every delivery.
 */
public final class SpringPaymentsListener {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SpringPaymentsListener() {
    }

    public static void main(String[] a) throws InterruptedException {
        String namespace = a[4];
        boolean inbox = !(a.length > 6 && a[6].equals("no-inbox"));
        DriverManagerDataSource ds = new DriverManagerDataSource(a[3]);
        ds.setPassword(System.getenv("REPLAYLAB_TARGET_PASSWORD"));
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
        tx.executeWithoutResult(s -> {
            jdbc.execute("SELECT pg_advisory_xact_lock(4242)"); // two instances creating the tables at once collide in the catalog
            jdbc.execute("CREATE TABLE IF NOT EXISTS payment_inbox (ns TEXT NOT NULL, payment_id TEXT NOT NULL, PRIMARY KEY (ns, payment_id))");
            jdbc.execute("CREATE TABLE IF NOT EXISTS payment_ledger (ns TEXT NOT NULL, payment_id TEXT NOT NULL, amount BIGINT NOT NULL)");
        });

        ContainerProperties container = new ContainerProperties(a[1]);
        container.setMessageListener((MessageListener<String, String>) (ConsumerRecord<String, String> r) -> tx.executeWithoutResult(s -> {
            JsonNode v = read(r.value());
            String id = v.get("id").asText();
            int fresh = inbox ? jdbc.update("INSERT INTO payment_inbox VALUES (?, ?) ON CONFLICT DO NOTHING", namespace, id) : 1;
            if (fresh == 1) {
                jdbc.update("INSERT INTO payment_ledger VALUES (?, ?, ?)", namespace, id, v.get("amount").asLong());
            }
        }));
        Map<String, Object> props = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, a[0], ConsumerConfig.GROUP_ID_CONFIG, a[2],
                ConsumerConfig.CLIENT_ID_CONFIG, a[5], ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        KafkaMessageListenerContainer<String, String> listener = new KafkaMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(), new StringDeserializer()), container);
        listener.setBeanName("payments");
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            listener.stop();
            stopped.countDown();
        }));
        listener.start();
        stopped.await();
    }

    private static JsonNode read(String value) {
        try {
            return JSON.readTree(value);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("not a payment: " + value, e);
        }
    }
}
