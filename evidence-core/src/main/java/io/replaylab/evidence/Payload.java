package io.replaylab.evidence;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The typed content of an event. replay-lab's own kinds are the records here (the JSON names come
 * from {@link #type()}, and the permitted list is the registry). Another lab adds kinds of its own
 * as records implementing {@link Extension}, listed by a {@link PayloadTypes} service: they are
 * written, read back from the journal and evidence.json, and shown in the reports like these.
 * Values are plain: no Kafka or JDBC types.
 */
public sealed interface Payload {

    /** The event type as written to JSON and shown in reports, e.g. {@code barrier-reached}. */
    default String type() {
        return typeOf(getClass());
    }

    /** One line for a person. */
    String summary();

    /** Maps in payloads iterate in key order, so summaries and reports are stable. */
    private static <V> Map<String, V> sorted(Map<String, V> m) {
        return java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(m));
    }

    /** replay-lab's own kinds: every record of the sealed hierarchy, through its groups (not the extension point's fallback). */
    static java.util.List<Class<?>> kinds() {
        java.util.List<Class<?>> out = new java.util.ArrayList<>();
        java.util.Deque<Class<?>> todo = new java.util.ArrayDeque<>(java.util.List.of(Payload.class.getPermittedSubclasses()));
        while (!todo.isEmpty()) {
            Class<?> c = todo.pop();
            if (c.isSealed()) {
                todo.addAll(java.util.List.of(c.getPermittedSubclasses()));
            } else if (!c.isInterface() && c != Unregistered.class) {
                out.add(c);
            }
        }
        return out;
    }

    static String typeOf(Class<?> payloadClass) {
        return payloadClass.getSimpleName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    // replay-lab's kinds, grouped by the part of replay-lab that records them.

    /** Offsets and group ownership, as kafka-ops describes and plans them. */
    sealed interface OffsetsEvent extends Payload {
    }

    /** A barrier's moves and the held call's outcome, as fault-barrier records them ({@code BarrierEvidence}). */
    sealed interface BarrierEvent extends Payload {
    }

    /** What the target database holds, as the harness and the oracle read it. */
    sealed interface TargetEvent extends Payload {
    }

    /** The processes of a run: started, stopped, and what a subject said it delivered. */
    sealed interface ProcessEvent extends Payload {
    }

    /** One partition's position in an offsets snapshot; {@code committed} is -1 when the group has none. */
    record PartitionPosition(String topic, int partition, long committed, long logStart, long logEnd, String owner) {
        public long lag() {
            return committed < 0 ? logEnd - logStart : Math.max(0, logEnd - committed);
        }
    }

    /** A described group (SPEC R1): state, members and per-partition offsets. */
    record OffsetsSnapshot(String label, String group, String state, int members, List<PartitionPosition> partitions)
            implements OffsetsEvent {
        public OffsetsSnapshot {
            partitions = List.copyOf(partitions);
        }

        @Override
        public String summary() {
            long lag = partitions.stream().mapToLong(PartitionPosition::lag).sum();
            return label + ": group " + group + " " + state + ", " + members + " member(s), " + partitions.size()
                    + " partition(s), lag " + lag;
        }
    }

    /** One row of a reset plan. */
    record PlannedOffset(String topic, int partition, long previous, long next, String note) {
    }

    /** A reset plan, dry run or executed (SPEC R2, R4). */
    record ResetPlanned(String planId, String group, String target, boolean dryRun, String savedAt, List<PlannedOffset> rows)
            implements OffsetsEvent {
        public ResetPlanned {
            rows = List.copyOf(rows);
        }

        @Override
        public String summary() {
            return (dryRun ? "dry run of " : "executed ") + "reset " + planId + " of group " + group + " " + target
                    + " over " + rows.size() + " partition(s)" + (savedAt == null ? "" : ", saved at " + savedAt);
        }
    }

    /** A reset the guards refused (SPEC R3). */
    record ResetRefused(String group, List<String> failedGuards) implements OffsetsEvent {
        public ResetRefused {
            failedGuards = List.copyOf(failedGuards);
        }

        @Override
        public String summary() {
            return "reset of " + group + " refused: " + String.join("; ", failedGuards);
        }
    }

    /** A barrier point was armed. */
    record BarrierArmed(String point, String mode, String detail) implements BarrierEvent {
        @Override
        public String summary() {
            return "barrier " + point + " armed (" + mode + ")" + (detail == null || detail.isEmpty() ? "" : ": " + detail);
        }
    }

    /** A thread reached an armed barrier and is held there. */
    record BarrierReached(String point, String thread, Map<String, String> context, List<String> stack) implements BarrierEvent {
        public BarrierReached {
            context = sorted(context);
            stack = List.copyOf(stack);
        }

        @Override
        public String summary() {
            return "barrier " + point + " reached by " + thread + (context.isEmpty() ? "" : " " + context);
        }
    }

    /** A held barrier was released: by the controller, or by the safety hold timeout. */
    record BarrierReleased(String point, String by, long heldMillis) implements BarrierEvent {
        @Override
        public String summary() {
            return "barrier " + point + " released by " + by + " after " + heldMillis + " ms";
        }
    }

    /** An armed barrier was never reached. */
    record BarrierExpired(String point, long waitedMillis) implements BarrierEvent {
        @Override
        public String summary() {
            return "barrier " + point + " never reached in " + waitedMillis + " ms";
        }
    }

    /** The target already holds an effect (seen in the DB, not claimed by the consumer). */
    record DbCommitSeen(String namespace, String messageId, String topic, int partition, long offset, String instance)
            implements TargetEvent {
        @Override
        public String summary() {
            return "DB holds effect of " + messageId + " (" + topic + "-" + partition + "@" + offset + ") in " + namespace
                    + (instance == null ? "" : " by " + instance);
        }
    }

    /** A change of partition ownership, from a group description or an assignment log. */
    record AssignmentChanged(String instance, String event, List<String> partitions, String generation, String seenBy)
            implements OffsetsEvent {
        public AssignmentChanged {
            partitions = List.copyOf(partitions);
        }

        @Override
        public String summary() {
            return instance + " " + event + " " + partitions + (generation == null ? "" : " (generation " + generation + ")")
                    + " seen by " + seenBy;
        }
    }

    /** An offset commit returned normally. */
    record CommitAccepted(String instance, Map<String, Long> offsets) implements BarrierEvent {
        public CommitAccepted {
            offsets = sorted(offsets);
        }

        @Override
        public String summary() {
            return "commit by " + instance + " ACCEPTED " + offsets;
        }
    }

    /** An offset commit threw. */
    record CommitRejected(String instance, Map<String, Long> offsets, String exception, String message) implements BarrierEvent {
        public CommitRejected {
            offsets = sorted(offsets);
        }

        @Override
        public String summary() {
            // the exception's simple name for people (CommitFailedException, or the broker's UNKNOWN_MEMBER_ID); its field keeps the whole class
            return "commit by " + instance + " REJECTED " + offsets + ": " + (exception == null ? "" : exception.substring(exception.lastIndexOf('.') + 1))
                    + ": " + message;
        }
    }

    /**
     * An offset commit that never reached the broker: the connection carrying it closed while it
     * was held (the client timed out) and no retry arrived. Neither accepted nor rejected.
     */
    record CommitNotDelivered(String instance, Map<String, Long> offsets, String reason) implements BarrierEvent {
        public CommitNotDelivered {
            offsets = sorted(offsets);
        }

        @Override
        public String summary() {
            return "commit by " + instance + " NOT DELIVERED " + offsets + ": " + reason;
        }
    }

    /**
     * An OffsetCommit as the wire proxy saw it (the witness), with what became of it: the broker's
     * answer per partition ({@code NONE}: stored), or that it was never sent ({@code NOT_SENT}: the
     * client closed the connection while a barrier held it), never answered ({@code UNANSWERED}), or
     * answered by a fault in the proxy ({@code FAULTED}: the broker never saw it).
     */
    record CommitWitnessed(String instance, String group, String member, int generation, Map<String, Long> offsets, boolean held,
            String fate, Map<String, String> answers) implements BarrierEvent {
        public CommitWitnessed {
            offsets = sorted(offsets);
            answers = sorted(answers);
        }

        /** The broker stored every partition's offset. */
        public boolean accepted() {
            return "ANSWERED".equals(fate) && !answers.isEmpty() && answers.values().stream().allMatch("NONE"::equals);
        }

        /** What became of it, for a person. */
        public String fateText() {
            return switch (fate) {
                case "ANSWERED" -> accepted() ? "stored by the broker"
                        : "rejected by the broker: " + String.join(",", answers.values().stream().filter(e -> !"NONE".equals(e)).distinct().toList());
                case "NOT_SENT" -> "never sent (the client closed the connection while it was held)";
                case "UNANSWERED" -> "sent, never answered (the connection closed first)";
                case "FAULTED" -> answers.isEmpty() ? "never sent: a fault closed the connection at it"
                        : "answered " + String.join(",", answers.values().stream().distinct().toList()) + " by a fault in the proxy (the broker never saw it)";
                default -> fate;
            };
        }

        @Override
        public String summary() {
            return "OffsetCommit on the wire from " + instance + " (member " + (member.isEmpty() ? "none" : member) + ", generation " + generation
                    + ") " + offsets + (held ? ", held by the barrier" : "") + ": " + fateText();
        }
    }

    /** A process the run started. */
    record ProcessStarted(String instance, long pid, List<String> command) implements ProcessEvent {
        public ProcessStarted {
            command = List.copyOf(command);
        }

        @Override
        public String summary() {
            return instance + " started, pid " + pid;
        }
    }

    /** A process the run started has ended. */
    record ProcessStopped(String instance, long pid, Integer exitCode, String how) implements ProcessEvent {
        @Override
        public String summary() {
            return instance + " (pid " + pid + ") stopped by " + how + (exitCode == null ? "" : ", exit " + exitCode);
        }
    }

    /**
     * The oracle's verdict with its counts, and the cut it read the source up to (SPEC R13): the end
     * offset of each partition ({@code topic-partition}) taken at {@code cutAt}.
     */
    record OracleVerdict(String status, Map<String, Long> counts, String detail, Instant cutAt, Map<String, Long> cut) implements TargetEvent {
        public OracleVerdict {
            counts = sorted(counts);
            cut = cut == null ? Map.of() : sorted(cut);
        }

        @Override
        public String summary() {
            return "oracle " + status + " " + counts + (cut.isEmpty() ? "" : " up to the cut " + cut + (cutAt == null ? "" : " taken " + cutAt))
                    + (detail == null || detail.isEmpty() ? "" : ": " + detail);
        }
    }

    /** Records delivered (again) to a consumer, counted from the outside (its processing log or offsets). */
    record Delivered(String instance, long applied, long duplicates, long quarantined) implements ProcessEvent {
        @Override
        public String summary() {
            return instance + " delivered " + (applied + duplicates + quarantined) + ": " + applied + " applied, "
                    + duplicates + " duplicate, " + quarantined + " quarantined";
        }
    }

    /** A free-text step of the protocol. */
    record Note(String text) implements Payload {
        public Note {
            Objects.requireNonNull(text, "text");
        }

        @Override
        public String summary() {
            return text;
        }
    }

    /** One cell of a {@link Matrix}: a part of the experiment recorded as an experiment of its own, or not selected ({@code experiment} null). */
    record MatrixCell(String row, String column, String status, String experiment, String meaning, String reason) {
        public MatrixCell {
            Objects.requireNonNull(row, "row");
            Objects.requireNonNull(column, "column");
            Objects.requireNonNull(status, "status");
        }
    }

    /**
     * An experiment made of parts laid out as rows × columns (e.g. commit-protocol points × faults):
     * each cell's outcome, and the part that holds its own checks and timeline. Reports draw it as a
     * table whose cells link to the parts.
     */
    record Matrix(String title, String rowHeading, List<String> rows, List<String> columns, List<MatrixCell> cells) implements Payload {
        public Matrix {
            rows = List.copyOf(rows);
            columns = List.copyOf(columns);
            cells = List.copyOf(cells);
        }

        /** The cell at (row, column), if there is one. */
        public java.util.Optional<MatrixCell> cell(String row, String column) {
            return cells.stream().filter(c -> c.row().equals(row) && c.column().equals(column)).findFirst();
        }

        @Override
        public String summary() {
            Map<String, Long> counts = new java.util.TreeMap<>();
            cells.forEach(c -> counts.merge(c.status(), 1L, Long::sum));
            return title + ": " + rows.size() + " × " + columns.size() + ", " + counts;
        }
    }

    /**
     * A lab's own kind of event: a record implementing this (plain values, a {@link #summary()}),
     * named like the others by its class ({@code MyDrainStarted} is {@code my-drain-started}) and
     * listed by the lab's {@link PayloadTypes} service so that evidence with it reads back typed.
     *
     * <pre>{@code
     * public record DrainStarted(String instance, long lag) implements Payload.Extension {
     *     public String summary() { return instance + " starts draining " + lag + " records"; }
     * }
     * }</pre>
     */
    non-sealed interface Extension extends Payload {
    }

    /**
     * An event whose kind this JVM does not know (a lab's extension whose {@link PayloadTypes} are not
     * on the class path): its type and fields as read, so a report still shows it. Written back,
     * it keeps its type and fields.
     */
    record Unregistered(String type, Map<String, Object> fields) implements Payload {
        public Unregistered {
            Objects.requireNonNull(type, "type");
            fields = sorted(fields);
        }

        @Override
        public String summary() {
            return fields.toString();
        }
    }
}
