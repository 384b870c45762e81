package io.replaylab.evidence;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders a run for people: {@code report.md} and a self-contained {@code report.html} with the
 * same content (outcome first, then checks, timeline, environment, limitations, artifacts,
 * metrics) and a timeline drawn as one lane per process. No scripts, no external resources.
 */
public final class Reports {
    private Reports() {
    }

    public static String markdown(RunEvidence run) {
        StringBuilder md = new StringBuilder();
        md.append("# replay-lab run `").append(run.runId()).append("`\n\n");
        md.append("**Outcome: ").append(run.outcome().status()).append("**")
                .append(run.outcome().failKind() == null ? "" : " (" + kind(run.outcome().failKind()) + ")")
                .append(" — ").append(mdCell(run.outcome().reason())).append("\n\n");
        md.append("Started ").append(run.started()).append(run.ended() == null ? ", **did not finish**" : ", ended " + run.ended()
                + " (" + millis(run.started(), run.ended()) + " ms)").append(".\n\n");
        if (!run.problems().isEmpty()) {
            md.append("> **Incomplete evidence.** What could not be read:\n");
            run.problems().forEach(p -> md.append(">\n> - ").append(mdCell(p)).append('\n'));
            md.append('\n');
        }
        md.append("| experiment | requirements | outcome | reason |\n|---|---|---|---|\n");
        for (ExperimentEvidence e : run.experiments()) {
            md.append("| ").append(e.name()).append(" | ").append(String.join(", ", e.requirements())).append(" | **")
                    .append(e.outcome().status()).append("** | ").append(mdCell(e.outcome().reason())).append(" |\n");
        }
        for (ExperimentEvidence e : run.experiments()) {
            md.append("\n<a id=\"exp-").append(e.name()).append("\"></a>\n\n## Experiment `").append(e.name()).append("`: ")
                    .append(e.outcome().status()).append("\n\n");
            md.append(mdCell(e.outcome().toString())).append("\n\n");
            if (e.outcome().confirmation() != null) {
                md.append("Fault confirmed: ").append(mdCell(e.outcome().confirmation().toString())).append("\n\n");
            }
            for (Payload.Matrix m : matrices(e)) {
                md.append("### ").append(mdCell(m.title())).append("\n\n| ").append(mdCell(m.rowHeading())).append(" |");
                m.columns().forEach(c -> md.append(' ').append(mdCell(c)).append(" |"));
                md.append("\n|---|").append("---|".repeat(m.columns().size())).append('\n');
                for (String r : m.rows()) {
                    md.append("| **").append(mdCell(r)).append("** |");
                    for (String c : m.columns()) {
                        md.append(' ').append(m.cell(r, c).map(x -> x.experiment() == null ? x.status()
                                : "[**" + x.status() + "**](#exp-" + x.experiment() + ")").orElse("")).append(" |");
                    }
                    md.append('\n');
                }
                md.append('\n');
                for (Payload.MatrixCell x : described(m)) {
                    md.append("- **").append(mdCell(x.row())).append(" × ").append(mdCell(x.column())).append("**: ")
                            .append(x.meaning() == null ? "" : mdCell(x.meaning())).append(" — ").append(x.status())
                            .append(x.reason() == null ? "" : ": " + mdCell(x.reason())).append('\n');
                }
                md.append('\n');
            }
            List<WireRow> wire = wireRows(e);
            if (!wire.isEmpty()) {
                md.append("### Offset commits on the wire\n\n")
                        .append("| # | t+ms | instance | member | generation | commits | offsets (the last) | held | what became of it |\n")
                        .append("|---|---|---|---|---|---|---|---|---|\n");
                for (WireRow w : wire) {
                    md.append("| ").append(w.seqs()).append(" | ").append(w.millis()).append(" | ").append(mdCell(w.last().instance()))
                            .append(" | ").append(mdCell(w.last().member())).append(" | ").append(w.last().generation()).append(" | ").append(w.count())
                            .append(" | ").append(mdCell(w.offsets().toString())).append(" | ").append(w.last().held() ? "yes" : "").append(" | ")
                            .append(mdCell(w.last().fateText())).append(" |\n");
                }
                md.append('\n');
            }
            md.append("### Checks\n\n");
            if (e.checks().isEmpty()) {
                md.append("_No check was evaluated._\n");
            } else {
                md.append("| check | requirement | expected | actual | verdict |\n|---|---|---|---|---|\n");
                for (Check c : e.checks()) {
                    md.append("| ").append(mdCell(c.name())).append(" | ").append(c.requirement()).append(" | ")
                            .append(mdCell(c.expected())).append(" | ").append(mdCell(c.actual())).append(" | **")
                            .append(c.status()).append("** |\n");
                }
            }
            md.append("\n### Timeline\n\n");
            if (e.events().isEmpty()) {
                md.append("_No event was recorded._\n");
            } else {
                md.append("| # | t+ms | source | event | detail |\n|---|---|---|---|---|\n");
                for (Event ev : timeline(e)) {
                    md.append("| ").append(ev.seq()).append(" | ").append(millis(e.started(), ev.time())).append(" | ")
                            .append(mdCell(sourceLabel(ev.source()))).append(" | ").append(ev.type()).append(" | ")
                            .append(mdCell(ev.payload().summary())).append(" |\n");
                }
            }
            md.append("\n### Environment\n\n");
            if (e.environment().isEmpty()) {
                md.append("_None recorded._\n");
            } else {
                md.append("| fact | value |\n|---|---|\n");
                e.environment().forEach((k, v) -> md.append("| ").append(mdCell(k)).append(" | ").append(mdCell(v)).append(" |\n"));
            }
            md.append("\n### Limitations\n\n");
            if (e.limitations().isEmpty()) {
                md.append("_None stated._\n");
            } else {
                e.limitations().forEach(l -> md.append("- ").append(l).append('\n'));
            }
            md.append("\n### Artifacts\n\n");
            if (e.artifacts().isEmpty()) {
                md.append("_None._\n");
            } else {
                e.artifacts().forEach(a -> md.append("- [`").append(a.path()).append("`](").append(a.path()).append(") — ")
                        .append(a.description()).append('\n'));
            }
            if (!e.metrics().isEmpty()) {
                md.append("\n### Metrics\n\n| meter | type | tags | values |\n|---|---|---|---|\n");
                for (MetricValue m : e.metrics()) {
                    md.append("| ").append(m.name()).append(" | ").append(m.type()).append(" | ").append(mdCell(sorted(m.tags())))
                            .append(" | ").append(mdCell(m.display())).append(" |\n");
                }
            }
        }
        return md.toString();
    }

