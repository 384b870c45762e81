package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsTest {
    @TempDir
    Path dir;

    @Test
    void anAttachedRegistryIsSnapshottedAtFinishSavedAndReadBack() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registry.counter("records.redelivered", "experiment", "replay").increment(120);
        registry.timer("phase.drain").record(Duration.ofMillis(1500));
        registry.gauge("lag", 0);
        RunEvidence saved;
        try (RunRecorder run = RunRecorder.start(dir, "m")) {
            ExperimentRecorder e = run.experiment("replay", "R5");
            e.metrics(registry);
            registry.counter("records.redelivered", "experiment", "replay").increment(80); // after attaching: the finish snapshot has it
            e.finish(Outcome.notRun("metrics only"));
            saved = run.save().evidence();
        }
        RunEvidence read = Evidence.read(dir.resolve(Evidence.EVIDENCE_FILE));

        assertThat(read).isEqualTo(saved);
        assertThat(read.experiments().get(0).metrics()).extracting(MetricValue::name).containsExactly("lag", "phase.drain", "records.redelivered");
        MetricValue counter = read.experiments().get(0).metrics().get(2);
        assertThat(counter.type()).isEqualTo("counter");
        assertThat(counter.tags()).containsEntry("experiment", "replay");
        assertThat(counter.values()).containsEntry("count", 200.0);
        MetricValue timer = read.experiments().get(0).metrics().get(1);
        assertThat(timer.unit()).isEqualTo("seconds");
        assertThat(timer.display()).isEqualTo("count 1, total 1.5 s, max 1.5 s");
        assertThat(counter.display()).isEqualTo("count 200");
        assertThat(Reports.markdown(read)).contains("### Metrics").contains("| records.redelivered | counter | experiment=replay | count 200 |")
                .contains("| phase.drain | timer |  | count 1, total 1.5 s, max 1.5 s |");
        assertThat(Evidence.read(dir.resolve(Evidence.JOURNAL_FILE)).experiments().get(0).metrics()).isEqualTo(read.experiments().get(0).metrics());
    }
}
