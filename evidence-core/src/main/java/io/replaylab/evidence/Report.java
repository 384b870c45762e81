package io.replaylab.evidence;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The report of a run as one document, built once from its evidence by {@link Reports} and drawn as
 * Markdown and as HTML: a header (outcome, experiments), then per experiment its {@link Section}s of
 * {@link Block}s. A {@link ReportSection} of another module adds sections made of the same blocks.
 */
public final class Report {
    private Report() {
    }

    /** A titled part of an experiment's report. */
    public record Section(String title, List<Block> blocks) {
        public Section {
            Objects.requireNonNull(title, "title");
            blocks = List.copyOf(blocks);
        }

        public static Section of(String title, Block... blocks) {
            return new Section(title, List.of(blocks));
        }
    }

    /** What a section holds. */
    public sealed interface Block permits Table, Items, Lanes, Sequence {
    }

    /**
     * A table. {@code name} is its class in HTML; {@code whenEmpty} is said in its place when it has no
     * row (null: the empty table is drawn).
     */
    public record Table(String name, List<String> head, List<List<Cell>> rows, String whenEmpty) implements Block {
        public Table {
            head = List.copyOf(head);
            rows = rows.stream().map(List::copyOf).toList();
        }
    }

    /** A list, each item a line of cells; {@code name} and {@code whenEmpty} as for a {@link Table}. */
    public record Items(String name, List<List<Cell>> items, String whenEmpty) implements Block {
        public Items {
            items = items.stream().map(List::copyOf).toList();
        }
    }

    /** The timeline drawn as one lane per process (HTML only): events in time order, each with its mark, and the bars between them. */
    record Lanes(ExperimentEvidence experiment, List<Event> events, List<Mark> marks, List<Span> spans) implements Block {
    }

    /** The timeline drawn as a sequence diagram (HTML only): a lifeline per party, each message an arrow, each marked event on its party's line. */
    record Sequence(ExperimentEvidence experiment, List<Event> events) implements Block {
    }

    /**
     * An event as a message in the sequence diagram: from one party to another (an instance, {@code broker}, {@code database}),
     * what it said, and whether it was refused (drawn red).
     */
    public record Message(String from, String to, String label, boolean refused) {
        public Message {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            label = label == null ? "" : label;
        }
    }

    /** How a cell's text is shown. */
    public enum Style {
        PLAIN,
        /** Bold. */
        STRONG,
        /** Code, e.g. a file name. */
        CODE,
        /** A verdict (PASS, FAIL, NOT_RUN): bold in Markdown, a coloured badge in HTML. */
        BADGE,
        /** The heading of its row: bold in Markdown, a {@code th} in HTML. */
        HEADER
    }

    /** A piece of text in a table or a list: optionally a link ({@code href}), and in HTML a class and a tooltip ({@code title}). */
    public record Cell(String text, Style style, String href, String css, String title) {
        public Cell {
            text = text == null ? "" : text;
            Objects.requireNonNull(style, "style");
        }

        public static Cell text(Object text) {
            return new Cell(text == null ? null : text.toString(), Style.PLAIN, null, null, null);
        }

        public static Cell strong(String text) {
            return new Cell(text, Style.STRONG, null, null, null);
        }

        public static Cell code(String text) {
            return new Cell(text, Style.CODE, null, null, null);
        }

        public static Cell badge(Object verdict) {
            return new Cell(verdict.toString(), Style.BADGE, null, null, null);
        }

        public static Cell header(String text) {
            return new Cell(text, Style.HEADER, null, null, null);
        }

        /** This cell as a link to {@code target} (a file, or {@code #exp-name} for an experiment of the run). */
        public Cell linkTo(String target) {
            return new Cell(text, style, target, css, title);
        }

        /** This cell with a class in HTML (e.g. {@code stored} or {@code refused}, for the reader's eye). */
        public Cell withClass(String cssClass) {
            return new Cell(text, style, href, cssClass, title);
        }

        /** This cell with a tooltip in HTML. */
        public Cell withTitle(String tooltip) {
            return new Cell(text, style, href, css, tooltip);
        }
    }

    /** How the HTML timeline draws an event: its colour, and the legend's word for it. */
    public record Mark(String label, String color) {
        /** Any event no kind gives a mark of its own. */
        public static final Mark OTHER = new Mark("other", "#757575");

        public Mark {
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(color, "color");
        }

        static Mark of(Payload p) {
            return p instanceof Payload.Extension x ? x.mark() : OTHER;
        }
    }

    /** A bar in the HTML timeline, on the lane of {@code from}, until {@code to}; {@code title} is its tooltip. */
    public record Span(Event from, Event to, String title) {
        public Span {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
        }
    }

    /** Events in the order they happened (an event read from a process's log is recorded after the fact). */
    public static List<Event> inTimeOrder(List<Event> events) {
        return events.stream().sorted(Comparator.comparing(Event::time).thenComparingLong(Event::seq)).toList();
    }

    /** Milliseconds from the experiment's start to the event, as the reports show it ({@code t+ms}). */
    public static long sinceStart(ExperimentEvidence experiment, Event event) {
        return Duration.between(experiment.started(), event.time()).toMillis();
    }

    /** The document: what the renderers walk; {@code first}: the run's own sections ({@link RunSection}), before its experiments. */
    record Document(RunEvidence run, List<Section> first, Table experiments, List<Part> parts) {
    }

    /** One experiment's part of the document. */
    record Part(ExperimentEvidence experiment, List<Section> sections) {
    }
}
