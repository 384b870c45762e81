package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportCommandTest {
    @TempDir
    Path dir;

    @Test
    void rendersASavedRunAsMarkdownAndHtml() {
        try (RunRecorder run = RunRecorder.start(dir, "r1")) {
            ExperimentRecorder e = run.experiment("replay", "R5");
            e.record(Source.here("harness"), new Payload.Note("hello"));
            e.finish(Outcome.notRun("no broker"));
            run.save();
        }
        Console markdown = Console.run("report", dir.resolve(Evidence.EVIDENCE_FILE).toString());
        assertThat(markdown.rc()).as(markdown.err()).isZero();
        assertThat(markdown.out()).startsWith("# replay-lab run `r1`").contains("**Outcome: NOT_RUN**").contains("no broker");

        Console html = Console.run("report", dir.toString(), "--format", "html");
        assertThat(html.rc()).as(html.err()).isZero();
        assertThat(html.out()).startsWith("<!DOCTYPE html>").contains("hello");
    }

    /** A replay that PASSed on offsets alone leaves "skips a replay" not judged, and the console says why; one read on the wire does not. */
    @Test
    void theConsoleSaysWhyADefectClassIsNotJudgedEvenWhenItsExperimentPassed() {
        for (String check : java.util.List.of("offsets committed again", "records delivered again")) {
            io.replaylab.evidence.RunEvidence ev;
            try (RunRecorder run = RunRecorder.start(dir.resolve(check.replace(' ', '-')), "r3")) {
                ExperimentRecorder e = run.experiment("replay", "R5");
                e.check(io.replaylab.evidence.Check.pass(check, "R5", "40 redelivered", "40 offsets committed again"));
                e.finish(Outcome.judge(e.confirmFault("every record delivered again after the reset", e.record(Source.here("harness"),
                        new Payload.Note("40 offsets committed again"))), e.checks()));
                ev = run.snapshot();
            }
            StringWriter out = new StringWriter();
            RunCommand.printDefects(new PrintWriter(out, true), ev);

            assertThat(out.toString()).as(check).contains(check.startsWith("offsets")
                    ? "not judged replay skips a replay (jumps to the log end after a reset): PASS, without a check that rules this defect out "
                            + "(records delivered again, made only where the wire witness or the consumer's processing log shows what it read)\n"
                    : "not found  replay skips a replay (jumps to the log end after a reset)\n");
        }
    }

    @Test
    void corruptEvidenceIsNamedAndTheJournalBesideItIsShownWithExit2() throws Exception {
        try (RunRecorder run = RunRecorder.start(dir, "r2")) {
            run.experiment("replay", "R5").record(Source.here("harness"), new Payload.Note("step one"));
            run.save();
        }
        Files.writeString(dir.resolve(Evidence.EVIDENCE_FILE), "{\"schemaVersion\": 1, broken");

        Console c = Console.run("report", dir.resolve(Evidence.EVIDENCE_FILE).toString());

        assertThat(c.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(c.err()).contains("line 1").contains("journal.jsonl");
        assertThat(c.out()).contains("step one");
    }
}
