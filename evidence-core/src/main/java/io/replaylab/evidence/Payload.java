package io.replaylab.evidence;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The typed content of an event. The records here are the kinds every run has (notes, processes,
 * matrices); the JSON names come from {@link #type()}. Everything else is an {@link Extension}: a
 * record of the module that records it (replay-lab's barrier, offsets and oracle events are made so,
 * in fault-barrier, kafka-ops and oracle) listed by a {@link PayloadTypes} service. They are written,
 * read back from the journal and evidence.json, and shown in the reports like these; a reader
 * without the module reads them as {@link Unregistered}. Values are plain: no client or JDBC types.
 */
public sealed interface Payload {

    /** The event type as written to JSON and shown in reports, e.g. {@code process-started}. */
    default String type() {
        return typeOf(getClass());
    }

    /** One line for a person. */
    String summary();

    /** Maps in payloads iterate in key order, so summaries and reports are stable (extensions use it too). */
    static <V> Map<String, V> inKeyOrder(Map<String, V> m) {
        return java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(m));
    }

    /** The kinds of evidence-core itself: every record of the sealed hierarchy (not the extensions, nor the reader's fallback). */
    static List<Class<? extends Payload>> kinds() {
        return PayloadTypes.recordsOf(Payload.class).stream().filter(c -> c != Unregistered.class).toList();
    }

    static String typeOf(Class<?> payloadClass) {
        return payloadClass.getSimpleName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** The processes of a run: started, stopped, and what a subject said it delivered. */
    sealed interface ProcessEvent extends Payload {
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
     * replay-lab's own barrier, offsets and oracle events are extensions made the same way; a
     * {@link ReportSection} gives a kind a section of its own in the reports.
     *
     * <pre>{@code
     * public record DrainStarted(String instance, long lag) implements Payload.Extension {
     *     public String summary() { return instance + " starts draining " + lag + " records"; }
     *     public Report.Mark mark() { return new Report.Mark("drain", "#00838f"); }
     * }
     * }</pre>
     */
    non-sealed interface Extension extends Payload {
        /** How the HTML timeline draws the event: its colour and the legend's word for it. */
        default Report.Mark mark() {
            return Report.Mark.OTHER;
        }

        /** When the event is a message between two parties (A's OffsetCommit to the broker, say), its arrow in the sequence diagram. */
        default java.util.Optional<Report.Message> arrow() {
            return java.util.Optional.empty();
        }
    }

    /**
     * An event whose kind this JVM does not know (a lab's extension whose {@link PayloadTypes} are not
     * on the class path): its type and fields as read, so a report still shows it. Written back,
     * it keeps its type and fields.
     */
    record Unregistered(String type, Map<String, Object> fields) implements Payload {
        public Unregistered {
            Objects.requireNonNull(type, "type");
            fields = inKeyOrder(fields);
        }

        @Override
        public String summary() {
            return fields.toString();
        }
    }
}
