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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.replaylab.evidence.BadInputException;

/**
 * Every JDBC read of the oracle, through a {@link Target}'s pool and its spec's query: the rows into a
 * join, a snapshot, one identity's count, the query tried. Amounts are read exactly or refused.
 */
final class TargetReader {
    private TargetReader() {
    }

    /** Spills the target's (identity, amount) rows into the join; stops early when the join is abandoned. */
    static void readInto(Target t, BucketJoin join) throws IOException {
        TargetSpec target = t.spec();
        // SQLite hands TEXT out as its UTF-8 bytes: no decode to a String and encode back per row
        boolean utf8Text = target.isSqlite();
        try (Connection c = t.connection();
             PreparedStatement q = prepare(c, target.query(), target)) {
            streamRows(c, q);
            try (ResultSet rs = q.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                int idCol = column(md, "message_id", target);
                int amountCol = column(md, "amount", target);
                while (rs.next() && !join.abandoned()) {
                    byte[] id = utf8Text ? rs.getBytes(idCol) : utf8(rs.getString(idCol));
                    if (id == null) {
                        throw new IllegalArgumentException("a target row has a NULL message_id (query: " + target.query() + ")");
                    }
                    Object amount = rs.getObject(amountCol);
                    if (target.amountScale() > 0) {
                        join.target(id, scaled(amount, target.amountScale(), new String(id, StandardCharsets.UTF_8)));
                    } else if (amount instanceof Long || amount instanceof Integer || amount instanceof Short) {
                        join.target(id, ((Number) amount).longValue());
                    } else {
                        join.target(id, exact(amount, new String(id, StandardCharsets.UTF_8)));
                    }
                }
            }
        } catch (SQLException e) {
            throw targetError(target, e);
        }
    }

    /** See {@link Target#snapshot(Path)}. */
    static TargetSnapshot snapshot(Target target, Path file) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        BigInteger sum = BigInteger.ZERO;
        long rows = 0;
        TargetSpec spec = target.spec();
        try (Connection c = target.connection();
             PreparedStatement q = prepare(c, spec.query(), spec);
             BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            streamRows(c, q);
            try (ResultSet rs = q.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                int idCol = column(md, "message_id", spec);
                int amountCol = column(md, "amount", spec);
                while (rs.next()) {
                    String id = rs.getString(idCol);
                    if (id == null) {
                        throw new IllegalArgumentException("a target row has a NULL message_id (query: " + spec.query() + ")");
                    }
                    String line = id + "\t" + (spec.amountScale() > 0 ? scaled(rs.getObject(amountCol), spec.amountScale(), id)
                            : exact(rs.getObject(amountCol), id)) + "\n";
                    w.write(line);
                    sum = sum.add(new BigInteger(1, sha.digest(line.getBytes(StandardCharsets.UTF_8))));
                    rows++;
                }
            }
        } catch (SQLException e) {
            throw targetError(spec, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write snapshot " + file, e);
        }
        byte[] digest = sum.mod(BigInteger.ONE.shiftLeft(256)).toByteArray();
        byte[] fixed = new byte[32]; // the sum as exactly 32 big-endian bytes
        int n = Math.min(32, digest.length);
        System.arraycopy(digest, digest.length - n, fixed, 32 - n, n);
        return new TargetSnapshot(file, rows, HexFormat.of().formatHex(fixed));
    }

    /** See {@link Target#checkQuery()}. */
    static void checkQuery(Target target) {
        TargetSpec spec = target.spec();
        try (Connection c = target.connection();
             PreparedStatement q = prepare(c, "SELECT message_id, amount FROM (" + spec.query() + ") effects WHERE 1 = 0", spec);
             ResultSet rs = q.executeQuery()) {
            rs.next(); // no row: what matters is that the query ran and has both columns
        } catch (SQLException e) {
            throw targetError(spec, e);
        }
    }

    /** See {@link Target#effectsOf(String)}. */
    static long effectsOf(Target target, String messageId) {
        TargetSpec spec = target.spec();
        try (Connection c = target.connection();
             PreparedStatement q = prepare(c, "SELECT count(*) FROM (" + spec.query() + ") effects WHERE message_id = ?", spec)) {
            int n = q.getParameterMetaData().getParameterCount();
            q.setString(n, messageId);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw targetError(spec, e);
        }
    }

