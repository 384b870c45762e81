package io.replaylab.oracle;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.replaylab.evidence.Status;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The independent judge: reads the source topic up to a cut and the target's effects, and compares
 * exact identities and amounts (SPEC R6, R11, R12, R16). It trusts neither the consumer's logs nor
 * its counters. Both sides are staged in a scratch SQLite file and compared with SQL, so memory
 * stays bounded whatever the topic's size.
 *
 * <pre>{@code
 * Cut cut = Oracle.cut(bootstrap, "lab-x.source");
 * Comparison c = Oracle.compare(SourceSpec.topic(bootstrap, "lab-x.source").upTo(cut),
 *         TargetSpec.sqlite(Path.of("target.db"), "lab-x/g1"), committedOffsets);
 * TargetSnapshot before = Oracle.snapshot(TargetSpec.sqlite(db, "lab-x/g1"), Path.of("before.tsv"));
 * }</pre>
 */
public final class Oracle {
    private static final Logger log = LoggerFactory.getLogger(Oracle.class);
    private static final Duration READ_TIMEOUT = Duration.ofMinutes(5);

    private Oracle() {
    }

    /** The topic's end offsets now. */
    public static Cut cut(String bootstrap, String topic) {
        try (KafkaConsumer<String, String> c = consumer(bootstrap)) {
            List<TopicPartition> parts = partitions(c, topic);
            Map<Integer, Long> end = new HashMap<>();
            c.endOffsets(parts, Duration.ofSeconds(30)).forEach((tp, o) -> end.put(tp.partition(), o));
            return new Cut(topic, Instant.now(), end);
        }
    }

    public static Comparison compare(SourceSpec source, TargetSpec target) {
        return compare(source, target, null);
    }

