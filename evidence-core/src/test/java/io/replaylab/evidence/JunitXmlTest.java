package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.maven.plugin.surefire.log.api.NullConsoleLogger;
import org.apache.maven.plugins.surefire.report.ReportTestCase;
import org.apache.maven.plugins.surefire.report.ReportTestSuite;
import org.apache.maven.plugins.surefire.report.TestSuiteXmlParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run's evidence as JUnit XML, read back by Maven's own JUnit report parser as a CI server reads it. */
class JunitXmlTest {
    @TempDir
    Path dir;

    /** Parses {@code file} as Surefire's report parser does. */
    static List<ReportTestSuite> parse(Path file) throws Exception {
        try (InputStreamReader in = new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8)) {
            return new TestSuiteXmlParser(new NullConsoleLogger()).parse(in);
        }
    }

    @Test
    void aPassAFailAndANotRunAreATestcaseEachTheFailureWithItsReasonAndChecksTheNotRunSkipped() throws Exception {
        RunEvidence ev;
        try (RunRecorder run = RunRecorder.start(dir, "run-junit")) {
            ExperimentRecorder pass = run.experiment("replay", "R1");
            pass.check(Check.pass("no second effect", "R12", "0 duplicated", "0 duplicated"));
            Event fired = pass.record(Source.here("harness"), new Payload.Note("reset executed"));
            pass.finish(Outcome.judge(pass.confirmFault("the reset redelivered 20 records", fired), pass.checks()));
            ExperimentRecorder fail = run.experiment("schedules.before-db-commit.crash", "R12");
            Event crashed = fail.record(Source.here("harness"), new Payload.Note("A killed"));
            fail.check(Check.fail("no missing effect", "R12", "0 missing", "1 missing: id-7 (p0@3, amount 5) <&>"));
            fail.finish(Outcome.judge(fail.confirmFault("A killed at before-db-commit", crashed), fail.checks()));
            ExperimentRecorder notRun = run.experiment("db-faults", "R14");
            notRun.finish(Outcome.notRun("database faults need a PostgreSQL target"));
            ev = run.save().evidence();
        }
        Path file = dir.resolve("out").resolve("replay-lab.xml");
        Files.createDirectories(file.getParent());
        JunitXml.write(ev, file);

        List<ReportTestSuite> suites = parse(file); // the parser groups testcases by class: one suite per experiment's class here
        assertThat(suites.stream().mapToInt(ReportTestSuite::getNumberOfTests).sum()).isEqualTo(3);
        assertThat(suites.stream().mapToInt(ReportTestSuite::getNumberOfFailures).sum()).isEqualTo(1);
        assertThat(suites.stream().mapToInt(ReportTestSuite::getNumberOfSkipped).sum()).isEqualTo(1);
        List<ReportTestCase> cases = suites.stream().flatMap(x -> x.getTestCases().stream()).toList();
        assertThat(cases).extracting(ReportTestCase::getName).containsExactlyInAnyOrder("replay", "schedules.before-db-commit.crash", "db-faults");
        ReportTestCase failed = cases.stream().filter(c -> c.getName().equals("schedules.before-db-commit.crash")).findFirst().orElseThrow();
        assertThat(failed.getClassName()).isEqualTo("schedules");
        assertThat(failed.getFailureMessage()).isEqualTo(ev.experiments().get(1).outcome().reason());
        assertThat(failed.getFailureDetail()).contains("no missing effect (R12): expected 0 missing, was 1 missing: id-7 (p0@3, amount 5) <&>");
        assertThat(cases.stream().filter(c -> c.getName().equals("replay")).findFirst().orElseThrow().hasFailure()).isFalse();
        ReportTestCase skipped = cases.stream().filter(c -> c.getName().equals("db-faults")).findFirst().orElseThrow();
        assertThat(skipped.hasSkipped()).isTrue();
        assertThat(Files.readString(file)).contains("<skipped message=\"NOT_RUN: database faults need a PostgreSQL target\"");
    }
}
