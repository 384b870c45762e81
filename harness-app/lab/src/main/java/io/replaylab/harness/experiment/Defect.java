package io.replaylab.harness.experiment;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.RunEvidence;

/**
 * The defect classes the lab catches, each with the experiment (or cell) that catches it and what
 * it shows when it does: README's table "What catches what" is this list (a test holds them equal),
 * and a run of {@link Experiments#thorough()} ends with one line per class.
 *
 * @param name        the class's name in the lab's words, e.g. {@code COMMITS_AHEAD}
 * @param description the defect in words: "commits offsets ahead of its database (…)"
 * @param caughtBy    the experiment (or {@code schedules.<point>.<fault>} cell) whose FAIL is this defect, as named in the evidence
 * @param shows       what its FAIL shows
 */
public record Defect(String name, String description, String caughtBy, String shows) {
    /** Every delivery applied: no inbox, or one read outside the effect's transaction. */
    public static final Defect NO_INBOX = new Defect("NO_INBOX", "applies every delivery (no inbox, or the inbox outside the effect's transaction)",
            "rebalance", "a second effect of the record A and B both handled");
    /** After a reset, the consumer jumps to the log end (or never reads below its own position). */
    public static final Defect SKIPS_THE_REPLAY = new Defect("SKIPS_THE_REPLAY", "skips a replay (jumps to the log end after a reset)", "replay",
            "no fetch below the log end on the wire, though the offsets moved back");
    /** The offset is committed before the effect's transaction: a timer's auto-commit, a commit-first loop, a batch committed before it is applied. */
    public static final Defect COMMITS_AHEAD = new Defect("COMMITS_AHEAD",
            "commits offsets ahead of its database (auto-commit, commit first, a batch committed before it is applied)", "commit-ahead",
            "a missing effect and a hole below the committed offset, after a kill at the commit the live check found ahead");
    /** A write that stays busy under contention is logged and skipped, and its offset committed. */
    public static final Defect SWALLOWS_BUSY_WRITES = new Defect("SWALLOWS_BUSY_WRITES",
            "swallows a busy database error under contention and commits the offset", "schedules.before-db-commit.hold-then-crash",
            "a missing effect: B skipped the record while A held the lock, then A died");
    /** The inbox is keyed by partition and offset, not by the message's identity. */
    public static final Defect POSITION_AS_IDENTITY = new Defect("POSITION_AS_IDENTITY", "takes a message's identity from its position (partition, offset)",
            "duplicate-publish", "a second effect of each message published again at a new offset");

    public Defect {
        Objects.requireNonNull(caughtBy, "caughtBy");
    }

    /** This class's experiment (or cell) in a run, if the run had it. */
    public Optional<ExperimentEvidence> in(RunEvidence run) {
        return run.experiments().stream().filter(x -> x.name().equals(caughtBy)).findFirst();
    }

    /** Every class, in README's order. */
    public static List<Defect> all() {
        return List.of(NO_INBOX, SKIPS_THE_REPLAY, COMMITS_AHEAD, SWALLOWS_BUSY_WRITES, POSITION_AS_IDENTITY);
    }
}
