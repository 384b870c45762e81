package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {
    @TempDir
    Path dir;

    @Test
    void experimentsRegisteredTogetherKeepTheirOrderAndEachStartsWhenItBeginsInEvidenceAndJournalAlike() {
        Instant t0 = Instant.parse("2026-12-01T10:00:00Z");
        Instant[] now = {t0};
        Clock clock = new Clock() {
            @Override
            public Instant instant() {
                return now[0];
            }

            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }
        };
        SavedProtocol saved;
        try (RunRecorder run = RunRecorder.start(dir, "run-order", clock, System::nanoTime)) {
            ExperimentRecorder first = run.experiment("first");
            ExperimentRecorder second = run.experiment("second");
            now[0] = t0.plusSeconds(5);
            second.begin().finish(Outcome.notRun("done first"));
            now[0] = t0.plusSeconds(9);
            first.begin();
            first.record(Source.here("test"), new Payload.Note("busy"));
            assertThatThrownBy(first::begin).hasMessageContaining("has recorded already");
            first.finish(Outcome.notRun("done second"));
            saved = run.save();
        }
        for (RunEvidence r : List.of(saved.evidence(), Evidence.read(dir.resolve(Evidence.JOURNAL_FILE)))) {
            assertThat(r.experiments()).extracting(ExperimentEvidence::name).containsExactly("first", "second");
            assertThat(r.experiments()).extracting(ExperimentEvidence::started).containsExactly(t0.plusSeconds(9), t0.plusSeconds(5));
        }
    }

    @Test
    void savedRunReadsBackFromJournalAndFromEvidenceJsonAsTheSameRun() {
        SavedProtocol saved;
        try (RunRecorder run = SampleRuns.knownRun(dir)) {
            saved = run.save();
        }
        RunEvidence fromJson = Evidence.read(dir.resolve(Evidence.EVIDENCE_FILE));
        RunEvidence fromJournal = Evidence.read(dir.resolve(Evidence.JOURNAL_FILE));

        assertThat(fromJson).isEqualTo(saved.evidence());
        assertThat(fromJournal).isEqualTo(saved.evidence());
        assertThat(fromJson.outcome().status()).isEqualTo(Status.PASS);
        assertThat(fromJson.complete()).isTrue();
    }

    @Test
    void journalCutAtEveryByteShortOfItsLastLineReadsBackIncompleteAndNeverPass() throws Exception {
        try (RunRecorder run = SampleRuns.knownRun(dir.resolve("full"))) {
            run.save();
        }
        byte[] full = Files.readAllBytes(dir.resolve("full").resolve(Evidence.JOURNAL_FILE));
        int lastLineEnd = full.length - 1; // the newline that ends the run-finished line
        assertThat(full[lastLineEnd]).isEqualTo((byte) '\n');
        Path f = dir.resolve("cut.jsonl");
        for (int cut = 1; cut < lastLineEnd; cut++) { // every cut that loses part of the last line or more
            Files.write(f, Arrays.copyOf(full, cut));

            RunEvidence run = Evidence.read(f);

            assertThat(run.complete()).as("cut at byte %d of %d", cut, full.length).isFalse();
            assertThat(run.outcome().status()).as("cut at byte %d of %d", cut, full.length).isEqualTo(Status.NOT_RUN);
        }
        // only the final newline missing: the last line is whole, so the run is whole, and reads back as saved
        Files.write(f, Arrays.copyOf(full, lastLineEnd));
        assertThat(Evidence.read(f)).isEqualTo(Evidence.read(dir.resolve("full").resolve(Evidence.JOURNAL_FILE)));
        assertThat(Evidence.read(f).complete()).isTrue();
    }

    @Test
    void aLastLineCutShortIsNamedAsCutNotAsCorrupt() throws Exception {
        try (RunRecorder run = SampleRuns.knownRun(dir.resolve("full"))) {
            run.save();
        }
        byte[] full = Files.readAllBytes(dir.resolve("full").resolve(Evidence.JOURNAL_FILE));
        Path f = dir.resolve("cut.jsonl");
        Files.write(f, Arrays.copyOf(full, full.length - 5)); // inside the run-finished line

        RunEvidence run = Evidence.read(f);

        assertThat(run.problems()).singleElement().asString().endsWith("is cut short (the run stopped while writing it)");
    }

    @Test
    void everythingRecordedBeforeACrashIsInTheJournal() throws Exception {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry meters = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        meters.counter("replaylab.test").increment(3);
        Check check = Check.pass("a check", "R6", "x", "x");
        try (RunRecorder run = RunRecorder.start(dir, "crashed")) {
            ExperimentRecorder e = run.experiment("replay", "R5");
            e.environment("bootstrap", "127.0.0.1:9092").limitation("one broker").artifact("logs/A.err", "stderr of A").metrics(meters);
            e.record(Source.here("harness"), new Payload.Note("step 1"));
            e.recordObserved(java.time.Instant.parse("2026-01-01T00:00:00Z"), Source.here("A"), new Payload.Note("from A's log"));
            assertThat(e.check(check)).isSameAs(check);
            // no finish, no save: the process dies here
        }
        ExperimentEvidence x = Evidence.read(dir.resolve(Evidence.JOURNAL_FILE)).experiments().get(0);

        assertThat(x.environment()).containsEntry("bootstrap", "127.0.0.1:9092");
        assertThat(x.limitations()).containsExactly("one broker");
        assertThat(x.artifacts()).extracting(Artifact::path).containsExactly("logs/A.err");
        assertThat(x.checks()).containsExactly(check);
        assertThat(x.events()).extracting(ev -> ((Payload.Note) ev.payload()).text()).containsExactly("step 1", "from A's log");
        assertThat(x.events().get(1).time()).isEqualTo(java.time.Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(x.metrics()).anySatisfy(m -> assertThat(m.name()).isEqualTo("replaylab.test"));
        assertThat(x.outcome().status()).isEqualTo(Status.NOT_RUN);
    }

    @Test
    void anExperimentLeftUnfinishedAtSaveIsNotRunNeverPass() {
        SavedProtocol saved;
        try (RunRecorder run = RunRecorder.start(dir, "unfinished")) {
            run.experiment("replay", "R5").record(Source.here("harness"), new Payload.Note("started"));
            saved = run.save();
        }
        assertThat(saved.evidence().experiments().get(0).outcome().reason()).isEqualTo("experiment ended without an outcome");
        assertThat(saved.evidence().outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(saved.evidence().complete()).isTrue();
    }

    @Test
    void runClosedWithoutSaveIsNotRunWithItsEventsKept() {
        try (RunRecorder run = RunRecorder.start(dir, "crashed")) {
            ExperimentRecorder e = run.experiment("replay", "R5");
            e.record(Source.here("harness"), new Payload.Note("step 1"));
            e.record(Source.here("harness"), new Payload.Note("step 2"));
        }
        RunEvidence run = Evidence.read(dir.resolve(Evidence.JOURNAL_FILE));

        assertThat(run.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(run.outcome().reason()).contains("did not finish");
        assertThat(run.experiments().get(0).events()).hasSize(2);
    }

    @Test
    void aLineOfAnUnknownKindOrWithoutAKindIsNamedAndTheRestIsStillShown() throws Exception {
        Path journal = knownJournalEdited(lines -> {
            lines.set(5, "{\"kind\":\"mystery\",\"experiment\":\"replay\"}");
            lines.set(6, "{\"experiment\":\"replay\"}");
        });

        RunEvidence run = Evidence.read(journal);

        assertThat(run.problems()).hasSize(2);
        assertThat(run.problems().get(0)).contains("line 6 is not valid evidence").contains("mystery");
        assertThat(run.problems().get(1)).contains("line 7 is not valid evidence").contains("kind");
        assertThat(run.outcome().status()).isEqualTo(Status.NOT_RUN);
    }

    @Test
    void corruptMiddleLineIsNamedAndTheRestIsStillShown() throws Exception {
        Path journal = knownJournalEdited(lines -> lines.set(5, "{this is not json"));

        RunEvidence run = Evidence.read(journal);

        assertThat(run.problems()).singleElement().asString().contains("line 6 is not valid evidence");
        assertThat(run.complete()).isFalse();
        assertThat(run.outcome().status()).isEqualTo(Status.NOT_RUN);
        assertThat(run.experiments().get(0).events()).hasSize(SampleRuns.knownRunEventCount() - 1);
    }

    @Test
    void anEventObservedAfterTheFactKeepsTheTimeItHappenedAndReportsShowItInTimeOrder() {
        java.time.Instant earlier = java.time.Instant.parse("2020-01-01T00:00:00Z");
        RunEvidence saved;
        try (RunRecorder run = RunRecorder.start(dir, "obs")) {
            ExperimentRecorder e = run.experiment("x");
            e.record(Source.here("harness"), new Payload.Note("recorded now"));
            e.recordObserved(earlier, Source.of("A", 1, "assignment log"), new Payload.Note("happened earlier"));
            e.finish(Outcome.notRun("test"));
            saved = run.save().evidence();
        }
        assertThat(Evidence.read(dir.resolve(Evidence.JOURNAL_FILE)).experiments().get(0).events().get(1).time()).isEqualTo(earlier);
        String md = Reports.markdown(saved);
        assertThat(md.indexOf("happened earlier")).isLessThan(md.indexOf("recorded now"));
    }

    @Test
    void cleanupIsJournaledAfterTheSavedProtocolAndDoesNotChangeTheVerdict() throws Exception {
        try (RunRecorder run = SampleRuns.knownRun(dir)) {
            run.save().cleanup("delete topic t", () -> { });
        }
        assertThat(Files.readString(dir.resolve(Evidence.JOURNAL_FILE))).contains("\"kind\":\"cleanup\"").contains("delete topic t");
        assertThat(Evidence.read(dir.resolve(Evidence.JOURNAL_FILE)).outcome().status()).isEqualTo(Status.PASS);
    }

    /** Every kind of line an experiment writes is in its journal: the journal alone gives back the saved evidence. */
    @Test
    void aRunReadBackFromItsJournalAloneEqualsItsSavedEvidenceLineKindByLineKind() {
        SavedProtocol saved;
        try (RunRecorder run = RunRecorder.start(dir, "run-kinds")) {
            ExperimentRecorder e = run.experiment("kinds", "R1").begin();
            e.environment("java", "17");
            e.limitation("one broker");
            e.artifact("logs/a.log", "A's log");
            io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
            registry.counter("replaylab.test").increment(3);
            e.metrics(registry);
            Event observed = e.recordObserved(Instant.parse("2026-12-01T10:00:00Z"), Source.here("log"), new Payload.Note("seen in a log"));
            e.check(Check.of("a check", "R1", "x", "x", true));
            e.finish(Outcome.judge(e.confirmFault("seen", observed), e.checks()));
            saved = run.save();
        }
        RunEvidence fromJournal = Evidence.read(dir.resolve(Evidence.JOURNAL_FILE));
        ExperimentEvidence x = fromJournal.experiments().get(0);
        assertThat(x.environment()).containsEntry("java", "17");
        assertThat(x.limitations()).containsExactly("one broker");
        assertThat(x.artifacts()).containsExactly(new Artifact("logs/a.log", "A's log"));
        assertThat(x.metrics()).anyMatch(m -> m.name().equals("replaylab.test") && m.values().get("count") == 3.0);
        assertThat(x.events()).singleElement().satisfies(ev -> {
            assertThat(ev.seq()).isEqualTo(1);
            assertThat(ev.time()).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
        });
        assertThat(x.checks()).singleElement().satisfies(c -> assertThat(c.status()).isEqualTo(Status.PASS));
        assertThat(x.outcome().status()).isEqualTo(Status.PASS);
        assertThat(fromJournal.experiments()).isEqualTo(saved.evidence().experiments());
        assertThat(Check.of("a check", "R1", "x", "y", false).status()).isEqualTo(Status.FAIL);
    }

    /** A finished experiment takes nothing more: every way of recording is refused, so nothing lands after its outcome. */
    @Test
    void aFinishedExperimentRefusesEveryFurtherRecord() {
        try (RunRecorder run = RunRecorder.start(dir, "run-closed")) {
            ExperimentRecorder e = run.experiment("closed");
            e.finish(Outcome.notRun("done"));
            io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
            List<Runnable> attempts = List.of(
                    () -> e.begin(),
                    () -> e.environment("k", "v"),
                    () -> e.record(Source.here("t"), new Payload.Note("late")),
                    () -> e.recordObserved(Instant.now(), Source.here("t"), new Payload.Note("late")),
                    () -> e.check(Check.pass("late", "R1", "x", "x")),
                    () -> e.limitation("late"),
                    () -> e.artifact("a", "late"),
                    () -> e.metrics(registry),
                    () -> e.finish(Outcome.notRun("again")));
            for (Runnable a : attempts) {
                assertThatThrownBy(a::run).isInstanceOf(IllegalStateException.class);
            }
            assertThat(e.outcome()).contains(Outcome.notRun("done"));
            assertThat(e.checks()).isEmpty();
        }
    }

    /** The known run's journal, saved into {@code dir}, with {@code edit} applied to its lines. */
    private Path knownJournalEdited(java.util.function.Consumer<List<String>> edit) throws Exception {
        try (RunRecorder run = SampleRuns.knownRun(dir)) {
            run.save();
        }
        Path journal = dir.resolve(Evidence.JOURNAL_FILE);
        List<String> lines = Files.readAllLines(journal, StandardCharsets.UTF_8);
        edit.accept(lines);
        Files.write(journal, lines, StandardCharsets.UTF_8);
        return journal;
    }
}