    public static String html(RunEvidence run) {
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n<title>replay-lab run ")
                .append(esc(run.runId())).append("</title>\n<style>\n")
                .append("body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}")
                .append("table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}")
                .append(".PASS{color:#fff;background:#2e7d32}.FAIL{color:#fff;background:#c62828}.NOT_RUN{color:#000;background:#f9a825}")
                .append(".matrix td{text-align:center;font-weight:bold;min-width:6em}.matrix td a{color:inherit}.NOT_SELECTED{color:#666;background:#eee}")
                .append(".badge{padding:2px 8px;border-radius:4px;font-weight:bold}.problems{background:#fff3e0;padding:.5em 1em}")
                .append("svg text{font:11px sans-serif}code{background:#f4f4f4}\n</style></head><body>\n");
        h.append("<h1>replay-lab run <code>").append(esc(run.runId())).append("</code></h1>\n");
        h.append("<p id=\"outcome\">Outcome: ").append(badge(run.outcome().status()))
                .append(run.outcome().failKind() == null ? "" : " (" + esc(kind(run.outcome().failKind())) + ")")
                .append(" — ").append(esc(run.outcome().reason())).append("</p>\n");
        h.append("<p>Started ").append(esc(run.started().toString())).append(run.ended() == null ? ", <strong>did not finish</strong>"
                : ", ended " + esc(run.ended().toString()) + " (" + millis(run.started(), run.ended()) + " ms)").append(".</p>\n");
        if (!run.problems().isEmpty()) {
            h.append("<div class=\"problems\"><strong>Incomplete evidence.</strong> What could not be read:<ul>");
            run.problems().forEach(p -> h.append("<li>").append(esc(p)).append("</li>"));
            h.append("</ul></div>\n");
        }
        h.append("<table id=\"experiments\"><tr><th>experiment</th><th>requirements</th><th>outcome</th><th>reason</th></tr>\n");
        for (ExperimentEvidence e : run.experiments()) {
            h.append("<tr><td><a href=\"#exp-").append(esc(e.name())).append("\">").append(esc(e.name())).append("</a></td><td>")
                    .append(esc(String.join(", ", e.requirements()))).append("</td><td>").append(badge(e.outcome().status()))
                    .append("</td><td>").append(esc(e.outcome().reason())).append("</td></tr>\n");
        }
        h.append("</table>\n");
        for (ExperimentEvidence e : run.experiments()) {
            h.append("<section id=\"exp-").append(esc(e.name())).append("\">\n<h2>Experiment <code>").append(esc(e.name()))
                    .append("</code> ").append(badge(e.outcome().status())).append("</h2>\n<p>").append(esc(e.outcome().toString())).append("</p>\n");
            if (e.outcome().confirmation() != null) {
                h.append("<p>Fault confirmed: ").append(esc(e.outcome().confirmation().toString())).append("</p>\n");
            }
            for (Payload.Matrix m : matrices(e)) {
                h.append("<h3>").append(esc(m.title())).append("</h3>\n<table class=\"matrix\"><tr><th>").append(esc(m.rowHeading())).append("</th>");
                m.columns().forEach(c -> h.append("<th>").append(esc(c)).append("</th>"));
                h.append("</tr>\n");
                for (String r : m.rows()) {
                    h.append("<tr><th>").append(esc(r)).append("</th>");
                    for (String c : m.columns()) {
                        Payload.MatrixCell x = m.cell(r, c).orElse(null);
                        if (x == null) {
                            h.append("<td></td>");
                        } else {
                            String label = x.experiment() == null ? esc(x.status()) : "<a href=\"#exp-" + esc(x.experiment()) + "\">" + esc(x.status()) + "</a>";
                            h.append("<td class=\"").append(esc(x.status())).append("\" title=\"").append(esc(x.reason() == null ? "" : x.reason()))
                                    .append("\">").append(label).append("</td>");
                        }
                    }
                    h.append("</tr>\n");
                }
                h.append("</table>\n<ul class=\"matrix-cells\">");
                for (Payload.MatrixCell x : described(m)) {
                    h.append("<li><strong>").append(esc(x.row())).append(" × ").append(esc(x.column())).append("</strong>: ")
                            .append(esc(x.meaning() == null ? "" : x.meaning())).append(" — ").append(esc(x.status()))
                            .append(x.reason() == null ? "" : ": " + esc(x.reason())).append("</li>");
                }
                h.append("</ul>\n");
            }
            List<WireRow> wire = wireRows(e);
            if (!wire.isEmpty()) {
                h.append("<h3>Offset commits on the wire</h3>\n<table class=\"wire-commits\"><tr><th>#</th><th>t+ms</th><th>instance</th><th>member</th>"
                        + "<th>generation</th><th>commits</th><th>offsets (the last)</th><th>held</th><th>what became of it</th></tr>\n");
                for (WireRow w : wire) {
                    h.append("<tr><td>").append(w.seqs()).append("</td><td>").append(w.millis()).append("</td><td>").append(esc(w.last().instance()))
                            .append("</td><td>").append(esc(w.last().member())).append("</td><td>").append(w.last().generation()).append("</td><td>")
                            .append(w.count()).append("</td><td>").append(esc(w.offsets().toString())).append("</td><td>")
                            .append(w.last().held() ? "yes" : "").append("</td><td class=\"").append(w.last().accepted() ? "stored" : "refused")
                            .append("\">").append(esc(w.last().fateText())).append("</td></tr>\n");
                }
                h.append("</table>\n");
            }
            h.append("<h3>Checks</h3>\n<table class=\"checks\"><tr><th>check</th><th>requirement</th><th>expected</th><th>actual</th><th>verdict</th></tr>\n");
            for (Check c : e.checks()) {
                h.append("<tr><td>").append(esc(c.name())).append("</td><td>").append(esc(c.requirement())).append("</td><td>")
                        .append(esc(c.expected())).append("</td><td>").append(esc(c.actual())).append("</td><td>")
                        .append(badge(c.status())).append("</td></tr>\n");
            }
            h.append("</table>\n<h3>Timeline</h3>\n").append(lanes(e));
            h.append("<table class=\"timeline\"><tr><th>#</th><th>t+ms</th><th>source</th><th>event</th><th>detail</th></tr>\n");
            for (Event ev : timeline(e)) {
                h.append("<tr><td>").append(ev.seq()).append("</td><td>").append(millis(e.started(), ev.time())).append("</td><td>")
                        .append(esc(sourceLabel(ev.source()))).append("</td><td>").append(esc(ev.type())).append("</td><td>")
                        .append(esc(ev.payload().summary())).append("</td></tr>\n");
            }
            h.append("</table>\n<h3>Environment</h3>\n<table class=\"environment\">");
            e.environment().forEach((k, v) -> h.append("<tr><th>").append(esc(k)).append("</th><td>").append(esc(v)).append("</td></tr>"));
            h.append("</table>\n<h3>Limitations</h3>\n<ul class=\"limitations\">");
            e.limitations().forEach(l -> h.append("<li>").append(esc(l)).append("</li>"));
            h.append("</ul>\n<h3>Artifacts</h3>\n<ul class=\"artifacts\">");
            e.artifacts().forEach(a -> h.append("<li><a href=\"").append(esc(a.path())).append("\"><code>").append(esc(a.path()))
                    .append("</code></a> — ").append(esc(a.description())).append("</li>"));
            h.append("</ul>\n");
            if (!e.metrics().isEmpty()) {
                h.append("<h3>Metrics</h3>\n<table class=\"metrics\"><tr><th>meter</th><th>type</th><th>tags</th><th>values</th></tr>");
                for (MetricValue m : e.metrics()) {
                    h.append("<tr><td>").append(esc(m.name())).append("</td><td>").append(esc(m.type())).append("</td><td>")
                            .append(esc(sorted(m.tags()))).append("</td><td>").append(esc(m.display())).append("</td></tr>");
                }
                h.append("</table>\n");
            }
            h.append("</section>\n");
        }
        h.append("</body></html>\n");
        return h.toString();
    }