    /** Compares source and target; with {@code committed} (a describe of the group) it also checks the frontier (R11). */
    public static Comparison compare(SourceSpec source, TargetSpec target, OffsetSnapshot committed) {
        Cut cut = source.cut() != null ? source.cut() : cut(source.bootstrap(), source.topic());
        Path scratch = null;
        try {
            scratch = Files.createTempFile("replay-lab-oracle-", ".db");
            try (Connection s = DriverManager.getConnection("jdbc:sqlite:" + scratch)) {
                try (Statement st = s.createStatement()) {
                    st.execute("PRAGMA journal_mode=OFF");
                    st.execute("PRAGMA synchronous=OFF");
                    st.execute("PRAGMA cache_size=-16000");
                    st.execute("CREATE TABLE source (partition INTEGER, \"offset\" INTEGER, message_id TEXT, amount TEXT)");
                    st.execute("CREATE TABLE malformed (partition INTEGER, \"offset\" INTEGER, reason TEXT)");
                    st.execute("CREATE TABLE target (message_id TEXT, amount TEXT)");
                }
                long t0 = System.nanoTime();
                readSource(source, cut, s);
                long t1 = System.nanoTime();
                readTarget(target, s);
                long t2 = System.nanoTime();
                try (Statement st = s.createStatement()) {
                    st.execute("CREATE INDEX source_id ON source (message_id)");
                    st.execute("CREATE INDEX target_id ON target (message_id)");
                    st.execute("CREATE INDEX source_pos ON source (partition, \"offset\")");
                }
                Comparison c = judge(s, cut, target.namespace(), committed);
                log.info("oracle: source {} ms, target {} ms, compare {} ms: {}", (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000,
                        (System.nanoTime() - t2) / 1_000_000, c.counts());
                return c;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("oracle scratch database failed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (scratch != null) {
                try {
                    Files.deleteIfExists(scratch);
                } catch (IOException ignored) {
                    // temp file
                }
            }
        }
    }

    /** Saves the target's (identity, amount) rows, ordered, to {@code file} and returns count and digest (SPEC R6). */
    public static TargetSnapshot snapshot(TargetSpec target, Path file) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        long rows = 0;
        try (HikariDataSource ds = pool(target);
             Connection c = ds.getConnection();
             PreparedStatement q = prepare(c, "SELECT message_id, amount FROM (" + target.query() + ") ORDER BY message_id, amount", target);
             ResultSet rs = q.executeQuery();
             BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            while (rs.next()) {
                String line = rs.getString(1) + "\t" + exact(rs, 2) + "\n";
                w.write(line);
                sha.update(line.getBytes(StandardCharsets.UTF_8));
                rows++;
            }
        } catch (SQLException e) {
            throw targetError(target, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write snapshot " + file, e);
        }
        return new TargetSnapshot(file, rows, HexFormat.of().formatHex(sha.digest()));
    }

    /** The parsed record at one offset (e.g. the one a held consumer is about to commit past), or empty if absent. */
    public static java.util.Optional<RecordParser.Parsed> recordAt(SourceSpec spec, int partition, long offset) {
        try (KafkaConsumer<String, String> c = consumer(spec.bootstrap())) {
            TopicPartition tp = new TopicPartition(spec.topic(), partition);
            c.assign(List.of(tp));
            c.seek(tp, offset);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(300))) {
                    if (r.offset() == offset) {
                        return java.util.Optional.of(spec.parser().parse(r.key(), r.value()));
                    }
                    if (r.offset() > offset) {
                        return java.util.Optional.empty();
                    }
                }
            }
            return java.util.Optional.empty();
        }
    }

    /** How many effects the target holds for one identity (its query, its namespace). */
    public static long effectsOf(TargetSpec target, String messageId) {
        try (HikariDataSource ds = pool(target);
             Connection c = ds.getConnection();
             PreparedStatement q = prepare(c, "SELECT count(*) FROM (" + target.query() + ") WHERE message_id = ?", target)) {
            int n = q.getParameterMetaData().getParameterCount();
            q.setString(n, messageId);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw targetError(target, e);
        }
    }

    private static void readSource(SourceSpec spec, Cut cut, Connection s) throws SQLException {
        s.setAutoCommit(false);
        try (KafkaConsumer<String, String> c = consumer(spec.bootstrap());
             PreparedStatement ok = s.prepareStatement("INSERT INTO source VALUES (?,?,?,?)");
             PreparedStatement bad = s.prepareStatement("INSERT INTO malformed VALUES (?,?,?)")) {
            for (Map.Entry<Integer, Long> e : cut.endOffsets().entrySet()) {
                TopicPartition tp = new TopicPartition(cut.topic(), e.getKey());
                long end = e.getValue();
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
                int batch = 0;
                while (c.position(tp) < end) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("could not read " + tp + " up to the cut " + end + " within " + READ_TIMEOUT
                                + " (at " + c.position(tp) + ")");
                    }
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                        if (r.offset() >= end) {
                            break; // beyond the cut: not part of this comparison
                        }
                        RecordParser.Parsed p = spec.parser().parse(r.key(), r.value());
                        if (p.ok()) {
                            ok.setInt(1, r.partition());
                            ok.setLong(2, r.offset());
                            ok.setString(3, p.id());
                            ok.setString(4, Long.toString(p.amount()));
                            ok.addBatch();
                        } else {
                            bad.setInt(1, r.partition());
                            bad.setLong(2, r.offset());
                            bad.setString(3, p.malformedReason());
                            bad.addBatch();
                        }
                        if (++batch % 5000 == 0) {
                            ok.executeBatch();
                            bad.executeBatch();
                        }
                    }
                }
                ok.executeBatch();
                bad.executeBatch();
            }
        }
        s.commit();
    }

    private static void readTarget(TargetSpec target, Connection s) throws SQLException {
        s.setAutoCommit(false);
        try (HikariDataSource ds = pool(target);
             Connection c = ds.getConnection();
             PreparedStatement q = prepare(c, target.query(), target);
             PreparedStatement ins = s.prepareStatement("INSERT INTO target VALUES (?,?)")) {
            q.setFetchSize(5000);
            try (ResultSet rs = q.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                int idCol = column(md, "message_id", target);
                int amountCol = column(md, "amount", target);
                int n = 0;
                while (rs.next()) {
                    ins.setString(1, rs.getString(idCol));
                    ins.setString(2, exact(rs, amountCol));
                    ins.addBatch();
                    if (++n % 5000 == 0) {
                        ins.executeBatch();
                    }
                }
                ins.executeBatch();
            }
        } catch (SQLException e) {
            throw targetError(target, e);
        }
        s.commit();
    }

    private static Comparison judge(Connection s, Cut cut, String namespace, OffsetSnapshot committed) throws SQLException {
        long source = count(s, "SELECT count(*) FROM source");
        long effects = count(s, "SELECT count(*) FROM target");
        Finding missing = finding(s, "missing",
                "FROM source s WHERE NOT EXISTS (SELECT 1 FROM target t WHERE t.message_id = s.message_id)",
                "SELECT s.message_id || ' (p' || s.partition || '@' || s.\"offset\" || ', amount ' || s.amount || ')' ", "ORDER BY s.partition, s.\"offset\"");
        Finding duplicated = finding(s, "duplicated", "FROM (SELECT message_id, count(*) n FROM target GROUP BY message_id HAVING n > 1) d",
                "SELECT d.message_id || ' x' || d.n ", "ORDER BY d.message_id");
        Finding unexpected = finding(s, "unexpected",
                "FROM (SELECT DISTINCT message_id FROM target t WHERE NOT EXISTS (SELECT 1 FROM source s WHERE s.message_id = t.message_id)) u",
                "SELECT u.message_id ", "ORDER BY u.message_id");
        Finding mismatched = finding(s, "mismatched",
                "FROM target t JOIN source s ON s.message_id = t.message_id WHERE t.amount <> s.amount",
                "SELECT t.message_id || ' source ' || s.amount || ' target ' || t.amount ", "ORDER BY t.message_id");
        Finding malformed = finding(s, "malformed", "FROM malformed m", "SELECT 'p' || m.partition || '@' || m.\"offset\" || ': ' || m.reason ",
                "ORDER BY m.partition, m.\"offset\"");
        Finding sourceDuplicates = finding(s, "source-duplicates",
                "FROM (SELECT message_id, count(*) n FROM source GROUP BY message_id HAVING n > 1) d",
                "SELECT d.message_id || ' at ' || d.n || ' offsets' ", "ORDER BY d.message_id");
        Finding holes = committed == null ? null : holes(s, cut, committed);
        List<String> bad = new ArrayList<>();
        for (Finding f : new Finding[] {missing, duplicated, unexpected, mismatched, holes}) {
            if (f != null && f.count() > 0) {
                bad.add(f.count() + " " + f.kind());
            }
        }
        Status status = bad.isEmpty() ? Status.PASS : Status.FAIL;
        String reason = bad.isEmpty() ? source + " source records, " + effects + " effects: every identity and amount matches"
                + (malformed.count() > 0 ? "; " + malformed.count() + " malformed source record(s) listed" : "")
                : String.join(", ", bad);
        return new Comparison(status, reason, cut, namespace, source, effects, missing, duplicated, unexpected, mismatched, malformed,
                sourceDuplicates, holes);
    }

    /** The lowest offset below each partition's committed offset whose record has no effect. */
    private static Finding holes(Connection s, Cut cut, OffsetSnapshot committed) throws SQLException {
        long count = 0;
        List<String> examples = new ArrayList<>();
        try (PreparedStatement q = s.prepareStatement("SELECT s.\"offset\", s.message_id, "
                + "(SELECT count(*) FROM source s2 WHERE s2.partition = s.partition AND s2.\"offset\" < ? "
                + "AND NOT EXISTS (SELECT 1 FROM target t2 WHERE t2.message_id = s2.message_id)) "
                + "FROM source s WHERE s.partition = ? AND s.\"offset\" < ? "
                + "AND NOT EXISTS (SELECT 1 FROM target t WHERE t.message_id = s.message_id) ORDER BY s.\"offset\" LIMIT 1")) {
            for (PartitionOffsets p : committed.partitions()) {
                if (!p.topic().equals(cut.topic()) || !p.hasCommitted()) {
                    continue;
                }
                q.setLong(1, p.committed());
                q.setInt(2, p.partition());
                q.setLong(3, p.committed());
                try (ResultSet rs = q.executeQuery()) {
                    if (rs.next()) {
                        count += rs.getLong(3);
                        if (examples.size() < Finding.EXAMPLES) {
                            examples.add(p.topic() + "-" + p.partition() + " committed " + p.committed() + " but offset " + rs.getLong(1)
                                    + " (" + rs.getString(2) + ") has no effect");
                        }
                    }
                }
            }
        }
        return new Finding("holes", count, examples);
    }

    private static Finding finding(Connection s, String kind, String from, String select, String order) throws SQLException {
        long count = count(s, "SELECT count(*) " + from);
        List<String> examples = new ArrayList<>();
        if (count > 0) {
            try (Statement st = s.createStatement(); ResultSet rs = st.executeQuery(select + from + " " + order + " LIMIT " + Finding.EXAMPLES)) {
                while (rs.next()) {
                    examples.add(rs.getString(1));
                }
            }
        }
        return new Finding(kind, count, examples);
    }

    private static long count(Connection s, String sql) throws SQLException {
        try (Statement st = s.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** An amount as exact text: integers and exact decimals; floating point is refused. */
    private static String exact(ResultSet rs, int col) throws SQLException {
        Object v = rs.getObject(col);
        if (v == null) {
            throw new IllegalArgumentException("target row with message_id " + rs.getString(1) + " has a NULL amount");
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof BigInteger) {
            return v.toString();
        }
        if (v instanceof BigDecimal d) {
            return d.stripTrailingZeros().toPlainString();
        }
        if (v instanceof String str) {
            try {
                return new BigDecimal(str.trim()).stripTrailingZeros().toPlainString();
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("target amount '" + str + "' is not a number");
            }
        }
        throw new IllegalArgumentException("target amounts must be exact (integer or decimal), but a row holds a "
                + v.getClass().getSimpleName() + " (" + v + "); floating point cannot be compared exactly");
    }

    private static int column(ResultSetMetaData md, String name, TargetSpec target) throws SQLException {
        for (int i = 1; i <= md.getColumnCount(); i++) {
            if (md.getColumnLabel(i).equalsIgnoreCase(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("the target query must return a column named '" + name + "': " + target.query());
    }

    /** Binds every {namespace} as a parameter: it is never pasted into the SQL text. */
    private static PreparedStatement prepare(Connection c, String query, TargetSpec target) throws SQLException {
        int n = 0;
        Matcher m = java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(TargetSpec.PLACEHOLDER)).matcher(query);
        while (m.find()) {
            n++;
        }
        PreparedStatement ps = c.prepareStatement(query.replace(TargetSpec.PLACEHOLDER, "?"));
        for (int i = 1; i <= n; i++) {
            ps.setString(i, target.namespace());
        }
        return ps;
    }

    private static HikariDataSource pool(TargetSpec target) {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(target.jdbcUrl());
        cfg.setMaximumPoolSize(1);
        cfg.setPoolName("oracle-target");
        cfg.setInitializationFailTimeout(-1);
        if (target.jdbcUrl().startsWith("jdbc:sqlite:")) {
            Path file = Path.of(target.jdbcUrl().substring("jdbc:sqlite:".length()));
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException("target database " + file + " does not exist");
            }
            cfg.addDataSourceProperty("open_mode", "1"); // SQLITE_OPEN_READONLY: the oracle never writes the target
        }
        cfg.setReadOnly(true);
        cfg.setConnectionTimeout(10_000);
        return new HikariDataSource(cfg);
    }

    private static RuntimeException targetError(TargetSpec target, SQLException e) {
        return new IllegalArgumentException("cannot read the target (" + target.jdbcUrl() + ") with query [" + target.query() + "]: "
                + e.getMessage(), e);
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 8 * 1024 * 1024);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "replay-lab-oracle");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    private static List<TopicPartition> partitions(KafkaConsumer<String, String> c, String topic) {
        List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException("topic '" + topic + "' does not exist");
        }
        return infos.stream().map(i -> new TopicPartition(topic, i.partition())).sorted(java.util.Comparator.comparingInt(TopicPartition::partition)).toList();
    }
}
