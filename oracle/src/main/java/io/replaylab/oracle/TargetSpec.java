package io.replaylab.oracle;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the effects are: any JDBC URL and a query returning at least {@code message_id, amount}
 * per applied effect. {@code {namespace}} in the query is bound as a parameter, never pasted in.
 */
public record TargetSpec(String jdbcUrl, String namespace, String query) {
    /** The reference projection's effects. */
    public static final String REFERENCE_QUERY = "SELECT message_id, amount FROM ledger WHERE namespace = {namespace}";
    static final String PLACEHOLDER = "{namespace}";

    public TargetSpec {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(query, "query");
        if (query.contains(PLACEHOLDER) && namespace == null) {
            throw new IllegalArgumentException("the target query uses {namespace} but no namespace was given");
        }
    }

    /** A SQLite file with the reference schema. */
    public static TargetSpec sqlite(Path db, String namespace) {
        return new TargetSpec("jdbc:sqlite:" + db.toAbsolutePath(), namespace, REFERENCE_QUERY);
    }

    public TargetSpec query(String sql) {
        return new TargetSpec(jdbcUrl, namespace, sql);
    }

    public TargetSpec namespace(String ns) {
        return new TargetSpec(jdbcUrl, ns, query);
    }
}