    /** An inline SVG: one lane per source instance; barrier holds as bars; commits and DB effects as marks. */
    private static String lanes(ExperimentEvidence e) {
        List<Event> events = timeline(e);
        if (events.isEmpty()) {
            return "<p><em>No event was recorded.</em></p>\n";
        }
        Map<String, Integer> lane = new LinkedHashMap<>();
        for (Event ev : events) {
            lane.putIfAbsent(ev.source().instance(), lane.size());
        }
        long span = Math.max(1, events.stream().mapToLong(ev -> millis(e.started(), ev.time())).max().orElse(1));
        int left = 150;
        int width = 900;
        int rowH = 34;
        int height = lane.size() * rowH + 30;
        StringBuilder s = new StringBuilder();
        s.append("<svg class=\"lanes\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(left + width + 20).append("\" height=\"")
                .append(height).append("\" role=\"img\" aria-label=\"timeline, one lane per process\">\n");
        lane.forEach((name, i) -> {
            int y = 10 + i * rowH;
            s.append("<g class=\"lane\" data-instance=\"").append(esc(name)).append("\"><text x=\"4\" y=\"").append(y + 18).append("\">")
                    .append(esc(name)).append("</text><line x1=\"").append(left).append("\" y1=\"").append(y + 14).append("\" x2=\"")
                    .append(left + width).append("\" y2=\"").append(y + 14).append("\" stroke=\"#bbb\"/></g>\n");
        });
        List<Event> reached = new ArrayList<>();
        for (Event ev : events) {
            int y = 10 + lane.get(ev.source().instance()) * rowH;
            double x = left + width * (double) millis(e.started(), ev.time()) / span;
            if (ev.payload() instanceof Payload.BarrierReached) {
                reached.add(ev);
            }
            if (ev.payload() instanceof Payload.BarrierReleased rel) {
                Event start = reached.stream().filter(r -> ((Payload.BarrierReached) r.payload()).point().equals(rel.point()))
                        .reduce((a, b) -> b).orElse(null);
                if (start != null) {
                    int ys = 10 + lane.get(start.source().instance()) * rowH;
                    double xs = left + width * (double) millis(e.started(), start.time()) / span;
                    s.append("<rect class=\"hold\" x=\"").append(fmt(xs)).append("\" y=\"").append(ys + 6).append("\" width=\"")
                            .append(fmt(Math.max(2, x - xs))).append("\" height=\"16\" fill=\"#ffcc80\"><title>barrier hold ")
                            .append(esc(rel.point())).append(": ").append(rel.heldMillis()).append(" ms</title></rect>\n");
                }
            }
            s.append("<circle class=\"event ").append(esc(ev.type())).append("\" cx=\"").append(fmt(x)).append("\" cy=\"").append(y + 14)
                    .append("\" r=\"5\" fill=\"").append(color(ev.payload())).append("\"><title>#").append(ev.seq()).append(' ')
                    .append(esc(ev.type())).append(": ").append(esc(ev.payload().summary())).append("</title></circle>\n");
        }
        s.append("<text x=\"").append(left).append("\" y=\"").append(height - 4).append("\">0 ms</text><text x=\"").append(left + width - 60)
                .append("\" y=\"").append(height - 4).append("\">").append(span).append(" ms</text>\n</svg>\n");
        s.append("<p class=\"legend\"><span style=\"color:#1565c0\">●</span> assignment <span style=\"color:#6a1b9a\">●</span> DB effect "
                + "<span style=\"color:#ef6c00\">●</span> barrier <span style=\"color:#2e7d32\">●</span> commit accepted "
                + "<span style=\"color:#c62828\">●</span> commit rejected <span style=\"color:#757575\">●</span> other</p>\n");
        return s.toString();
    }

