package io.replaylab.harness.barrier;

import java.util.Locale;

/** The points of a consumer's commit protocol where the lab holds instance A. */
public enum CommitPoint {
    /** The subject's DB transaction commit is about to run. */
    BEFORE_DB_COMMIT("the subject's DB transaction is about to commit"),
    /** The database has committed the subject's transaction; the subject has not yet seen the answer. */
    AFTER_DB_COMMIT("the database has committed the subject's transaction; the subject has not yet seen the answer"),
    /** The OffsetCommit is about to be sent. */
    BEFORE_OFFSET_COMMIT("the OffsetCommit is about to be sent"),
    /** The broker has stored the offset; the subject has not yet seen the answer. */
    AFTER_OFFSET_COMMIT("the broker has stored the offset; the subject has not yet seen the answer");

    private final String description;

    CommitPoint(String description) {
        this.description = description;
    }

    /** The point's name in the evidence and on the command line, e.g. {@code before-db-commit}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public String description() {
        return description;
    }
}