    /** See {@link Target#withEffects(Collection)}: one query per 500 ids, by the target's own query. */
    static Set<String> withEffects(Target target, Collection<String> messageIds) {
        TargetSpec spec = target.spec();
        Set<String> out = new HashSet<>();
        List<String> all = List.copyOf(new LinkedHashSet<>(messageIds));
        try (Connection c = target.connection()) {
            for (int from = 0; from < all.size(); from += 500) {
                List<String> chunk = all.subList(from, Math.min(all.size(), from + 500));
                String in = String.join(", ", Collections.nCopies(chunk.size(), "?"));
                try (PreparedStatement q = prepare(c, "SELECT DISTINCT message_id FROM (" + spec.query() + ") effects WHERE message_id IN (" + in + ")", spec)) {
                    int n = q.getParameterMetaData().getParameterCount() - chunk.size();
                    for (int i = 0; i < chunk.size(); i++) {
                        q.setString(n + i + 1, chunk.get(i));
                    }
                    try (ResultSet rs = q.executeQuery()) {
                        while (rs.next()) {
                            out.add(rs.getString(1));
                        }
                    }
                }
            }
            return out;
        } catch (SQLException e) {
            throw targetError(spec, e);
        }
    }

    /** See {@link Target#readsMayBlockWriters()}. */
    static Optional<String> readsMayBlockWriters(Target target) {
        TargetSpec spec = target.spec();
        if (!spec.isSqlite()) {
            return Optional.empty(); // PostgreSQL: a read takes no lock a writer waits for (MVCC)
        }
        try (Connection c = target.connection(); java.sql.Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
            String mode = rs.next() ? rs.getString(1) : "unknown";
            return "wal".equalsIgnoreCase(mode) ? Optional.empty() : Optional.of("the SQLite target is in journal mode '" + mode
                    + "', not WAL: a read holds a shared lock while it runs, which can make the subject's COMMIT wait or fail busy");
        } catch (SQLException e) {
            throw targetError(spec, e);
        }
    }

    /** Rows in batches, not the whole result in memory: PostgreSQL streams with a fetch size only inside a transaction. */
    private static void streamRows(Connection c, PreparedStatement q) throws SQLException {
        c.setAutoCommit(false); // the pool rolls back and restores auto-commit when the connection returns
        q.setFetchSize(5000);
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** An amount in minor units ({@code scale} decimal digits moved left of the point), as exact text. */
    private static String scaled(Object v, int scale, String id) {
        return new BigDecimal(exact(v, id)).movePointRight(scale).stripTrailingZeros().toPlainString();
    }

    /** An amount as exact text: integers and exact decimals; floating point is refused. */
    private static String exact(Object v, String id) {
        if (v == null) {
            throw new IllegalArgumentException("target row with message_id " + id + " has a NULL amount");
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
                throw new IllegalArgumentException("target amount '" + str + "' of message_id " + id + " is not a number");
            }
        }
        throw new IllegalArgumentException("target amounts must be exact (integer or decimal), but message_id " + id + " holds a "
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
        if (query.contains(TargetSpec.PLACEHOLDER) && target.namespace() == null) {
            throw new BadInputException("the target query uses {namespace} but " + TargetSpec.NAMESPACE + ": " + query, TargetSpec.NAMESPACE);
        }
        int n = 0;
        Matcher m = Pattern.compile(Pattern.quote(TargetSpec.PLACEHOLDER)).matcher(query);
        while (m.find()) {
            n++;
        }
        PreparedStatement ps = c.prepareStatement(query.replace(TargetSpec.PLACEHOLDER, "?"));
        for (int i = 1; i <= n; i++) {
            ps.setString(i, target.namespace());
        }
        return ps;
    }

    /**
     * A connection that failed (SQLState class 08), a login refused (28) or a database that does
     * not exist (3D) means the target could not be read: {@link OracleReadException}. Anything else
     * is the query's fault. The URL is shown without its password.
     */
    static RuntimeException targetError(TargetSpec target, SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null
                    && (s.getSQLState().startsWith("08") || s.getSQLState().startsWith("28") || s.getSQLState().startsWith("3D"))) {
                return new OracleReadException("cannot connect to the target (" + target.displayUrl()
                        + (target.user() != null ? " as " + target.user() : "") + "): " + s.getMessage(), e);
            }
        }
        return new IllegalArgumentException("cannot read the target (" + target.displayUrl() + ") with query [" + target.query() + "]: "
                + e.getMessage(), e);
    }
}
