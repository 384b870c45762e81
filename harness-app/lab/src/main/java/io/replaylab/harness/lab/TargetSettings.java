package io.replaylab.harness.lab;

import java.util.Objects;
import java.util.Optional;

import io.replaylab.oracle.TargetSpec;

/**
 * The database the subjects write and the oracle reads (part of {@link LabSettings}). By default a
 * SQLite file per experiment in the run directory ({@link #isSqlite()}); else the PostgreSQL database
 * at {@link #jdbcUrl()}, in a schema the run creates. {@link #toString()} never shows the password,
 * neither the one given here nor one inside the URL.
 *
 * @param jdbcUrl  a {@code jdbc:postgresql:} URL (user and password may be in it); empty: SQLite in the run directory
 * @param user     the database user, when not in the URL
 * @param password the user's password, when not in the URL
 * @param query    how the oracle reads the target's effects; empty: the reference schema's query
 */
public record TargetSettings(Optional<String> jdbcUrl, Optional<String> user, Optional<String> password, Optional<String> query) {
    public TargetSettings {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(query, "query");
    }

    /** Whether the target is the default, a SQLite file per experiment in the run directory. */
    public boolean isSqlite() {
        return jdbcUrl.isEmpty();
    }

    @Override
    public String toString() {
        return jdbcUrl.map(url -> TargetSpec.jdbc(url, "-").displayUrl()).orElse("SQLite in the run directory")
                + user.map(u -> " as " + u).orElse("") + (password.isPresent() ? " (password given)" : "")
                + query.map(q -> ", query " + q).orElse("");
    }
}
