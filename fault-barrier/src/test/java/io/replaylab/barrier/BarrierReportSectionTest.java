package io.replaylab.barrier;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.replaylab.barrier.BarrierEvent.CommitWitnessed;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Json;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Reports;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** fault-barrier's events keep their JSON names, and its report section draws the wire's commits and the holds in both reports. */
class BarrierReportSectionTest {
    @TempDir
    Path dir;

    @Test
    void everyBarrierEventKeepsItsNameAndRoundTripsThroughJson() throws Exception {
        List<BarrierEvent> samples = List.of(new BarrierEvent.BarrierArmed("commitSync", "thread", ""),
                new BarrierEvent.BarrierReached("commitSync", "main", Map.of("offsets", "t-0=5"), List.of("KafkaConsumer.commitSync")),
                new BarrierEvent.BarrierReleased("commitSync", "controller", 9000), new BarrierEvent.BarrierExpired("commitSync", 30000),
                new BarrierEvent.CommitAccepted("A", Map.of("t-0", 5L)),
                new BarrierEvent.CommitRejected("A", Map.of("t-0", 5L), "org.apache.kafka.clients.consumer.CommitFailedException", "kicked out"),
                new BarrierEvent.CommitNotDelivered("A", Map.of("t-0", 5L), "closed"),
                new CommitWitnessed("A", "g1", "m-1", 3, Map.of("t-0", 5L), true, "ANSWERED", Map.of("t-0", "ILLEGAL_GENERATION")));
        assertThat(samples).extracting(Object::getClass).containsExactlyInAnyOrderElementsOf(new BarrierEvent.Types().types());
        assertThat(samples).extracting(Payload::type).containsExactly("barrier-armed", "barrier-reached", "barrier-released", "barrier-expired",
                "commit-accepted", "commit-rejected", "commit-not-delivered", "commit-witnessed");
        for (BarrierEvent p : samples) {
            Event e = new Event(3, java.time.Instant.parse("2026-11-29T12:00:00.123Z"), 42, Source.of("A", 7, "main"), p);
            assertThat(Json.mapper().readValue(Json.mapper().writeValueAsString(e), Event.class)).isEqualTo(e);
        }
    }

    @Test
    void theWitnessedCommitsAreATableOfRunsThatSaysWhatBecameOfEach() throws Exception {
        RunEvidence run;
        try (RunRecorder r = RunRecorder.start(dir, "run-wire")) {
            ExperimentRecorder e = r.experiment("rebalance");
            Source wire = Source.here("wire witness");
            for (long i = 1; i <= 3; i++) { // a subject that commits after each record: one row
                e.record(wire, new CommitWitnessed("B", "g", "m-b", 4, Map.of("t-0", i), false, "ANSWERED", Map.of("t-0", "NONE")));
            }
            e.record(wire, new CommitWitnessed("A", "g", "m-a", 3, Map.of("t-0", 2L), true, "ANSWERED", Map.of("t-0", "ILLEGAL_GENERATION")));
            e.record(wire, new CommitWitnessed("A", "g", "m-a", 3, Map.of("t-0", 2L), true, "NOT_SENT", Map.of()));
            e.record(wire, new CommitWitnessed("B", "g", "m-b", 4, Map.of("t-1", 9L), false, "ANSWERED", Map.of("t-1", "NONE")));
            e.finish(Outcome.notRun("only the commit table is looked at"));
            run = r.save().evidence();
        }

        String md = Reports.markdown(run);
        String table = md.substring(md.indexOf("### Offset commits on the wire"), md.indexOf("### Checks"));
        assertThat(table.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| #"))
                .map(l -> l.replaceFirst("^(\\| [^|]+ \\| )[0-9]+(–[0-9]+)? ", "$1T "))).as("t+ms shown as T").containsExactly(
                "| 1–3 | T | B | m-b | 4 | 3 | {t-0=3} |  | stored by the broker |",
                "| 4 | T | A | m-a | 3 | 1 | {t-0=2} | yes | rejected by the broker: ILLEGAL_GENERATION |",
                "| 5 | T | A | m-a | 3 | 1 | {t-0=2} | yes | never sent (the client closed the connection while it was held) |",
                "| 6 | T | B | m-b | 4 | 1 | {t-1=9} |  | stored by the broker |");
        String timeline = md.substring(md.indexOf("### Timeline"), md.indexOf("### Environment"));
        assertThat(timeline).as("a stored commit is in the wire table only; a refused one in the timeline too")
                .contains("rejected by the broker: ILLEGAL_GENERATION").contains("never sent").doesNotContain("stored by the broker");
        String html = Reports.html(run);
        assertThat(html).contains("<table class=\"wire-commits\">").contains("<td class=\"refused\">rejected by the broker: ILLEGAL_GENERATION</td>")
                .contains("<td>1–3</td>").contains("<td class=\"stored\">stored by the broker</td>");
    }

    @Test
    void aHoldIsABarInTheHtmlTimelineFromTheReachToTheRelease() throws Exception {
        RunEvidence run;
        try (RunRecorder r = RunRecorder.start(dir, "run-hold")) {
            ExperimentRecorder e = r.experiment("rebalance");
            e.record(Source.of("A", 1, "main"), new BarrierEvent.BarrierReached("commitSync", "main", Map.of(), List.of()));
            e.record(Source.of("B", 2, "main"), new BarrierEvent.CommitAccepted("B", Map.of("t-0", 1L)));
            e.record(Source.of("A", 1, "main"), new BarrierEvent.BarrierReleased("commitSync", "controller", 700));
            e.finish(Outcome.notRun("only the lanes are looked at"));
            run = Evidence.read(r.save().evidenceFile());
        }

        String html = Reports.html(run);
        assertThat(html).containsOnlyOnce("<rect class=\"hold\"").contains("<title>barrier hold commitSync: 700 ms</title>")
                .contains("fill=\"#ef6c00\"").contains("fill=\"#2e7d32\"").contains("</span> barrier <span").contains("</span> commit accepted");
    }
}
