package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Evidence written when replay-lab's barrier, offsets and oracle events were evidence-core's own
 * (src/test/resources/evidence-0.1) reads in a JVM without the modules that now hold them: each such
 * event is {@link Payload.Unregistered} under its old type name, both reports show it, and it is written
 * back as it was. harness-cli's OldEvidenceReportTest reads the same files with the modules present.
 */
class OldEvidenceTest {
    private static final Path KNOWN_RUN = Path.of("src/test/resources/evidence-0.1/known-run.json");
    private static final Path EVERY_KIND = Path.of("src/test/resources/evidence-0.1/every-kind.json");

    @TempDir
    Path dir;

    @Test
    void theMovedKindsReadAsUnregisteredUnderTheirOldNames() throws Exception {
        RunEvidence run = Evidence.read(KNOWN_RUN);
        List<Payload> payloads = run.experiments().get(0).events().stream().map(Event::payload).toList();

        assertThat(payloads).hasSize(7).allMatch(Payload.Unregistered.class::isInstance);
        assertThat(payloads).extracting(Payload::type).containsExactly("assignment-changed", "barrier-armed", "barrier-reached",
                "db-commit-seen", "assignment-changed", "barrier-released", "commit-rejected");
        assertThat(run.outcome().status()).isEqualTo(Status.PASS);
        assertThat(run.experiments().get(0).outcome().confirmation().eventType()).isEqualTo("commit-rejected");
    }

    @Test
    void bothReportsStillShowThemWithTheirFields() throws Exception {
        RunEvidence run = Evidence.read(KNOWN_RUN);

        String md = Reports.markdown(run);
        assertThat(md).contains("| 3 | 300 | consumer-A (pid 201, main) | barrier-reached | {context={offsets=t-0=1}, point=commitSync, stack=[], thread=main} |")
                .contains("| 7 | 700 | consumer-A (pid 201, main) | commit-rejected |");
        assertThat(Reports.html(run)).contains("<td>barrier-released</td><td>{by=controller, heldMillis=700, point=commitSync}</td>")
                .as("a kind nobody knows is drawn as any other").contains("fill=\"#757575\"");
    }

    @Test
    void everyKindIsWrittenBackAsItWasRead() throws Exception {
        RunEvidence run = Evidence.read(EVERY_KIND);
        Path again = dir.resolve("again.json");
        Evidence.write(again, run);

        assertThat(run.experiments().get(0).events()).extracting(Event::payload).filteredOn(Payload.Unregistered.class::isInstance).as("five witnessed commits and the fourteen kinds that moved").hasSize(19);
        assertThat(Json.mapper().readTree(again.toFile())).isEqualTo(Json.mapper().readTree(EVERY_KIND.toFile()));
    }
}
