package io.replaylab.evidence;

import java.util.Map;
import java.util.Objects;

/**
 * Something a run creates outside its run directory (a namespace of topics and groups on a
 * broker, a database schema), journaled by {@link RunRecorder#owns} as soon as it exists, so that
 * whoever cleans up after a run that died ({@link RunJournal}) knows what it left and where.
 *
 * @param kind  what it is, in the owner's words (e.g. {@code kafka-namespace})
 * @param name  its name there (e.g. the namespace's prefix)
 * @param where how to reach it (e.g. {@code bootstrap}, {@code cluster}); never a password
 */
public record Resource(String kind, String name, Map<String, String> where) {
    public Resource {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        where = where == null ? Map.of() : Map.copyOf(where);
    }

    /** One of {@link #where}, or null. */
    public String at(String key) {
        return where.get(key);
    }
}
