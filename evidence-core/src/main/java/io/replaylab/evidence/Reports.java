package io.replaylab.evidence;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import io.replaylab.evidence.Report.Block;
import io.replaylab.evidence.Report.Cell;
import io.replaylab.evidence.Report.Items;
import io.replaylab.evidence.Report.Section;
import io.replaylab.evidence.Report.Table;

/**
 * Renders a run for people: {@code report.md} and a self-contained {@code report.html} drawn from
 * one {@link Report} document (outcome first, then per experiment its matrices, the sections of
 * other modules ({@link ReportSection}), checks, timeline, environment, limitations, artifacts,
 * metrics). The HTML adds a timeline drawn as one lane per process. No scripts, no external resources.
 */
public final class Reports {
    // found once, in a stable order (a class path lists them in any)
    private static final List<ReportSection> SECTIONS = StreamSupport
            .stream(ServiceLoader.load(ReportSection.class, Reports.class.getClassLoader()).spliterator(), false)
            .sorted(Comparator.comparing(s -> s.getClass().getName())).toList();
    private static final List<RunSection> RUN_SECTIONS = StreamSupport
            .stream(ServiceLoader.load(RunSection.class, Reports.class.getClassLoader()).spliterator(), false)
            .sorted(Comparator.comparing(s -> s.getClass().getName())).toList();

    private Reports() {
    }

    public static String markdown(RunEvidence run) {
        return MarkdownReport.render(document(run));
    }

    public static String html(RunEvidence run) {
        return HtmlReport.render(document(run));
    }

    static Report.Document document(RunEvidence run) {
        List<List<Cell>> rows = run.experiments().stream().map(e -> List.of(Cell.text(e.name()).linkTo("#exp-" + e.name()),
                Cell.text(String.join(", ", e.requirements())), Cell.badge(e.outcome().status()), Cell.text(e.outcome().reason()))).toList();
        Table experiments = new Table("experiments", List.of("experiment", "requirements", "outcome", "reason"), rows, null);
        List<Section> first = RUN_SECTIONS.stream().flatMap(s -> s.of(run).stream()).toList();
        return new Report.Document(run, first, experiments, run.experiments().stream().map(Reports::part).toList());
    }

    private static Report.Part part(ExperimentEvidence e) {
        List<Section> sections = new ArrayList<>();
        matrices(e).forEach(m -> sections.add(matrix(m)));
        SECTIONS.forEach(s -> s.of(e).ifPresent(sections::add));
        sections.add(Section.of("Checks", new Table("checks", List.of("check", "requirement", "expected", "actual", "verdict"),
                e.checks().stream().map(c -> List.of(Cell.text(c.name()), Cell.text(c.requirement()), Cell.text(c.expected()),
                        Cell.text(c.actual()), Cell.badge(c.status()))).toList(), "No check was evaluated.")));
        List<Event> events = Report.inTimeOrder(e.events()); // sorted once: the diagram, the lanes and the table draw the same order
        sections.add(Section.of("Timeline", new Report.Sequence(e, events), lanes(e, events), new Table("timeline", List.of("#", "t+ms", "source", "event", "detail"),
                timeline(events).stream().map(ev -> List.of(Cell.text(ev.seq()), Cell.text(Report.sinceStart(e, ev)), Cell.text(sourceLabel(ev.source())),
                        Cell.text(ev.type()), Cell.text(ev.payload().summary()))).toList(), "No event was recorded.")));
        sections.add(Section.of("Environment", new Table("environment", List.of("fact", "value"),
                e.environment().entrySet().stream().map(en -> List.of(Cell.text(en.getKey()), Cell.text(en.getValue()))).toList(), "None recorded.")));
        sections.add(Section.of("Limitations", new Items("limitations", e.limitations().stream().map(l -> List.of(Cell.text(l))).toList(), "None stated.")));
        sections.add(Section.of("Artifacts", new Items("artifacts", e.artifacts().stream()
                .map(a -> List.of(Cell.code(a.path()).linkTo(a.path()), Cell.text(" — " + a.description()))).toList(), "None.")));
        if (!e.metrics().isEmpty()) {
            sections.add(Section.of("Metrics", new Table("metrics", List.of("meter", "type", "tags", "values"), e.metrics().stream()
                    .map(m -> List.of(Cell.text(m.name()), Cell.text(m.type()), Cell.text(sorted(m.tags())), Cell.text(m.display()))).toList(), null)));
        }
        return new Report.Part(e, sections);
    }

    /** A matrix as a table whose cells link to their parts, and a list of what the cells mean. */
    private static Section matrix(Payload.Matrix m) {
        List<String> head = new ArrayList<>(List.of(m.rowHeading()));
        head.addAll(m.columns());
        List<List<Cell>> rows = new ArrayList<>();
        for (String r : m.rows()) {
            List<Cell> row = new ArrayList<>(List.of(Cell.header(r)));
            for (String c : m.columns()) {
                row.add(m.cell(r, c).map(x -> (x.experiment() == null ? Cell.text(x.status()) : Cell.strong(x.status()).linkTo("#exp-" + x.experiment()))
                        .withClass(x.status()).withTitle(x.reason() == null ? "" : x.reason())).orElse(Cell.text("")));
            }
            rows.add(row);
        }
        List<List<Cell>> described = m.cells().stream().filter(c -> c.meaning() != null || c.reason() != null)
                .map(x -> List.of(Cell.strong(x.row() + " × " + x.column()), Cell.text(": " + (x.meaning() == null ? "" : x.meaning()) + " — "
                        + x.status() + (x.reason() == null ? "" : ": " + x.reason())))).toList();
        return Section.of(m.title(), new Table("matrix", head, rows, null), new Items("matrix-cells", described, null));
    }

    private static Block lanes(ExperimentEvidence e, List<Event> events) {
        List<Report.Span> spans = SECTIONS.stream().flatMap(s -> s.spans(events).stream()).toList();
        return new Report.Lanes(e, events, events.stream().map(ev -> Report.Mark.of(ev.payload())).toList(), spans);
    }

    /** Timeline rows: all events but those a section shows instead (there may be hundreds). */
    private static List<Event> timeline(List<Event> events) {
        return events.stream().filter(ev -> SECTIONS.stream().noneMatch(s -> s.claims(ev))).toList();
    }

    private static List<Payload.Matrix> matrices(ExperimentEvidence e) {
        return e.events().stream().map(Event::payload).filter(p -> p instanceof Payload.Matrix).map(p -> (Payload.Matrix) p).toList();
    }

    static String kind(FailKind k) {
        return k == FailKind.FAULT_NOT_OBSERVED ? "the expected fault did not happen" : "a correctness check failed";
    }

    private static String sourceLabel(Source s) {
        return s.instance() + " (pid " + s.pid() + (s.thread().isEmpty() ? "" : ", " + s.thread()) + ")";
    }

    private static String sorted(Map<String, ?> m) {
        return new java.util.TreeMap<>(m).entrySet().stream().map(en -> en.getKey() + "=" + en.getValue())
                .collect(Collectors.joining(", "));
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
