package io.replaylab.evidence;

import static io.replaylab.evidence.Reports.esc;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import io.replaylab.evidence.Report.Block;
import io.replaylab.evidence.Report.Cell;
import io.replaylab.evidence.Report.Items;
import io.replaylab.evidence.Report.Lanes;
import io.replaylab.evidence.Report.Section;
import io.replaylab.evidence.Report.Table;

/** Draws a {@link Report} as one self-contained HTML page ({@code report.html}), with the timeline as one lane per process. */
final class HtmlReport {
    private HtmlReport() {
    }

    static String render(Report.Document doc) {
        RunEvidence run = doc.run();
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n<title>replay-lab run ")
                .append(esc(run.runId())).append("</title>\n<style>\n")
                .append("body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}")
                .append("table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}")
                .append(".PASS{color:#fff;background:#2e7d32}.FAIL{color:#fff;background:#c62828}.NOT_RUN{color:#000;background:#f9a825}")
                .append(".matrix td{text-align:center;font-weight:bold;min-width:6em}.matrix td a{color:inherit}.NOT_SELECTED{color:#666;background:#eee}")
                .append(".badge{padding:2px 8px;border-radius:4px;font-weight:bold}.problems{background:#fff3e0;padding:.5em 1em}")
                .append("svg text{font:11px sans-serif}code{background:#f4f4f4}details summary{cursor:pointer;color:#1565c0}")
                .append(".defects td.caught{background:#ffebee}.defects td.absent{background:#e8f5e9}.defects td.unjudged{background:#fff8e1}\n")
                .append("</style></head><body>\n");
        h.append("<h1>replay-lab run <code>").append(esc(run.runId())).append("</code></h1>\n");
        h.append("<p id=\"outcome\">Outcome: ").append(badge(run.outcome().status().toString()))
                .append(run.outcome().failKind() == null ? "" : " (" + esc(Reports.kind(run.outcome().failKind())) + ")")
                .append(" — ").append(esc(run.outcome().reason())).append("</p>\n");
        h.append("<p>Started ").append(esc(run.started().toString())).append(run.ended() == null ? ", <strong>did not finish</strong>"
                : ", ended " + esc(run.ended().toString()) + " (" + Duration.between(run.started(), run.ended()).toMillis() + " ms)").append(".</p>\n");
        if (!run.problems().isEmpty()) {
            h.append("<div class=\"problems\"><strong>Incomplete evidence.</strong> What could not be read:<ul>");
            run.problems().forEach(p -> h.append("<li>").append(esc(p)).append("</li>"));
            h.append("</ul></div>\n");
        }
        for (Section s : doc.first()) { // the verdict first: what the run found, before how
            h.append("<section class=\"run-section\"><h2>").append(esc(s.title())).append("</h2>\n");
            s.blocks().forEach(b -> h.append(block(b)));
            h.append("</section>\n");
        }
        h.append("<h2>Experiments</h2>\n").append(block(doc.experiments()));
        for (Report.Part part : doc.parts()) {
            ExperimentEvidence e = part.experiment();
            h.append("<section id=\"exp-").append(esc(e.name())).append("\">\n<h2>Experiment <code>").append(esc(e.name()))
                    .append("</code> ").append(badge(e.outcome().status().toString())).append("</h2>\n<p>").append(esc(e.outcome().toString())).append("</p>\n");
            if (e.outcome().confirmation() != null) {
                h.append("<p>Fault confirmed: ").append(esc(e.outcome().confirmation().toString())).append("</p>\n");
            }
            for (Section s : part.sections()) {
                h.append("<h3>").append(esc(s.title())).append("</h3>\n");
                s.blocks().forEach(b -> h.append(block(b)));
            }
            h.append("</section>\n");
        }
        h.append("</body></html>\n");
        return h.toString();
    }

    private static String block(Block b) {
        if (b instanceof Table t) {
            if (t.rows().isEmpty() && t.whenEmpty() != null) {
                return empty(t.whenEmpty());
            }
            StringBuilder h = new StringBuilder("<table class=\"").append(esc(t.name())).append("\"><tr>");
            t.head().forEach(c -> h.append("<th>").append(esc(c)).append("</th>"));
            h.append("</tr>\n");
            for (List<Cell> row : t.rows()) {
                h.append("<tr>");
                for (Cell c : row) {
                    String tag = c.style() == Report.Style.HEADER ? "th" : "td";
                    h.append('<').append(tag).append(c.css() == null ? "" : " class=\"" + esc(c.css()) + "\"")
                            .append(c.title() == null ? "" : " title=\"" + esc(c.title()) + "\"").append('>').append(inline(c))
                            .append("</").append(tag).append('>');
                }
                h.append("</tr>\n");
            }
            return h.append("</table>\n").toString();
        }
        if (b instanceof Items l) {
            if (l.items().isEmpty() && l.whenEmpty() != null) {
                return empty(l.whenEmpty());
            }
            return "<ul class=\"" + esc(l.name()) + "\">" + l.items().stream()
                    .map(i -> "<li>" + i.stream().map(HtmlReport::inline).collect(Collectors.joining()) + "</li>").collect(Collectors.joining())
                    + "</ul>\n";
        }
        if (b instanceof Report.Sequence q) {
            return sequence(q);
        }
        return lanes((Lanes) b);
    }

