package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.replaylab.evidence.Event;
import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.Json;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunEvidence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Evidence written when replay-lab's barrier, offsets and oracle events were evidence-core's own
 * (src/test/resources/evidence-0.1, with the Markdown report of that time) reads typed with the
 * modules that now hold them, and {@code report} draws it as it did then. evidence-core's
 * OldEvidenceTest reads the same files without these modules.
 */
class OldEvidenceReportTest {
    private static final Path OLD = Path.of("src/test/resources/evidence-0.1");

    @TempDir
    Path dir;

    @Test
    void everyOldKindReadsTypedAndIsWrittenBackAsItWas() throws Exception {
        RunEvidence run = Evidence.read(OLD.resolve("every-kind.json"));
        assertThat(run.experiments().get(0).events()).extracting(Event::payload).hasSizeGreaterThan(20)
                .noneMatch(Payload.Unregistered.class::isInstance);

        Path again = dir.resolve("again.json");
        Evidence.write(again, run);
        assertThat(Json.mapper().readTree(again.toFile())).isEqualTo(Json.mapper().readTree(OLD.resolve("every-kind.json").toFile()));
    }

    @Test
    void theReportOfAnOldRunIsTheReportOfThatTime() throws Exception {
        for (String name : new String[] {"known-run", "every-kind"}) {
            String then = Files.readString(OLD.resolve(name + ".md"), StandardCharsets.UTF_8)
                    // the one change since: the experiments table links to each experiment in Markdown too, as in HTML
                    .replace("| rebalance |", "| [rebalance](#exp-rebalance) |");
            String now = report(name, "md");
            // and the other: the verdict by defect class comes first when the run had an experiment that judges one (rebalance)
            assertThat(now).as(name).contains("## Verdict by defect class\n\n| verdict | defect class | judged by | what decided it |");
            assertThat(now.replaceFirst("(?s)## Verdict by defect class\n.*?(?=\\| experiment \\|)", "")).as(name).isEqualTo(then);
        }
    }

    @Test
    void theHtmlOfAnOldRunDrawsTheHoldAndTheKindsColours() throws Exception {
        String html = report("known-run", "html");

        assertThat(html).containsOnlyOnce("<rect class=\"hold\"").contains("<title>barrier hold commitSync: 700 ms</title>")
                .contains("fill=\"#1565c0\"").contains("fill=\"#6a1b9a\"").contains("fill=\"#ef6c00\"").contains("fill=\"#c62828\"")
                .contains("</span> assignment <span").contains("</span> DB effect <span").contains("</span> commit rejected</p>");
    }

    private static String report(String name, String format) {
        Console c = Console.run("report", OLD.resolve(name + ".json").toString(), "--format", format);
        assertThat(c.rc()).as(c.err()).isZero();
        return c.out();
    }
}
