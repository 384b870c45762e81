package io.replaylab.harness.experiment;

import io.replaylab.barrier.Arrival;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Platform;
import io.replaylab.harness.barrier.CommitPoint;
import io.replaylab.harness.barrier.Held;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One cell of the {@code schedules} experiment: a fault at one point of the commit protocol, on
 * instance A processing a record, with B in the same group. Written {@code point:fault}, e.g.
 * {@code after-offset-commit:crash}; a fault may be a sequence of two, e.g.
 * {@code before-db-commit:hold-then-crash}.
 */
public record ScheduleCell(CommitPoint point, Fault fault) {
    /**
     * What happens to A at the point, and after its partition moved. A is held at the point in every
     * cell: a fault that does more there says so ({@link #inject}), and one that does something else
     * than resume A once B owns the partition says that ({@link #afterHandoff}). A sequence of two
     * keeps A held for the contention window and then takes its second step ({@link SecondStep}):
     * a new fault, or a new sequence, is one new constant.
     */
    public enum Fault {
        /** A's thread is held past the poll interval (its heartbeats go on), then resumed after the handoff. */
        HOLD("A's thread is held past its poll interval, then resumed after the partition moved", "held",
                PerPoint.of("A's transaction commits late, after B took the record: the inbox keeps it at one effect (no inbox: a second effect)",
                        "A's effect is durable and A does not know it: B takes the record over and must find its inbox row (no inbox: a second "
                            + "effect)",
                        "A's stale commit is refused after the handoff; B's redelivery is not applied again",
                        "the commit stood; A goes on with records B also gets: one effect each"),
                PerPoint.HELD),
        /** The whole process is stopped (SIGSTOP), then resumed (SIGCONT) after the handoff. */
        FREEZE("A's whole process is stopped (SIGSTOP), then resumed (SIGCONT) after the partition moved", "frozen",
                PerPoint.of("the same with the whole process stopped (its heartbeats too) (no inbox: a second effect)",
                        "the same with the whole process stopped",
                        "the same with the whole process stopped",
                        "the same with the whole process stopped"),
                PerPoint.HELD) { // a frozen A is a held A to whoever takes over
            @Override
            Event inject(Held at, Arrival arrival, ExperimentRecorder e, String pointName) {
                return at.freeze();
            }

            @Override
            Optional<String> unavailableOn(Platform platform) {
                return platform.canFreeze() ? Optional.empty() : Optional.of("not available on " + platform.describe()
                        + ": a freeze needs POSIX signals (SIGSTOP, SIGCONT) and /proc to confirm every thread stopped");
            }
        },
        /** SIGKILL at the point; A is restarted as a new process with the same instance name. */
        CRASH("A is killed (SIGKILL) and restarted as a new process with the same instance name", "killed",
                PerPoint.of("the open transaction is rolled back and the record is redelivered: one effect (offset committed before the transaction: "
                            + "the effect is lost, a FAIL)",
                        "the ambiguous commit: the effect is in the DB and A died before it learned so; the redelivery must find the inbox row "
                            + "(no inbox, or a retry that applies it anew: a second effect)",
                        "the effect is in the DB, the offset is not: the redelivery must not apply it again (no inbox: a second effect)",
                        "the offset is stored, so nothing is redelivered: the effect must already be in the DB (commit-first: lost, a FAIL naming "
                            + "the message and the hole)"),
                PerPoint.of("the open transaction is rolled back and the record is redelivered: one effect",
                        "the effect is in the DB though A never learned it: the redelivery must not apply it again",
                        "the effect is in the DB but the offset is not: the redelivery must not apply it again",
                        "the offset is stored: the record is not redelivered, so its effect must already be in the DB (a commit-first consumer "
                            + "loses it)")) {
            @Override
            Event inject(Held at, Arrival arrival, ExperimentRecorder e, String pointName) {
                return at.crash();
            }

            @Override
            Optional<Event> afterHandoff(AfterHandoff then) throws InterruptedException {
                return Optional.empty(); // restarted beside B already
            }

            @Override
            boolean leavesARunning() {
                return false;
            }

        },
        /** Held until B owns the partition and has worked on A's records for the contention window, then killed and restarted. */
        HOLD_THEN_CRASH("A's thread is held until B took the partition over and worked on the same records for the contention window, "
                + "then A is killed (SIGKILL) and restarted as a new process with the same instance name", "held", then -> then.inject(CRASH),
                PerPoint.of("A's open transaction keeps the DB's write lock while B works on the same records for the contention window, then A is "
                            + "killed and its transaction rolled back: one effect each (a write that stays busy, skipped and its offset committed: "
                            + "the effect is lost, a FAIL naming the missing id; hold alone lets A's transaction land and mask it, crash alone "
                            + "frees the lock before B waits)",
                        "as crash, with B already at work for the contention window (only when named: A's transaction is over)",
                        "as crash, with B already at work for the contention window (only when named: A holds no DB lock here)",
                        "as crash, with B already at work for the contention window (only when named)"),
                PerPoint.of("B waits for the lock A's open transaction holds, and neither skips a record nor commits past one: once A's transaction "
                            + "is rolled back, every record has one effect",
                        "the effect is in the DB though A never learned it: the redelivery must not apply it again",
                        "the effect is in the DB but the offset is not: the redelivery must not apply it again",
                        "the offset is stored: the record is not redelivered, so its effect must already be in the DB")),
        /** Held until B owns the partition and has worked on A's records for the contention window, then released. */
        HOLD_THEN_LATE_RELEASE("A's thread is held until B took the partition over and worked on the same records for the contention window, "
                + "then released", "held", AfterHandoff::resume,
                PerPoint.of("the same contention, then A's transaction commits late: one effect each (a busy write skipped: the records B skipped "
                            + "are lost; only when named: hold-then-crash catches the same and A's own record too)",
                        "as hold, A told of its commit after the contention window (only when named)",
                        "as hold, A's stale commit coming after the contention window (only when named)",
                        "as hold, A resuming after the contention window (only when named)"),
                PerPoint.of("B waits for the lock A's open transaction holds; A's transaction lands late: the inbox keeps each record at one effect",
                        "A learns of its commit late; the redelivered record must not be applied again",
                        "A's stale commit is refused; the redelivered record must not be applied again",
                        "the commit stood; A goes on with records the new owner also gets: the inbox keeps each at one effect"));