    /** One row of the sequence diagram: an arrow (a message, or several alike in a row) or a mark on one party's line. */
    private record Row(Event event, Report.Message message, int times, Report.Mark mark) {
    }

    /** At most this many rows: a diagram of hundreds of commits says less than one of the faults and what was refused. */
    static final int SEQUENCE_ROWS = 60;

    /**
     * The sequence diagram: a lifeline per party (the instances, the broker, the database), time downwards; each message an
     * arrow (refused ones red), consecutive alike ones (the same parties, accepted) one arrow ×N; each marked event (a fault,
     * a hold, a process started or killed) a dot on its party's line with its words. Nothing when no event is a message.
     */
    private static String sequence(Report.Sequence q) {
        List<Row> rows = new java.util.ArrayList<>();
        for (Event ev : q.events()) {
            java.util.Optional<Report.Message> m = ev.payload() instanceof Payload.Extension x ? x.arrow() : java.util.Optional.empty();
            Report.Mark mark = Report.Mark.of(ev.payload());
            if (m.isPresent()) {
                Row last = rows.isEmpty() ? null : rows.get(rows.size() - 1);
                if (last != null && last.message() != null && !m.get().refused() && !last.message().refused()
                        && last.message().from().equals(m.get().from()) && last.message().to().equals(m.get().to())) {
                    rows.set(rows.size() - 1, new Row(last.event(), last.message(), last.times() + 1, null));
                } else {
                    rows.add(new Row(ev, m.get(), 1, null));
                }
            } else if (!mark.equals(Report.Mark.OTHER)) {
                rows.add(new Row(ev, null, 1, mark));
            }
        }
        if (rows.stream().noneMatch(r -> r.message() != null)) {
            return "";
        }
        if (rows.size() > SEQUENCE_ROWS) { // refused messages and marks first; then the earliest
            List<Row> kept = rows.stream().filter(r -> r.message() == null || r.message().refused()).limit(SEQUENCE_ROWS).toList();
            int room = SEQUENCE_ROWS - kept.size();
            java.util.Set<Row> keep = new java.util.HashSet<>(kept);
            rows.stream().filter(r -> !keep.contains(r)).limit(Math.max(0, room)).forEach(keep::add);
            rows = rows.stream().filter(keep::contains).toList();
        }
        Map<String, Integer> party = new LinkedHashMap<>();
        for (Row r : rows) {
            if (r.message() != null) {
                party.putIfAbsent(r.message().from(), party.size());
                party.putIfAbsent(r.message().to(), party.size());
            } else {
                party.putIfAbsent(r.event().source().instance(), party.size());
            }
        }
        int col = 190;
        int rowH = 26;
        int top = 40;
        int width = party.size() * col + 40;
        int height = top + rows.size() * rowH + 20;
        StringBuilder s = new StringBuilder();
        s.append("<svg class=\"sequence\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"").append(height)
                .append("\" role=\"img\" aria-label=\"sequence diagram: who sent what to whom, and the faults\">\n")
                .append("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">")
                .append("<path d=\"M0,0 L10,5 L0,10 z\" fill=\"context-stroke\"/></marker></defs>\n");
        party.forEach((name, i) -> {
            int x = 20 + i * col + col / 2;
            s.append("<g class=\"party\"><rect x=\"").append(x - col / 2 + 8).append("\" y=\"4\" width=\"").append(col - 16)
                    .append("\" height=\"22\" fill=\"#eceff1\" stroke=\"#90a4ae\"/><text x=\"").append(x).append("\" y=\"19\" text-anchor=\"middle\">")
                    .append(esc(name.length() > 28 ? name.substring(0, 27) + "…" : name)).append("</text><line x1=\"").append(x).append("\" y1=\"26\" x2=\"")
                    .append(x).append("\" y2=\"").append(height - 10).append("\" stroke=\"#b0bec5\" stroke-dasharray=\"4 3\"/></g>\n");
        });
        for (int n = 0; n < rows.size(); n++) {
            Row r = rows.get(n);
            int y = top + n * rowH + 12;
            long t = Report.sinceStart(q.experiment(), r.event());
            if (r.message() != null) {
                int x1 = 20 + party.get(r.message().from()) * col + col / 2;
                int x2 = 20 + party.get(r.message().to()) * col + col / 2;
                String color = r.message().refused() ? "#c62828" : "#37474f";
                String label = r.message().label() + (r.times() > 1 ? " ×" + r.times() : "");
                s.append("<g class=\"message").append(r.message().refused() ? " refused" : "").append("\"><title>t+").append(t).append(" ms #")
                        .append(r.event().seq()).append(": ").append(esc(r.event().payload().summary())).append("</title><line x1=\"").append(x1)
                        .append("\" y1=\"").append(y).append("\" x2=\"").append(x2 + (x2 > x1 ? -2 : 2)).append("\" y2=\"").append(y)
                        .append("\" stroke=\"").append(color).append("\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/><text x=\"")
                        .append((x1 + x2) / 2).append("\" y=\"").append(y - 4).append("\" text-anchor=\"middle\" fill=\"").append(color).append("\">")
                        .append(esc(label.length() > 60 ? label.substring(0, 59) + "…" : label)).append("</text></g>\n");
            } else {
                int x = 20 + party.get(r.event().source().instance()) * col + col / 2;
                String words = r.event().payload().summary();
                s.append("<g class=\"mark\"><title>t+").append(t).append(" ms #").append(r.event().seq()).append(": ").append(esc(words))
                        .append("</title><circle cx=\"").append(x).append("\" cy=\"").append(y).append("\" r=\"5\" fill=\"")
                        .append(esc(r.mark().color())).append("\"/><text x=\"").append(x + 9).append("\" y=\"").append(y + 4).append("\">")
                        .append(esc(r.mark().label() + ": " + (words.length() > 50 ? words.substring(0, 49) + "…" : words))).append("</text></g>\n");
            }
        }
        return s.append("</svg>\n").toString();
    }

    private static String empty(String saying) {
        return "<p><em>" + esc(saying) + "</em></p>\n";
    }

    /** Text longer than this is folded: its start shown, the rest a click away. */
    static final int FOLD = 280;

    private static String inline(Cell c) {
        String shown = switch (c.style()) {
            case PLAIN -> c.text().length() > FOLD && c.href() == null ? "<details class=\"fold\"><summary>" + esc(c.text().substring(0, 160))
                    + "…</summary>" + esc(c.text()) + "</details>" : esc(c.text());
            case HEADER -> esc(c.text());
            case STRONG -> "<strong>" + esc(c.text()) + "</strong>";
            case CODE -> "<code>" + esc(c.text()) + "</code>";
            case BADGE -> badge(c.text());
        };
        return c.href() == null ? shown : "<a href=\"" + esc(c.href()) + "\">" + shown + "</a>";
    }

    private static String badge(String verdict) {
        return "<span class=\"badge " + esc(verdict) + "\">" + esc(verdict) + "</span>";
    }

    /** An inline SVG: one lane per source instance; the sections' spans as bars; each event as a mark in its kind's colour. */
    private static String lanes(Lanes l) {
        List<Event> events = l.events();
        if (events.isEmpty()) {
            return "";
        }
        ExperimentEvidence e = l.experiment();
        Map<String, Integer> lane = new LinkedHashMap<>();
        for (Event ev : events) {
            lane.putIfAbsent(ev.source().instance(), lane.size());
        }
        long span = Math.max(1, events.stream().mapToLong(ev -> Report.sinceStart(e, ev)).max().orElse(1));
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
        Map<String, Report.Mark> legend = new LinkedHashMap<>();
        for (int n = 0; n < events.size(); n++) {
            Event ev = events.get(n);
            Report.Mark mark = l.marks().get(n);
            legend.putIfAbsent(mark.label(), mark);
            int y = 10 + lane.get(ev.source().instance()) * rowH;
            double x = left + width * (double) Report.sinceStart(e, ev) / span;
            for (Report.Span bar : l.spans()) {
                if (bar.to().equals(ev) && lane.containsKey(bar.from().source().instance())) {
                    int ys = 10 + lane.get(bar.from().source().instance()) * rowH;
                    double xs = left + width * (double) Report.sinceStart(e, bar.from()) / span;
                    s.append("<rect class=\"hold\" x=\"").append(fmt(xs)).append("\" y=\"").append(ys + 6).append("\" width=\"")
                            .append(fmt(Math.max(2, x - xs))).append("\" height=\"16\" fill=\"#ffcc80\"><title>")
                            .append(esc(bar.title())).append("</title></rect>\n");
                }
            }
            s.append("<circle class=\"event ").append(esc(ev.type())).append("\" cx=\"").append(fmt(x)).append("\" cy=\"").append(y + 14)
                    .append("\" r=\"5\" fill=\"").append(esc(mark.color())).append("\"><title>#").append(ev.seq()).append(' ')
                    .append(esc(ev.type())).append(": ").append(esc(ev.payload().summary())).append("</title></circle>\n");
        }
        s.append("<text x=\"").append(left).append("\" y=\"").append(height - 4).append("\">0 ms</text><text x=\"").append(left + width - 60)
                .append("\" y=\"").append(height - 4).append("\">").append(span).append(" ms</text>\n</svg>\n");
        s.append("<p class=\"legend\">").append(legend.values().stream()
                .map(m -> "<span style=\"color:" + esc(m.color()) + "\">●</span> " + esc(m.label())).collect(Collectors.joining(" "))).append("</p>\n");
        return s.toString();
    }

    private static String fmt(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }
}
