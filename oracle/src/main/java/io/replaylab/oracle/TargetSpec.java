package io.replaylab.oracle;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.replaylab.evidence.Setting;

/**
 * Where the effects are: any JDBC URL (SQLite, PostgreSQL, …) and a query returning at least
 * {@code message_id, amount} per applied effect. {@code {namespace}} in the query is bound as a
 * parameter, never pasted in. The password never appears in {@link #toString()} nor in
 * {@link #displayUrl()}: it is for the driver only.
 *
 * <pre>{@code
 * TargetSpec.sqlite(Path.of("target.db"), "lab-x/g1");
 * TargetSpec.jdbc("jdbc:postgresql://localhost:5432/lab?user=lab&password=secret", "lab-x/g1"); // credentials leave the URL
 * }</pre>
 */
public record TargetSpec(String jdbcUrl, String namespace, String query, String user, String password, int amountScale) {
    /** The reference projection's effects. */
    public static final String REFERENCE_QUERY = "SELECT message_id, amount FROM ledger WHERE namespace = {namespace}";
    static final String PLACEHOLDER = "{namespace}";
    /** The namespace a query's {@code {namespace}} needs, as the refusal of a query without one says it. */
    public static final Setting NAMESPACE = Setting.of("TargetSpec", "namespace").saidAs("no namespace was given");

    public TargetSpec {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(query, "query");
        if (!jdbcUrl.startsWith("jdbc:")) {
            throw new IllegalArgumentException("a target is a JDBC URL (jdbc:sqlite:FILE, jdbc:postgresql://HOST:PORT/DB), not '"
                    + redact(jdbcUrl) + "'");
        }
        if (query.contains("'" + PLACEHOLDER + "'") || query.contains("\"" + PLACEHOLDER + "\"")) {
            throw new IllegalArgumentException("the target query quotes {namespace}: it is bound as a parameter, so '{namespace}' would be the"
                    + " literal text '?'; write it without quotes: " + query);
        }
        if (amountScale < 0 || amountScale > 18) {
            throw new IllegalArgumentException("the amount scale must be 0..18 decimal digits, was " + amountScale);
        }
        // a query with {namespace} and no namespace is refused when it is read (TargetReader), so that a spec
        // built with the reference query can still take a user's query that needs none
    }

    public TargetSpec(String jdbcUrl, String namespace, String query, String user, String password) {
        this(jdbcUrl, namespace, query, user, password, 0);
    }

    public TargetSpec(String jdbcUrl, String namespace, String query) {
        this(jdbcUrl, namespace, query, null, null, 0);
    }

    /** A SQLite file with the reference schema. */
    public static TargetSpec sqlite(Path db, String namespace) {
        return new TargetSpec("jdbc:sqlite:" + db.toAbsolutePath(), namespace, REFERENCE_QUERY);
    }

    /**
     * Any JDBC URL with the reference schema; {@code user=} and {@code password=} parameters are
     * taken out of the URL into the spec, so the URL can be shown and recorded as it is.
     */
    public static TargetSpec jdbc(String jdbcUrl, String namespace) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        int q = jdbcUrl.indexOf('?');
        if (q < 0) {
            return new TargetSpec(jdbcUrl, namespace, REFERENCE_QUERY);
        }
        String user = null;
        String password = null;
        List<String> kept = new ArrayList<>();
        for (String param : jdbcUrl.substring(q + 1).split("&")) {
            String key = param.contains("=") ? param.substring(0, param.indexOf('=')) : param;
            String value = param.contains("=") ? param.substring(param.indexOf('=') + 1) : "";
            if (key.equalsIgnoreCase("user")) {
                user = java.net.URLDecoder.decode(value, java.nio.charset.StandardCharsets.UTF_8);
            } else if (key.equalsIgnoreCase("password")) {
                password = java.net.URLDecoder.decode(value, java.nio.charset.StandardCharsets.UTF_8);
            } else if (!param.isEmpty()) {
                kept.add(param);
            }
        }
        String url = jdbcUrl.substring(0, q) + (kept.isEmpty() ? "" : "?" + String.join("&", kept));
        return new TargetSpec(url, namespace, REFERENCE_QUERY, user, password, 0);
    }

    public TargetSpec query(String sql) {
        return new TargetSpec(jdbcUrl, namespace, sql, user, password, amountScale);
    }

    public TargetSpec namespace(String ns) {
        return new TargetSpec(jdbcUrl, ns, query, user, password, amountScale);
    }

    /** The same target logged in as {@code user} with {@code password} (either may be null: the URL's or the driver's default). */
    public TargetSpec credentials(String user, String password) {
        return new TargetSpec(jdbcUrl, namespace, query, user, password, amountScale);
    }

    /** The same database with another URL (e.g. one more driver parameter), credentials kept. */
    public TargetSpec url(String otherJdbcUrl) {
        return new TargetSpec(otherJdbcUrl, namespace, query, user, password, amountScale);
    }

    /**
     * The same target whose amounts are decimals turned into minor units with {@code scale} digits,
     * as the source's are ({@link SourceMapping#amountScale()}): {@code 12.50} reads as {@code 1250}
     * with scale 2; an amount with more digits stays a decimal, which matches no source amount.
     */
    public TargetSpec amountScale(int scale) {
        return new TargetSpec(jdbcUrl, namespace, query, user, password, scale);
    }

    /** Whether the query binds {@code {namespace}} (then a namespace is needed to read it). */
    public boolean usesNamespace() {
        return query.contains(PLACEHOLDER);
    }

    public boolean isSqlite() {
        return jdbcUrl.startsWith("jdbc:sqlite:");
    }

    /** The URL as it may be printed and recorded: a password left in it is masked. */
    public String displayUrl() {
        return redact(jdbcUrl);
    }

    @Override
    public String toString() {
        return "TargetSpec[" + displayUrl() + (user != null ? " as " + user : "") + (password != null ? " (password given)" : "")
                + ", namespace=" + namespace + ", query=" + query + (amountScale == 0 ? "" : ", amountScale=" + amountScale) + "]";
    }

    /** Masks {@code password=...} parameters and the password of a {@code user:password@host} authority, in a URL or any text holding one. */
    public static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***").replaceAll("(//[^/@:]*:)[^/@]*@", "$1***@");
    }
}
