package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Another lab's own kind of event is recorded, read back typed from the journal and from evidence.json, and shown in both reports. */
class PayloadExtensionTest {
    /** A lab's event kind, as another lab writes it. */
    public record DrainStarted(String instance, long lag) implements Payload.Extension {
        @Override
        public String summary() {
            return instance + " starts draining " + lag + " records";
        }
    }

    /** What the lab lists in META-INF/services/io.replaylab.evidence.PayloadTypes (here: the test resources). */
    public static final class LabTypes implements PayloadTypes {
        @Override
        public List<Class<? extends Payload.Extension>> types() {
            return List.of(DrainStarted.class);
        }
    }

    @TempDir
    Path dir;

    private SavedProtocol recordOne() {
        try (RunRecorder run = RunRecorder.start(dir, "run-ext")) {
            ExperimentRecorder e = run.experiment("drain", "R10");
            Event started = e.record(Source.here("my-lab"), new DrainStarted("consumer-A", 42));
            e.check(Check.of("drained", "R10", "lag 0", "lag 0", true));
            e.finish(Outcome.judge(e.confirmFault("the drain started", started), e.checks()));
            return run.save();
        }
    }

    @Test
    void aLabsOwnEventIsWrittenAndReadBackTypedFromTheEvidenceAndTheJournal() throws Exception {
        SavedProtocol saved = recordOne();

        for (Path file : List.of(saved.evidenceFile(), dir.resolve(Evidence.JOURNAL_FILE))) {
            Event e = Evidence.read(file).experiments().get(0).events().get(0);
            assertThat(e.payload()).as(file.getFileName().toString()).isEqualTo(new DrainStarted("consumer-A", 42));
            assertThat(e.type()).isEqualTo("drain-started");
        }
        assertThat(Files.readString(saved.evidenceFile())).contains("\"type\" : \"drain-started\"");
    }

    @Test
    void bothReportsShowItLikeOurOwnEvents() {
        SavedProtocol saved = recordOne();

        assertThat(saved.reportMarkdown()).content().contains("drain-started").contains("consumer-A starts draining 42 records");
        assertThat(saved.reportMarkdown().resolveSibling("report.html")).content().contains("drain-started")
                .contains("consumer-A starts draining 42 records");
    }

    @Test
    void aKindThisJvmDoesNotKnowReadsAsUnregisteredAndIsWrittenBackAsItWas() throws Exception {
        SavedProtocol saved = recordOne();
        Path foreign = dir.resolve("foreign.json");
        Files.writeString(foreign, Files.readString(saved.evidenceFile()).replace("drain-started", "someone-elses-event"));

        RunEvidence r = Evidence.read(foreign);
        Payload p = r.experiments().get(0).events().get(0).payload();
        assertThat(p).isEqualTo(new Payload.Unregistered("someone-elses-event", Map.of("instance", "consumer-A", "lag", 42)));
        assertThat(p.type()).isEqualTo("someone-elses-event");
        assertThat(Reports.markdown(r)).contains("someone-elses-event");

        Path again = dir.resolve("again.json");
        Evidence.write(again, r);
        assertThat(Files.readString(again)).contains("\"type\" : \"someone-elses-event\"").contains("\"lag\" : 42").doesNotContain("unregistered");
    }
}
