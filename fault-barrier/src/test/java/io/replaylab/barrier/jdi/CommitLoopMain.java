package io.replaylab.barrier.jdi;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

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
 * protocol(classic|consumer) maxPollIntervalMs sessionTimeoutMs(classic; 0 = default) db clientId [options]; options:
 * {@code tx}: each effect is its own transaction that ends in {@code Connection#commit} (else autocommit does it);
 * {@code map=KIND}: the Map it commits (see {@link #offsets}; default {@code Map.of});
 * {@code empty-first}: before each commit, a {@code commitSync} of an empty {@code Map.of()} and of {@code Collections.emptyMap()};
 * {@code positions}: {@code commitSync()}, the consumer's own positions, instead of a Map.
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
            List<String> options = List.of(a).subList(8, a.length);
            boolean tx = options.contains("tx");
            String kind = options.stream().filter(o -> o.startsWith("map=")).map(o -> o.substring(4)).findFirst().orElse("of");
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
                    if (options.contains("empty-first")) {
                        c.commitSync(Map.of());
                        c.commitSync(Collections.emptyMap());
                        System.out.println("empty commitSyncs returned");
                    }
                    System.out.println("calling commitSync " + r.partition() + "@" + (r.offset() + 1));
                    try {
                        if (options.contains("positions")) {
                            c.commitSync(); // its own positions: past the one record poll returned
                        } else {
                            c.commitSync(offsets(kind, new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1)));
                        }
                        System.out.println("commit accepted");
                    } catch (CommitFailedException e) {
                        System.out.println("commit rejected: " + e.getMessage());
                        break;
                    }
                }
            }
        }
    }

    /**
     * The one-entry map a commit passes, of the kind named: {@code of} ({@code Map.of}), {@code tree}, {@code singleton},
     * {@code concurrent}, {@code own} (a Map class of this program's), {@code locked} (one whose methods wait for a lock that
     * another thread takes for {@link LockedOffsets#HOLD} just before the commit).
     */
    static Map<TopicPartition, OffsetAndMetadata> offsets(String kind, TopicPartition tp, OffsetAndMetadata om) throws InterruptedException {
        switch (kind) {
            case "of":
                return Map.of(tp, om);
            case "tree":
                Map<TopicPartition, OffsetAndMetadata> tree = new TreeMap<>(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
                tree.put(tp, om);
                return tree;
            case "singleton":
                return Collections.singletonMap(tp, om);
            case "concurrent":
                Map<TopicPartition, OffsetAndMetadata> concurrent = new ConcurrentHashMap<>();
                concurrent.put(tp, om);
                return concurrent;
            case "own":
                return new OwnOffsets(tp, om);
            case "locked":
                LockedOffsets locked = new LockedOffsets(tp, om);
                locked.lockElsewhere();
                return locked;
            default:
                throw new IllegalArgumentException("no map kind " + kind);
        }
    }

    /** A Map class of the program's own: no field a debugger knows, and its entry class is first loaded by whoever reads it. */
    static class OwnOffsets extends AbstractMap<TopicPartition, OffsetAndMetadata> {
        private final TopicPartition[] partitions;
        private final OffsetAndMetadata[] positions;

        OwnOffsets(TopicPartition tp, OffsetAndMetadata om) {
            partitions = new TopicPartition[] {tp};
            positions = new OffsetAndMetadata[] {om};
        }

        @Override
        public Set<Entry<TopicPartition, OffsetAndMetadata>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Entry<TopicPartition, OffsetAndMetadata>> iterator() {
                    return new Iterator<>() {
                        private int next;

                        @Override
                        public boolean hasNext() {
                            return next < partitions.length;
                        }

                        @Override
                        public Entry<TopicPartition, OffsetAndMetadata> next() {
                            if (!hasNext()) {
                                throw new NoSuchElementException();
                            }
                            next++;
                            return new Pair(next - 1);
                        }
                    };
                }

                @Override
                public int size() {
                    return partitions.length;
                }
            };
        }

        private final class Pair implements Entry<TopicPartition, OffsetAndMetadata> {
            private final int at;

            Pair(int at) {
                this.at = at;
            }

            @Override
            public TopicPartition getKey() {
                return partitions[at];
            }

            @Override
            public OffsetAndMetadata getValue() {
                return positions[at];
            }

            @Override
            public OffsetAndMetadata setValue(OffsetAndMetadata v) {
                throw new UnsupportedOperationException();
            }
        }
    }

    /** Its entries are read under a lock; {@link #lockElsewhere} has another thread take it for {@link #HOLD} first. */
    static final class LockedOffsets extends OwnOffsets {
        static final Duration HOLD = Duration.ofSeconds(15); // well past the debugger's 6 s read limit
        private final ReentrantLock lock = new ReentrantLock();

        LockedOffsets(TopicPartition tp, OffsetAndMetadata om) {
            super(tp, om);
        }

        void lockElsewhere() throws InterruptedException {
            CountDownLatch taken = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                lock.lock();
                try {
                    taken.countDown();
                    Thread.sleep(HOLD.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lock.unlock();
                }
            }, "lock-holder");
            holder.setDaemon(true);
            holder.start();
            taken.await();
        }

        @Override
        public Set<Entry<TopicPartition, OffsetAndMetadata>> entrySet() {
            lock.lock();
            try {
                return super.entrySet();
            } finally {
                lock.unlock();
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