    /** Events in the order they happened (an event read from a process's log is recorded after the fact). */
    private static List<Event> byTime(List<Event> events) {
        return events.stream().sorted(java.util.Comparator.comparing(Event::time).thenComparingLong(Event::seq)).toList();
    }

    private static String color(Payload p) {
        if (p instanceof Payload.AssignmentChanged) {
            return "#1565c0";
        }
        if (p instanceof Payload.DbCommitSeen) {
            return "#6a1b9a";
        }
        if (p instanceof Payload.CommitAccepted) {
            return "#2e7d32";
        }
        if (p instanceof Payload.CommitRejected) {
            return "#c62828";
        }
        if (p instanceof Payload.CommitWitnessed w) {
            return w.accepted() ? "#2e7d32" : "#c62828";
        }
        if (p instanceof Payload.CommitNotDelivered) {
            return "#6d4c41";
        }
        if (p instanceof Payload.BarrierEvent) { // the barrier's own moves
            return "#ef6c00";
        }
        return "#757575";
    }

    /** The cells that say what they mean or why they ended so (a matrix of plain values lists none). */
    private static List<Payload.MatrixCell> described(Payload.Matrix m) {
        return m.cells().stream().filter(c -> c.meaning() != null || c.reason() != null).toList();
    }

    /**
     * A run of witnessed commits in a row from one member at one generation, held or not, that
     * came to the same end: a subject that commits after each record sends hundreds, and a person
     * reads where the story changes (a new member, a new generation, a refusal).
     */
    private record WireRow(long firstSeq, long lastSeq, long firstMs, long lastMs, int count, Payload.CommitWitnessed last, Map<String, Long> offsets) {
        String seqs() {
            return count == 1 ? Long.toString(firstSeq) : firstSeq + "–" + lastSeq;
        }

