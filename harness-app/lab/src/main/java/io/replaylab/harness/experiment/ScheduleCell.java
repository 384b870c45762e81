package io.replaylab.harness.experiment;

import io.replaylab.barrier.Arrival;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.barrier.CommitPoint;
import io.replaylab.harness.barrier.Held;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One cell of the {@code schedules} experiment: a single fault at one point of the commit protocol,
 * on instance A processing a record, with B in the same group. Written {@code point:fault}, e.g.
 * {@code after-offset-commit:crash}.
 */
public record ScheduleCell(CommitPoint point, Fault fault) {
    /** What each fault's cell at a point shows, and what it catches, in {@link Fault} order. */
    private static final Map<CommitPoint, List<String>> SHOWS = new EnumMap<>(Map.of(
            CommitPoint.BEFORE_DB_COMMIT, List.of(
                    "A's transaction commits late, after B took the record: the inbox keeps it at one effect (no inbox: a second effect)",
                    "the same with the whole process stopped (its heartbeats too) (no inbox: a second effect)",
                    "the open transaction is rolled back and the record is redelivered: one effect (offset committed before the transaction: "
                            + "the effect is lost, a FAIL)"),
            CommitPoint.BEFORE_OFFSET_COMMIT, List.of(
                    "A's stale commit is refused after the handoff; B's redelivery is not applied again",
                    "the same with the whole process stopped",
                    "the effect is in the DB, the offset is not: the redelivery must not apply it again (no inbox: a second effect)"),
            CommitPoint.AFTER_OFFSET_COMMIT, List.of(
                    "the commit stood; A goes on with records B also gets: one effect each",
                    "the same with the whole process stopped",
                    "the offset is stored, so nothing is redelivered: the effect must already be in the DB (commit-first: lost, a FAIL naming "
                            + "the message and the hole)")));

    /**
     * What happens to A at the point. Each fault injects itself ({@link #inject}): a new fault is one
     * new constant with its body, and one without a body does not compile.
     */
    public enum Fault {
        /** A's thread is held past the poll interval (its heartbeats go on), then resumed after the handoff. */
        HOLD("A's thread is held past its poll interval, then resumed after the partition moved", "held") {
            @Override
            Event inject(Held at, Arrival arrival, ExperimentRecorder e, String pointName) {
                return e.record(Source.here("harness"), new Payload.Note(at.instance().name() + " (pid " + at.instance().pid() + ") held at "
                        + pointName + " by " + at.heldBy() + "; " + arrival.context().getOrDefault("threads", "its other threads run")));
            }
        },
        /** The whole process is stopped (SIGSTOP), then resumed (SIGCONT) after the handoff. */
        FREEZE("A's whole process is stopped (SIGSTOP), then resumed (SIGCONT) after the partition moved", "frozen") {
            @Override
            Event inject(Held at, Arrival arrival, ExperimentRecorder e, String pointName) {
                return at.freeze();
            }

            @Override
            java.util.Optional<String> unavailableOn(io.replaylab.evidence.process.Platform platform) {
                return platform.canFreeze() ? java.util.Optional.empty() : java.util.Optional.of("not available on " + platform.describe()
                        + ": a freeze needs POSIX signals (SIGSTOP, SIGCONT) and /proc to confirm every thread stopped");
            }
        },
        /** SIGKILL at the point; A is restarted as a new process with the same instance name. */
        CRASH("A is killed (SIGKILL) and restarted as a new process with the same instance name", "killed") {
            @Override
            Event inject(Held at, Arrival arrival, ExperimentRecorder e, String pointName) {
                return at.crash();
            }

            @Override
            boolean leavesARunning() {
                return false;
            }
        };

        private final String description;
        private final String done;

        Fault(String description, String done) {
            this.description = description;
            this.done = done;
        }

        /** Hits A where it is held, records it, and returns the event that shows it. */
        abstract Event inject(Held at, Arrival arrival, ExperimentRecorder e, String pointName);

        /** Whether A's process lives on after the fault (to be resumed); a crashed A is restarted instead. */
        boolean leavesARunning() {
            return true;
        }

        /** Why this machine cannot inject it, or empty. */
        java.util.Optional<String> unavailableOn(io.replaylab.evidence.process.Platform platform) {
            return java.util.Optional.empty();
        }

        /** What became of A, as a message says it: "held", "frozen", "killed". */
        String done() {
            return done;
        }

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        public String description() {
            return description;
        }
    }

    public ScheduleCell {
        Objects.requireNonNull(point, "point");
        Objects.requireNonNull(fault, "fault");
    }

    /** Every cell, points × faults, in the matrix's order. */
    public static List<ScheduleCell> all() {
        List<ScheduleCell> all = new ArrayList<>();
        for (CommitPoint p : CommitPoint.values()) {
            for (Fault f : Fault.values()) {
                all.add(new ScheduleCell(p, f));
            }
        }
        return List.copyOf(all);
    }

    /** {@code point:fault}, e.g. {@code before-offset-commit:hold}; a clear error naming what was wrong and what is valid. */
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
        return SHOWS.get(point).get(fault.ordinal());
    }

    /** The docs' table of every cell, as Markdown rows: {@code | point × fault | what it shows |}. */
    public static List<String> table() {
        return all().stream().map(c -> "| " + c.point().id() + " × " + c.fault().id() + " | " + c.shows() + " |").toList();
    }

    /** What the cell does and what a correct consumer shows, in one line. */
    public String meaning() {
        String expect = switch (point) {
            case BEFORE_DB_COMMIT -> fault == Fault.CRASH ? "the open transaction is rolled back and the record is redelivered: one effect"
                    : "A's transaction commits late, after the new owner took the record: the inbox keeps it at one effect";
            case BEFORE_OFFSET_COMMIT -> fault == Fault.CRASH ? "the effect is in the DB but the offset is not: the redelivery must not apply it again"
                    : "A's stale commit is refused after the handoff; the redelivered record must not be applied again";
            case AFTER_OFFSET_COMMIT -> fault == Fault.CRASH
                    ? "the offset is stored: the record is not redelivered, so its effect must already be in the DB (a commit-first consumer loses it)"
                    : "the commit stood; A goes on with records the new owner also gets: the inbox keeps each at one effect";
        };
        return "at " + point.id() + " (" + point.description() + "), " + fault.description() + "; " + expect;
    }

    @Override
    public String toString() {
        return point.id() + ":" + fault.id();
    }
}
