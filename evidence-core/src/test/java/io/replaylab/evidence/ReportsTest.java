package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class ReportsTest {
    @TempDir
    Path dir;

    /** Regenerate with -Dgolden.update=true, then review the diff of the golden file. */
    @Test
    void markdownOfAKnownRunMatchesTheReviewedGoldenFile() throws Exception {
        RunEvidence run;
        try (RunRecorder r = SampleRuns.knownRun(dir)) {
            run = r.save().evidence();
        }
        String md = Reports.markdown(run).replace("(pid " + ProcessHandle.current().pid(), "(pid PID");
        Path golden = Path.of("src/test/resources/golden/known-run.md");
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(golden, md);
            // never pass against a file this run just wrote: the rewrite is reviewed, then the test runs again without the flag
            org.junit.jupiter.api.Assertions.fail("golden file " + golden + " rewritten; review its diff and run again without -Dgolden.update");
        }
        assertThat(md).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
        assertThat(Files.readString(dir.resolve("report.md"))).isEqualTo(Reports.markdown(run));
    }

    @Test
    void htmlIsWellFormedSelfContainedAndDrawsOneLanePerProcess() throws Exception {
        RunEvidence run;
        try (RunRecorder r = SampleRuns.knownRun(dir)) {
            run = r.save().evidence();
        }
        String html = Files.readString(dir.resolve("report.html"));
        assertThat(html).doesNotContain("<script").doesNotContain("src=\"http").doesNotContain("<link");

        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
        Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));

        NodeList groups = doc.getElementsByTagName("g");
        assertThat(groups.getLength()).isEqualTo(3);
        assertThat(((Element) groups.item(0)).getAttribute("data-instance")).isEqualTo("consumer-A");
        assertThat(doc.getElementsByTagName("circle").getLength()).isEqualTo(run.experiments().get(0).events().size());
        NodeList rects = doc.getElementsByTagName("rect");
        assertThat(rects.getLength()).as("one pause bar, from the lab's own section").isEqualTo(1);
        assertThat(rects.item(0).getTextContent()).contains("700 ms");
        assertThat(html).containsPattern("id=\"outcome\">Outcome: <span class=\"badge PASS\">");
        assertThat(html).contains(SampleRuns.LIMITATION).contains("logs/A.assignments.jsonl")
                .as("the lab's own section, as in the Markdown").contains("<h3>Pauses</h3>\n<table class=\"pauses\"><tr><th>point</th><th>ms</th></tr>\n<tr><td>write</td><td>700</td></tr>");
    }

    @Test
    void htmlEscapesEverythingItShows() {
        assertThat(Reports.esc("<script>&\"'")).isEqualTo("&lt;script&gt;&amp;&quot;&#39;");
    }

    @Test
    void aMatrixIsDrawnAsATableWhoseCellsLinkToTheirPartsAndSayWhatEachCellMeans() throws Exception {
        RunEvidence run;
        try (RunRecorder r = RunRecorder.start(dir, "run-matrix")) {
            ExperimentRecorder whole = r.experiment("schedules");
            ExperimentRecorder part = r.experiment("schedules.p1.crash");
            part.finish(Outcome.checkFailed("check failed: oracle"));
            whole.record(Source.here("harness"), new Payload.Matrix("Schedule", "point", List.of("p1", "p2"), List.of("hold", "crash"), List.of(
                    new Payload.MatrixCell("p1", "crash", "FAIL", "schedules.p1.crash", "killed at p1", "check failed: oracle"),
                    new Payload.MatrixCell("p2", "hold", "NOT_SELECTED", null, "held at p2", null))));
            whole.finish(Outcome.checkFailed("worst cell: p1 × crash"));
            run = r.save().evidence();
        }

        String md = Reports.markdown(run);
        assertThat(md).contains("| point | hold | crash |\n|---|---|---|\n| **p1** |  | [**FAIL**](#exp-schedules.p1.crash) |\n| **p2** | NOT_SELECTED |  |")
                .contains("<a id=\"exp-schedules.p1.crash\"></a>")
                .contains("- **p1 × crash**: killed at p1 — FAIL: check failed: oracle");
        String html = Reports.html(run);
        assertThat(html).contains("<td class=\"FAIL\" title=\"check failed: oracle\"><a href=\"#exp-schedules.p1.crash\"><strong>FAIL</strong></a></td>")
                .contains("<section id=\"exp-schedules.p1.crash\">").contains("<td class=\"NOT_SELECTED\" title=\"\">NOT_SELECTED</td>");
    }
}