        String millis() {
            return count == 1 ? Long.toString(firstMs) : firstMs + "–" + lastMs;
        }

        boolean continuedBy(Payload.CommitWitnessed c) {
            return c.instance().equals(last.instance()) && c.member().equals(last.member()) && c.generation() == last.generation()
                    && c.held() == last.held() && c.fateText().equals(last.fateText());
        }
    }

    private static List<WireRow> wireRows(ExperimentEvidence e) {
        List<WireRow> rows = new ArrayList<>();
        for (Event ev : byTime(e.events())) {
            if (!(ev.payload() instanceof Payload.CommitWitnessed c)) {
                continue;
            }
            long ms = millis(e.started(), ev.time());
            WireRow last = rows.isEmpty() ? null : rows.get(rows.size() - 1);
            if (last != null && last.continuedBy(c)) {
                Map<String, Long> offsets = new java.util.TreeMap<>(last.offsets());
                offsets.putAll(c.offsets());
                rows.set(rows.size() - 1, new WireRow(last.firstSeq(), ev.seq(), last.firstMs(), ms, last.count() + 1, c, offsets));
            } else {
                rows.add(new WireRow(ev.seq(), ev.seq(), ms, ms, 1, c, new java.util.TreeMap<>(c.offsets())));
            }
        }
        return rows;
    }

    /** Timeline rows: a commit the broker stored is in the wire table only (there may be hundreds); a refused one is in both. */
    private static List<Event> timeline(ExperimentEvidence e) {
        return byTime(e.events()).stream().filter(ev -> !(ev.payload() instanceof Payload.CommitWitnessed c && c.accepted())).toList();
    }

    private static List<Payload.Matrix> matrices(ExperimentEvidence e) {
        return e.events().stream().map(Event::payload).filter(p -> p instanceof Payload.Matrix).map(p -> (Payload.Matrix) p).toList();
    }

    private static String badge(Status s) {
        return "<span class=\"badge " + s + "\">" + s + "</span>";
    }

    private static String kind(FailKind k) {
        return k == FailKind.FAULT_NOT_OBSERVED ? "the expected fault did not happen" : "a correctness check failed";
    }

    private static String sourceLabel(Source s) {
        return s.instance() + " (pid " + s.pid() + (s.thread().isEmpty() ? "" : ", " + s.thread()) + ")";
    }

    static long millis(Instant from, Instant to) {
        return Duration.between(from, to).toMillis();
    }

    private static String sorted(Map<String, ?> m) {
        return new java.util.TreeMap<>(m).entrySet().stream().map(en -> en.getKey() + "=" + en.getValue())
                .collect(Collectors.joining(", "));
    }

    private static String fmt(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

    private static String mdCell(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\r", "").replace("\n", "<br>");
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
