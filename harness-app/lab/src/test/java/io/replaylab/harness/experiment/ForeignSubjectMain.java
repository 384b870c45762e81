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
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.lab.Subject;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer that is not the reference subject, with its own schema ({@code payments(ns, msg, cents)}
 * keyed by (ns, msg)): the harness knows it only through its command line, Kafka and a target query.
 * Args: bootstrap topic group db namespace instance [gives-up|rejoins]. With {@code gives-up} it
 * gives up on an offset commit that does not answer within 3 s: it closes its client (every
 * connection goes) and stays alive doing nothing (held on the wire, such a commit never reaches the
 * broker). With {@code rejoins} it un-subscribes and subscribes again instead: the same process
 * joins the group again as a new member. With {@code locked-map} its first commit passes a Map of its
 * own whose {@code entrySet()} waits for a lock another thread holds for 15 s (a framework's synchronized
 * map, say): a debugger holding that commit cannot read it within its limit. With {@code async-batch} it keeps the Java
 * client's default timeouts and commits each poll's batch once, with {@code commitAsync()} after its effects, never retrying
 * a commit that failed (the next batch's covers it: at-least-once allows that); {@code client-defaults} keeps the Java client's
 * default timeouts (session 45 s, poll interval 300 s) and nothing else changes. With {@code dies-on-redelivery} its insert has no
 * {@code OR IGNORE}: a redelivered message's primary key raises, and the program dies of it (exit code 1), as a consumer
 * without an inbox's "already seen" branch does; with {@code dies-once} it dies so at the first redelivered message only
 * (a file beside its database remembers), then ignores the duplicate as an inbox would. With {@code commits-all} it polls one
 * record at a time and commits with {@code commitSync()}: every assigned partition's position, also those that did not move.
 * With {@code hangs} its fifth record's (or, with {@code HANGS_AT=n} in its environment, its n-th's) database call never
 * returns (until it is stopped): alive, its poll loop stalled. {@code auto-commit} leaves its commits to the
 * Java client's auto-commit (each poll commits what the one before returned, applied by then). {@code GROUP_PROTOCOL=consumer} in
 * its environment joins with KIP-848's protocol; {@code ASSIGNS=1} assigns itself every partition of the topic and never joins
 * the group (Kafka's standalone consumer; its group id only names its commits); {@code COMMIT_FIRST=1} commits each record's
 * offset before its insert (which commits itself: no transaction, so no DB-commit point to hold it at).
 */
public final class ForeignSubjectMain {
    private ForeignSubjectMain() {
    }

    public static final String TARGET_QUERY = "SELECT msg AS message_id, cents AS amount FROM payments WHERE ns = {namespace}";

    public static void main(String[] a) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", a[0]);
        p.put("group.id", a[2]);
        p.put("client.id", a[5]);
        boolean autoCommit = a.length > 6 && a[6].equals("auto-commit");
        p.put("enable.auto.commit", Boolean.toString(autoCommit));
        p.put("auto.offset.reset", "earliest");
        boolean asyncBatch = a.length > 6 && a[6].equals("async-batch");
        boolean clientDefaults = asyncBatch || a.length > 6 && a[6].equals("client-defaults");
        boolean diesOnRedelivery = a.length > 6 && a[6].equals("dies-on-redelivery");
        Path diedOnce = a.length > 6 && a[6].equals("dies-once") ? Path.of(a[3] + "." + a[5] + ".died") : null;
        // GROUP_PROTOCOL=consumer in its environment: KIP-848's protocol, whose session timeout is the group's, not the client's
        boolean consumerProtocol = "consumer".equals(System.getenv("GROUP_PROTOCOL"));
        if (consumerProtocol) {
            p.put("group.protocol", "consumer");
        }
        if (!clientDefaults) {
            p.put("max.poll.interval.ms", "5000");
            if (!consumerProtocol) {
                p.put("session.timeout.ms", "6000");
                p.put("heartbeat.interval.ms", "1500");
            }
        }
        boolean givesUp = a.length > 6 && a[6].equals("gives-up");
        boolean rejoins = a.length > 6 && a[6].equals("rejoins");
        boolean lockedMap = a.length > 6 && a[6].equals("locked-map");
        boolean hangs = a.length > 6 && a[6].equals("hangs");
        int hangsAt = Integer.parseInt(System.getenv().getOrDefault("HANGS_AT", "5"));
        boolean ownOffset = "1".equals(System.getenv("OWN_OFFSET"));
        boolean commitFirst = "1".equals(System.getenv("COMMIT_FIRST"));
        boolean commitsAll = a.length > 6 && a[6].equals("commits-all");
        if (commitsAll) {
            p.put("max.poll.records", "1"); // a position moves only past what poll returned: commitSync() then covers only handled records
        }
        int handled = 0;
        AtomicBoolean firstCommit = new AtomicBoolean(true);
        if (givesUp || rejoins) {
            p.put("request.timeout.ms", "1500");
        }
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        ObjectMapper json = new ObjectMapper();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean gaveUp = new AtomicBoolean();
        KafkaConsumer<String, String> c = new KafkaConsumer<>(p);
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.set(true);
            if (!gaveUp.get()) {
                c.wakeup();
            }
            try {
                main.join(20_000);
            } catch (InterruptedException ignored) {
                // exiting
            }
        }));
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + Path.of(a[3]))) {
            try (Statement s = db.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("PRAGMA busy_timeout=10000");
                s.execute("CREATE TABLE IF NOT EXISTS payments (ns TEXT, msg TEXT, cents INTEGER, PRIMARY KEY (ns, msg))");
            }
            if ("1".equals(System.getenv("ASSIGNS"))) {
                // ASSIGNS=1: Kafka's "standalone" consumer, assigning itself every partition (group.id only for its commits): it never joins
                c.assign(c.partitionsFor(a[1]).stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList());
            } else {
                c.subscribe(List.of(a[1]));
            }
            while (!stop.get()) {
                try {
                    org.apache.kafka.clients.consumer.ConsumerRecords<String, String> batch = c.poll(Duration.ofMillis(200));
                    for (ConsumerRecord<String, String> r : batch) {
                        JsonNode n = json.readTree(r.value());
                        if (hangs && ++handled == hangsAt) {
                            System.err.println("hanging in the database call for " + n.get("id").asText());
                            while (!stop.get()) {
                                Thread.sleep(100); // a call that never returns: the poll loop stops, the heartbeat thread goes on
                            }
                            break;
                        }
                        if (commitFirst) { // COMMIT_FIRST=1: the offset before the effect, a crash between the two loses it
                            c.commitSync(Map.of(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1)));
                        }
                        try (PreparedStatement ins = db.prepareStatement(diesOnRedelivery ? "INSERT INTO payments VALUES (?,?,?)"
                                : "INSERT OR IGNORE INTO payments VALUES (?,?,?)")) {
                            ins.setString(1, a[4]);
                            ins.setString(2, n.get("id").asText());
                            ins.setLong(3, n.get("amount").asLong());
                            if (ins.executeUpdate() == 0 && diedOnce != null && !java.nio.file.Files.exists(diedOnce)) {
                                java.nio.file.Files.writeString(diedOnce, n.get("id").asText());
                                System.err.println("dying at the redelivered " + n.get("id").asText());
                                Runtime.getRuntime().halt(1);
                            }
                        }
                        if (asyncBatch || autoCommit || commitFirst) {
                            continue;
                        }
                        // OWN_OFFSET=1: the common slip of committing the record's own offset, not the next one to read
                        long commit = ownOffset ? r.offset() : r.offset() + 1;
                        Map<TopicPartition, OffsetAndMetadata> next = Map.of(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(commit));
                        // only under a debugger: the map is the debugger's problem, and a 15 s wait in the program's own commit would
                        // also outlast its poll interval (the wire barrier that takes over starts it without one)
                        if (lockedMap && firstCommit.getAndSet(false) && String.valueOf(System.getenv("JAVA_TOOL_OPTIONS")).contains("jdwp")) {
                            next = lockedElsewhere(next);
                        }
                        try {
                            if (commitsAll) {
                                c.commitSync(); // every assigned partition's position, those it has not read from yet too
                            } else if (givesUp || rejoins) {
                                c.commitSync(next, Duration.ofSeconds(3));
                            } else {
                                c.commitSync(next);
                            }
                        } catch (CommitFailedException e) {
                            break;
                        } catch (TimeoutException e) {
                            if (rejoins) {
                                System.out.println("the commit did not answer; joining again: " + e.getMessage());
                                c.unsubscribe();
                                c.subscribe(List.of(a[1]));
                                break;
                            }
                            System.out.println("gave up on the commit: " + e.getMessage());
                            c.close(Duration.ofMillis(500));
                            gaveUp.set(true);
                            while (!stop.get()) {
                                Thread.sleep(100); // alive, with no connection left, until told to stop
                            }
                            return;
                        }
                    }
                    if (asyncBatch && !batch.isEmpty()) {
                        c.commitAsync((offsets, failed) -> {
                            if (failed != null) {
                                System.out.println("commit failed, not retried: " + failed);
                            }
                        });
                    }
                } catch (WakeupException e) {
                    break;
                }
            }
        } finally {
            if (!gaveUp.get()) {
                c.close();
            }
        }
    }

    /** The same offsets in a Map whose reads wait for a lock that another thread takes now, for 15 s. */
    private static Map<TopicPartition, OffsetAndMetadata> lockedElsewhere(Map<TopicPartition, OffsetAndMetadata> offsets) throws InterruptedException {
        java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        java.util.concurrent.CountDownLatch taken = new java.util.concurrent.CountDownLatch(1);
        Thread holder = new Thread(() -> {
            lock.lock();
            try {
                taken.countDown();
                Thread.sleep(15_000); // past the debugger's 6 s read limit
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        }, "lock-holder");
        holder.setDaemon(true);
        holder.start();
        taken.await();
        return new java.util.AbstractMap<>() {
            @Override
            public java.util.Set<Map.Entry<TopicPartition, OffsetAndMetadata>> entrySet() {
                lock.lock();
                try {
                    return offsets.entrySet();
                } finally {
                    lock.unlock();
                }
            }
        };
    }

    /** This consumer as the lab's subject (a Java main class of the test class path). */
    public static Subject subject(String... mode) {
        List<String> args = new java.util.ArrayList<>(List.of("{bootstrap}", "{topic}", "{group}", "{db}", "{namespace}", "{instance}"));
        args.addAll(List.of(mode));
        return Subject.javaMain(ForeignSubjectMain.class, args.toArray(String[]::new));
    }

    public static String template() {
        return template("");
    }

    /** The template with a mode (e.g. {@code gives-up}) after the usual arguments. */
    public static String template(String mode) {
        return Subject.javaCommand(ForeignSubjectMain.class.getName(), ChildProcess.shortLived("-Xmx256m").toArray(String[]::new)) + " {bootstrap} {topic} {group} {db} {namespace} {instance} " + mode;
    }
}
