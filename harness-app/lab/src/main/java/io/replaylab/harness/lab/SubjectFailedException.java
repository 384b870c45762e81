package io.replaylab.harness.lab;

import java.time.Instant;
import java.util.Objects;

/**
 * What the subject did fails the experiment at once, named: it skipped records nobody applied (a
 * reset or a seek to the log end past them), it crashes on every delivery of a record, restarted
 * each time (the partition is stuck), or it stalled with effects missing longer than its own
 * timeouts allow. Judged, never excused as NOT_RUN; an experiment that keeps a fault armed may
 * still name the fault instead, when it fired since {@link #since()} ({@link Kind#SKIP} is the
 * consumer's whatever fired).
 */
public final class SubjectFailedException extends RuntimeException {
    /** What the subject did. */
    public enum Kind {
        /** It started a partition past records nobody applied. */
        SKIP,
        /** It exited on every delivery of the same records. */
        CRASH_LOOP,
        /** It made no progress, effects missing, for longer than its timeouts allow. */
        STALL
    }

    private final Kind kind;
    private final Instant since;

    SubjectFailedException(Kind kind, Instant since, String message) {
        super(message);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.since = Objects.requireNonNull(since, "since");
    }

    public Kind kind() {
        return kind;
    }

    /** Since when the subject did it: the skip, the first exit of the loop, the last progress before the stall. */
    public Instant since() {
        return since;
    }
}
