package io.replaylab.evidence;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.replaylab.evidence.Report.Block;
import io.replaylab.evidence.Report.Cell;
import io.replaylab.evidence.Report.Items;
import io.replaylab.evidence.Report.Section;
import io.replaylab.evidence.Report.Table;

/** Draws a {@link Report} as Markdown ({@code report.md}); the HTML timeline's lanes have no Markdown form. */
final class MarkdownReport {
    private MarkdownReport() {
    }

    static String render(Report.Document doc) {
        RunEvidence run = doc.run();
        StringBuilder md = new StringBuilder();
        md.append("# replay-lab run `").append(run.runId()).append("`\n\n");
        md.append("**Outcome: ").append(run.outcome().status()).append("**")
                .append(run.outcome().failKind() == null ? "" : " (" + Reports.kind(run.outcome().failKind()) + ")")
                .append(" — ").append(cell(run.outcome().reason())).append("\n\n");
        md.append("Started ").append(run.started()).append(run.ended() == null ? ", **did not finish**" : ", ended " + run.ended()
                + " (" + Duration.between(run.started(), run.ended()).toMillis() + " ms)").append(".\n\n");
        if (!run.problems().isEmpty()) {
            md.append("> **Incomplete evidence.** What could not be read:\n");
            run.problems().forEach(p -> md.append(">\n> - ").append(cell(p)).append('\n'));
            md.append('\n');
        }
        for (Section s : doc.first()) { // the verdict first, as in report.html
            md.append("## ").append(cell(s.title())).append("\n\n");
            s.blocks().stream().filter(b -> !(b instanceof Report.Lanes || b instanceof Report.Sequence)).forEach(b -> md.append(block(b)).append('\n'));
        }
        md.append(block(doc.experiments()));
        for (Report.Part part : doc.parts()) {
            ExperimentEvidence e = part.experiment();
            md.append("\n<a id=\"exp-").append(e.name()).append("\"></a>\n\n## Experiment `").append(e.name()).append("`: ")
                    .append(e.outcome().status()).append("\n\n");
            md.append(cell(e.outcome().toString())).append("\n\n");
            if (e.outcome().confirmation() != null) {
                md.append("Fault confirmed: ").append(cell(e.outcome().confirmation().toString())).append("\n\n");
            }
            // a blank line between blocks; a section's heading before its first block
            List<String> blocks = new ArrayList<>();
            for (Section s : part.sections()) {
                String heading = "### " + cell(s.title()) + "\n\n";
                for (Block b : s.blocks()) {
                    if (!(b instanceof Report.Lanes || b instanceof Report.Sequence)) {
                        blocks.add(heading + block(b));
                        heading = "";
                    }
                }
            }
            md.append(String.join("\n", blocks));
        }
        return md.toString();
    }

    private static String block(Block b) {
        if (b instanceof Table t) {
            if (t.rows().isEmpty() && t.whenEmpty() != null) {
                return "_" + t.whenEmpty() + "_\n";
            }
            StringBuilder md = new StringBuilder();
            md.append("| ").append(t.head().stream().map(MarkdownReport::cell).collect(Collectors.joining(" | "))).append(" |\n|")
                    .append("---|".repeat(t.head().size())).append('\n');
            t.rows().forEach(r -> md.append("| ").append(r.stream().map(MarkdownReport::cell).collect(Collectors.joining(" | "))).append(" |\n"));
            return md.toString();
        }
        if (b instanceof Items l) {
            if (l.items().isEmpty() && l.whenEmpty() != null) {
                return "_" + l.whenEmpty() + "_\n";
            }
            return l.items().stream().map(i -> "- " + i.stream().map(MarkdownReport::cell).collect(Collectors.joining()) + "\n").collect(Collectors.joining());
        }
        return ""; // the lanes: HTML only
    }

    private static String cell(Cell c) {
        String text = cell(c.text());
        String shown = switch (c.style()) {
            case PLAIN -> text;
            case STRONG, BADGE, HEADER -> "**" + text + "**";
            case CODE -> "`" + text + "`";
        };
        return c.href() == null ? shown : "[" + shown + "](" + c.href() + ")";
    }

    /** Text fit for a table cell: no column breaks, no line breaks. */
    private static String cell(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\r", "").replace("\n", "<br>");
    }
}