        private final String description;
        private final String done;
        private final SecondStep second;
        private final PerPoint shows;
        private final PerPoint expects;

        Fault(String description, String done, PerPoint shows, PerPoint expects) {
            this(description, done, null, shows, expects);
        }

        Fault(String description, String done, SecondStep second, PerPoint shows, PerPoint expects) {
            this.description = description;
            this.done = done;
            this.second = second;
            this.shows = shows;
            this.expects = expects;
        }

        /** A sequence's second step, taken on A still held after the contention window; returns the event that confirms it. */
        interface SecondStep {
            Event take(AfterHandoff then) throws InterruptedException;
        }

        /** Whether this is a sequence of two faults (A stays held for the contention window between them). */
        public boolean isSequence() {
            return second != null;
        }

        /** What this fault's cell at {@code p} shows, and what it catches. */
        String shows(CommitPoint p) {
            return shows.at(p);
        }

        /** What a correct consumer shows in this fault's cell at {@code p}. */
        String expects(CommitPoint p) {
            return expects.at(p);
        }

        /** Hits A where it is held (a sequence: its first fault), records it, and returns the event that shows it: here, A held. */
        Event inject(Held at, Arrival arrival, ExperimentRecorder e, String pointName) {
            return e.record(Source.here("harness"), new Payload.Note(at.instance().name() + " (pid " + at.instance().pid() + ") held at "
                    + pointName + " by " + at.heldBy() + "; " + arrival.facts().otherThreads().orElse("its other threads run")));
        }

        /**
         * What the fault still does to A once its partition moved to another member: a single fault
         * resumes A; a sequence keeps A held for the contention window, makes its second step and returns
         * the event that confirms it.
         *
         * @throws AfterHandoff.StepNotConfirmed the second step could not be made (A no longer held)
         */
        Optional<Event> afterHandoff(AfterHandoff then) throws InterruptedException {
            if (second == null) {
                then.resume();
                return Optional.empty();
            }
            then.contend();
            return Optional.of(second.take(then));
        }

        /** Whether A's process lives on after the fault at the point (held, to be resumed or hit again); a crashed A is restarted instead. */
        boolean leavesARunning() {
            return true;
        }

        /** Why this machine cannot inject it, or empty. */
        Optional<String> unavailableOn(Platform platform) {
            return Optional.empty();
        }

        /** What became of A at the point, as a message says it: "held", "frozen", "killed". */
        String done() {
            return done;
        }

        /** The fault's name on the command line, e.g. {@code crash}, {@code hold-then-crash}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        public String description() {
            return description;
        }
    }

    public ScheduleCell {
        Objects.requireNonNull(point, "point");
        Objects.requireNonNull(fault, "fault");
    }

    /** The sequences in the default matrix: where they catch what the single faults at the point do not. */
    private static final Set<ScheduleCell> DEFAULT_SEQUENCES = Set.of(new ScheduleCell(CommitPoint.BEFORE_DB_COMMIT, Fault.HOLD_THEN_CRASH));

