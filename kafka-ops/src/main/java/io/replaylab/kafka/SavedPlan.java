package io.replaylab.kafka;

import java.nio.file.Path;
import java.time.Instant;

/**
 * A plan as saved in the plan directory before anything was altered (SPEC R4), with what became of it.
 *
 * @param status SAVED (about to apply), APPLIED, PARTIAL (some partitions did not land) or NOT_APPLIED
 */
public record SavedPlan(int schemaVersion, Status status, String statusDetail, Instant updatedAt, ResetPlan plan, Path file) {
    public static final int SCHEMA_VERSION = 1;

    public enum Status { SAVED, APPLIED, PARTIAL, NOT_APPLIED }

    SavedPlan withStatus(Status s, String detail) {
        return new SavedPlan(schemaVersion, s, detail, Instant.now(), plan, file);
    }
}
