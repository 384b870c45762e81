package io.replaylab.oracle;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

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
public record TargetSpec(String jdbcUrl, String namespace, String query, String user, String password) {
    /** The reference projection's effects. */
    public static final String REFERENCE_QUERY = "SELECT message_id, amount FROM ledger WHERE namespace = {namespace}";
    static final String PLACEHOLDER = "{namespace}";

    public TargetSpec {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(query, "query");
        if (!jdbcUrl.startsWith("jdbc:")) {
            throw new IllegalArgumentException("a target is a JDBC URL (jdbc:sqlite:FILE, jdbc:postgresql://HOST:PORT/DB), not '"
                    + redact(jdbcUrl) + "'");
        }
        if (query.contains(PLACEHOLDER) && namespace == null) {
            throw new IllegalArgumentException("the target query uses {namespace} but no namespace was given");
        }
    }

    public TargetSpec(String jdbcUrl, String namespace, String query) {
        this(jdbcUrl, namespace, query, null, null);
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
        return new TargetSpec(url, namespace, REFERENCE_QUERY, user, password);
    }

    public TargetSpec query(String sql) {
        return new TargetSpec(jdbcUrl, namespace, sql, user, password);
    }

    public TargetSpec namespace(String ns) {
        return new TargetSpec(jdbcUrl, ns, query, user, password);
    }

    /** The same target logged in as {@code user} with {@code password} (either may be null: the URL's or the driver's default). */
    public TargetSpec credentials(String user, String password) {
        return new TargetSpec(jdbcUrl, namespace, query, user, password);
    }

    /** The same database with another URL (e.g. one more driver parameter), credentials kept. */
    public TargetSpec url(String otherJdbcUrl) {
        return new TargetSpec(otherJdbcUrl, namespace, query, user, password);
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
                + ", namespace=" + namespace + ", query=" + query + "]";
    }

    /** Masks {@code password=...} parameters and the password of a {@code user:password@host} authority. */
    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***").replaceAll("(//[^/@:]*:)[^/@]*@", "$1***@");
    }
}
