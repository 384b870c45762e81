package io.replaylab.evidence;

import java.util.Objects;

/** A file saved with the run (plan, log, snapshot), by its path relative to the run directory. */
public record Artifact(String path, String description) {
    public Artifact {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(description, "description");
        if (path.startsWith("/") || path.contains("..")) {
            throw new IllegalArgumentException("artifact path must be relative to the run directory, was " + path);
        }
    }
}