    /**
     * The default matrix, in its order: every single fault at every point but {@code after-db-commit}, and the sequences that
     * catch what those do not ({@code before-db-commit:hold-then-crash}); the others run only when named ({@link #every()}).
     */
    public static List<ScheduleCell> all() {
        return all(false);
    }

    /**
     * The default matrix on a run's target: on PostgreSQL the single faults at {@code after-db-commit} too (the ambiguous
     * commit, which the PostgreSQL proxy reaches for any client); on SQLite only when named (gdb holds no return of
     * {@code sqlite3_step}; the debugger reaches a JVM's).
     */
    public static List<ScheduleCell> all(boolean postgres) {
        return every().stream().filter(c -> c.fault().isSequence() ? DEFAULT_SEQUENCES.contains(c) : postgres || c.point() != CommitPoint.AFTER_DB_COMMIT)
                .toList();
    }

    /** Every cell that can be named, points × faults, in the matrix's order. */
    public static List<ScheduleCell> every() {
        List<ScheduleCell> every = new ArrayList<>();
        for (CommitPoint p : CommitPoint.values()) {
            for (Fault f : Fault.values()) {
                every.add(new ScheduleCell(p, f));
            }
        }
        return List.copyOf(every);
    }

    /**
     * {@code point:fault}, e.g. {@code before-offset-commit:hold} or {@code before-db-commit:hold-then-crash};
     * a clear error naming what was wrong and what is valid.
     */
    public static ScheduleCell parse(String text) {
        String[] parts = text == null ? new String[0] : text.trim().split(":", -1);
        if (parts.length != 2) {
            throw new IllegalArgumentException("a schedule cell is point:fault, e.g. after-offset-commit:crash; was '" + text + "'");
        }
        CommitPoint p = Arrays.stream(CommitPoint.values()).filter(x -> x.id().equals(parts[0])).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown point '" + parts[0] + "' in '" + text + "': use " + String.join(", ", Arrays.stream(CommitPoint.values()).map(CommitPoint::id).toList())));
        Fault f = Arrays.stream(Fault.values()).filter(x -> x.id().equals(parts[1])).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown fault '" + parts[1] + "' in '" + text + "': use " + String.join(", ", Arrays.stream(Fault.values()).map(Fault::id).toList())));
        return new ScheduleCell(p, f);
    }

    /** {@code point.fault}: the cell's part of experiment and namespace names. */
    public String id() {
        return point.id() + "." + fault.id();
    }

    /** What the cell shows and the defect it catches, as the table in docs/how-a-run-works.md says (a test holds them equal). */
    public String shows() {
        return fault.shows(point);
    }

    /** The docs' table of every cell that can be named, as Markdown rows: {@code | point × fault | what it shows |}. */
    public static List<String> table() {
        return every().stream().map(c -> "| " + c.point().id() + " × " + c.fault().id() + " | " + c.shows() + " |").toList();
    }

    /** What the cell does and what a correct consumer shows, in one line. */
    public String meaning() {
        String expect = fault.expects(point);
        return "at " + point.id() + " (" + point.description() + "), " + fault.description() + "; " + expect;
    }

    @Override
    public String toString() {
        return point.id() + ":" + fault.id();
    }

    /** One text for each point of the commit protocol: a fault's words at every point, all four given or it does not compile. */
    record PerPoint(String beforeDbCommit, String afterDbCommit, String beforeOffsetCommit, String afterOffsetCommit) {
        /** What a correct consumer shows where A was held (or frozen, which is a held A to whoever takes over). */
        static final PerPoint HELD = of("A's transaction commits late, after the new owner took the record: the inbox keeps it at one effect",
                "A's transaction committed: the new owner finds its inbox row and does not apply the record again",
                "A's stale commit is refused after the handoff; the redelivered record must not be applied again",
                "the commit stood; A goes on with records the new owner also gets: the inbox keeps each at one effect");

        static PerPoint of(String beforeDbCommit, String afterDbCommit, String beforeOffsetCommit, String afterOffsetCommit) {
            return new PerPoint(beforeDbCommit, afterDbCommit, beforeOffsetCommit, afterOffsetCommit);
        }

        String at(CommitPoint p) {
            return switch (p) {
                case BEFORE_DB_COMMIT -> beforeDbCommit;
                case AFTER_DB_COMMIT -> afterDbCommit;
                case BEFORE_OFFSET_COMMIT -> beforeOffsetCommit;
                case AFTER_OFFSET_COMMIT -> afterOffsetCommit;
            };
        }
    }
}
