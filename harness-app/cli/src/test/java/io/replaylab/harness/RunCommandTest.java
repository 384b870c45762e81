package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Json;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunCommandTest {
    @TempDir
    Path dir;

    @Test
    void runStartsItsOwnBrokerByDefaultAndPrintsJsonWithExit0() throws Exception {
        Path junit = dir.resolve("junit").resolve("replay-lab.xml");
        java.nio.file.Files.createDirectories(junit.getParent());
        Console c = Console.run("run", "--experiment", "rebuild,replay", "--experiment", "rebuild",
                "--records", "30", "--workdir", dir.toString(), "--json", "--junit-xml", junit.toString());

        assertThat(c.rc()).as(c.err()).isZero();
        JsonNode j = Json.mapper().readTree(c.out());
        assertThat(j.get("outcome").asText()).isEqualTo("PASS");
        List<String> names = new java.util.ArrayList<>();
        j.get("experiments").forEach(x -> names.add(x.get("name").asText()));
        assertThat(names).as("each named experiment once, in the order given").containsExactly("rebuild", "replay");
        assertThat(j.get("experiments").get(0).get("name").asText()).isEqualTo("rebuild");
        assertThat(j.get("experiments").get(1).get("checks").findValuesAsText("name")).contains("no second effect");
        assertThat(j.get("experiments").get(1).get("checks").get(0).get("status").asText()).isEqualTo("PASS");
        assertThat(j.get("defects").findValuesAsText("caughtBy")).contains("replay");
        assertThat(java.nio.file.Files.readString(junit)).contains("<testsuites name=\"replay-lab\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"0\"")
                .contains("<testcase classname=\"replay-lab.replay\" name=\"replay\"");
        assertThat(Path.of(j.get("report").asText())).exists();
        assertThat(Path.of(j.get("evidence").asText()).resolveSibling("broker").resolve("broker.log")).exists();
        assertThat(Path.of(j.get("evidence").asText()).resolveSibling("broker").resolve("data")).as("the broker's data went with the cleanup")
                .doesNotExist();
    }

    @Test
    void shareOwnershipOnItsOwnBrokerPassesTheReferenceShareConsumerWithTheBrokersRefusalInTheReport() throws Exception {
        Console c = Console.run("run", "--experiment", "share-ownership", "--records", "20",
                "--workdir", dir.toString(), "--json");

        assertThat(c.rc()).as(c.both()).isZero();
        JsonNode j = Json.mapper().readTree(c.out());
        assertThat(j.get("outcome").asText()).isEqualTo("PASS");
        assertThat(java.nio.file.Files.readString(Path.of(j.get("report").asText())))
                .contains("late acknowledgement").contains("the broker answered INVALID_RECORD_STATE on the wire")
                .contains("InvalidRecordStateException");
    }

    @Test
    void schedulesPrintsItsMatrixOnTheConsole() throws Exception {
        Console c = Console.run("run", "--experiment", "schedules", "--cells", "before-offset-commit:crash",
                "--records", "20", "--workdir", dir.toString());

        assertThat(c.rc()).as(c.both()).isZero();
        assertThat(c.out()).contains("  schedules: Schedule: point × fault\n"
                + "    point                 hold             freeze           crash            hold-then-crash\n"
                + "    before-db-commit      NOT_SELECTED     NOT_SELECTED     NOT_SELECTED     NOT_SELECTED\n"
                + "    before-offset-commit  NOT_SELECTED     NOT_SELECTED     PASS").contains(
                "    after-offset-commit   NOT_SELECTED     NOT_SELECTED     NOT_SELECTED").contains("  schedules.before-offset-commit.crash PASS ");
    }

    @Test
    void cleanupOfARunThatIsNotThereOrOfAWorkDirThatIsNotOneIsBadInputNamingIt() throws Exception {
        assertThat(refused("cleanup", "--workdir", dir.toString(), "--run", "run-nope")).contains("error: no run 'run-nope' under " + dir);
        assertThat(refused("cleanup", "--workdir", dir.resolve("nope").toString()))
                .contains("error: --workdir " + dir.resolve("nope") + " is not a directory");
        assertThat(refused("cleanup", "--workdir", dir.toString(), "--run", "x", "--all-dead")).contains("mutually exclusive").doesNotContain("Usage:");
    }

    @Test
    void badArgumentsExit2BeforeAnythingRuns() {
        assertThat(refusedRun("--experiment", "chaos")).contains("--experiment").contains("'chaos'")
                .contains("use one of default, thorough, all, replay, rebalance").contains("Try 'replay-lab run --help'").doesNotContain("Usage:");
        refusedRun("--partitions", "1");
        assertThat(refusedRun("--records", "0")).contains("--records");
        refusedRun("--bootstrap-server", "198.51.100.7:9092");
        assertThat(refusedRun("--hold-mode", "freeze")).contains("--hold-mode").contains("freeze").contains("THREAD, PROCESS");
        assertThat(refusedRun("--barrier", "jdwp")).contains("--barrier").contains("'jdwp': use auto, debugger or wire");
        assertThat(refusedRun("--group-protocol", "eager")).contains("--group-protocol").contains("eager").contains("CLASSIC, CONSUMER");
        assertThat(refusedRun("--target-jdbc-url", "jdbc:postgresql://203.0.113.9/lab?password=s3cret"))
                .contains("--target-jdbc-url host(s) [203.0.113.9] are not loopback").doesNotContain("s3cret");
        assertThat(refusedRun("--experiment", "schedules", "--cells", "before-offset-commit:crash,after-commit:hold"))
                .contains("unknown point 'after-commit' in 'after-commit:hold'");
        assertThat(refusedRun("--experiment", "wire-faults", "--cells", "offset-commit:lost-answer,offset-fetch:rewind=x"))
                .contains("fault 'offset-fetch:rewind=x'").contains("the effects are: error=CODE");
        assertThat(refusedRun("--experiment", "rebalance", "--cells", "offset-commit:lost-answer"))
                .contains("--cells picks the cells of --experiment schedules or wire-faults or db-faults, not of rebalance");
        assertThat(refusedRun("--subject-cmd", "/no/such/consumer --group {group}"))
                .contains("--subject-cmd's program '/no/such/consumer' is not an executable file");
        assertThat(refusedRun("--experiment", "wire_fault")).contains("unknown experiment 'wire_fault': use one of default, thorough, all, "
                + "replay, rebalance, rebuild, eos, schedules, wire-faults, db-faults, commit-ahead, duplicate-publish, durability");
        String[][] sourceInput = {
            {"--subject-cmd", "python3 consumer.py --topic {topic}", "--subject-cmd must get {group} through its command or its environment"},
            {"--record-key", "{id}", "--record-key needs --record-value"},
            {"--subject-env", "A=b", "--subject-env and --subject-dir go with --subject-cmd"},
            {"--source-id", "value", "--source-id 'value' is not a source field"},
            {"--target-query", "SELECT message_id, amount FROM t WHERE ns = '{namespace}'", "quotes {namespace}"},
        };
        for (String[] c : sourceInput) {
            assertThat(refusedRun(c[0], c[1])).contains(c[2]);
        }
        assertThat(refusedRun("--records", "0", "--parallel", "0", "--subject-cmd", "sh consumer.sh {topic}").lines())
                .as("every problem at once, each named by its flag").containsExactly(
                "error: --records must be 1..10000000, was 0", "error: --parallel must be 1..64, was 0",
                "error: --subject-cmd must get {group} through its command or its environment (--subject-env, --transform-env): each experiment "
                        + "gives its instances a group of its own");
        assertThat(refusedRun("--records", "0", "--subject-env", "X=Y").lines()).as("the CLI's own refusals beside the settings' ones").containsExactly(
                "error: --records must be 1..10000000, was 0",
                "error: --subject-env and --subject-dir go with --subject-cmd (the reference program takes neither)");
        assertThat(refusedRun("--producer-cmd", "sh p.sh {topic}", "--record-value", "{\"id\":\"{id}\"}")).contains("give one or the other");
        assertThat(refusedRun("--record-value", "{\"paymentId\":\"{id}\",\"amountCents\":{amount}", "--source-id", "json:/paymentId",
                "--source-amount", "json:/amountCents")).as("a template that is not JSON, with the rendered text").contains("does not read back")
                .contains("not JSON").contains("value {\"paymentId\":\"sample-1\",\"amountCents\":1250");
        assertThat(dir.toFile().list()).isEmpty();
    }

    /** {@link #refused} for {@code run} with {@code args} in this test's work directory. */
    private String refusedRun(String... args) {
        List<String> all = new java.util.ArrayList<>(List.of("run"));
        all.addAll(List.of(args));
        all.addAll(List.of("--workdir", dir.toString()));
        return refused(all.toArray(String[]::new));
    }

    @Test
    void aSourceMappingThatReadsNoneOfTheRecordsExits2AfterSavingTheProtocol() throws Exception {
        Console c = Console.run("run", "--experiment", "replay", "--records", "10",
                "--source-id", "json:/payment_id", "--workdir", dir.toString(), "--quiet");

        assertThat(c.rc()).as(c.both()).isEqualTo(ReplayLab.BAD_INPUT);
        assertThat(c.err()).contains("error: the source mapping (id json:/payment_id, amount json:/amount) read 0 of 10 records")
                .contains("record p").contains("missing id at json:/payment_id").contains("the protocol is saved");
    }

    @Test
    void withJsonARefusalIsOneJsonObjectToo() throws Exception {
        Console c = Console.run("run", "--experiment", "schedules,wire-faults", "--cells", "x:y",
                "--records", "-3", "--workdir", dir.toString(), "--json");

        assertThat(c.rc()).isEqualTo(ReplayLab.BAD_INPUT);
        JsonNode j = Json.mapper().readTree(c.out());
        assertThat(j.get("outcome").asText()).isEqualTo("REFUSED");
        assertThat(j.get("errors").isArray()).isTrue();
        j.get("errors").forEach(x -> assertThat(x.isTextual()).as("each error a line of text: " + x).isTrue());
        assertThat(j.get("errors").toString()).contains("--records").contains("--cells picks the cells of --experiment schedules or wire-faults or "
                + "db-faults: name only one of them beside it, not schedules and wire-faults");
    }

    @Test
    void anUnusableWorkDirIsBadInputNamingThePathAndTheReason() {
        assertThat(refused("run", "--workdir", "/proc/nope")).startsWith("error: --workdir /proc/nope cannot be used: ").doesNotContain("Exception");
    }

    @Test
    void durationsTakeShortFormsOrIsoAndABareNumberOrAWrongOneIsOneLineNamingTheOption() {
        assertThat(Durations.parse("500ms")).hasMillis(500);
        assertThat(Durations.parse("1m30s")).hasSeconds(90);
        assertThat(Durations.parse("2d")).hasHours(48);
        assertThat(Durations.parse("PT5S")).hasSeconds(5);
        for (String[] bad : new String[][] {{"30", "has no unit: add one, e.g. 30s"}, {"5 sec", "is not a duration"}, {"PT5", "is not a duration"}}) {
            Console c = Console.run("run", "--drain-timeout", bad[0], "--workdir", dir.toString());
            assertThat(c.rc()).isEqualTo(ReplayLab.BAD_INPUT);
            assertThat(c.err()).contains("--drain-timeout").contains("'" + bad[0] + "' " + bad[1]).contains("e.g. 500ms, 5s")
                    .contains("Try 'replay-lab run --help'").doesNotContain("Usage:");
            assertThat(c.err().lines()).hasSize(2);
        }
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void theContentionWindowIsADurationFlagAndAnUnknownSequenceIsRefusedListingTheFaults() {
        assertThat(refused("run", "--experiment", "schedules", "--contention-window",
                "0s", "--cells", "before-db-commit:hold-then-crash,before-db-commit:hold-then-freeze", "--workdir", dir.toString())).contains("error: --contention-window must be a positive duration, was PT0S")
                .contains("unknown fault 'hold-then-freeze' in 'before-db-commit:hold-then-freeze': use hold, freeze, crash, hold-then-crash, "
                        + "hold-then-late-release");
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void theConsoleMatrixWidensItsColumnsForASequencesName() {
        Payload.Matrix m = new Payload.Matrix("Schedule: point × fault", "point", List.of("before-db-commit"),
                List.of("hold", "hold-then-late-release", "crash"), List.of(
                        new Payload.MatrixCell("before-db-commit", "hold", "PASS", null, null, null),
                        new Payload.MatrixCell("before-db-commit", "hold-then-late-release", "FAIL", null, null, null),
                        new Payload.MatrixCell("before-db-commit", "crash", "PASS", null, null, null)));
        java.time.Instant now = java.time.Instant.now();
        ExperimentEvidence x = new ExperimentEvidence("schedules", List.of(), now, now, Map.of(), List.of(new Event(1, now, 0, Source.here("harness"), m)),
                List.of(), Outcome.notRun("a test"), List.of(), List.of(), List.of());
        StringWriter out = new StringWriter();
        RunCommand.printMatrices(new PrintWriter(out, true), x);

        assertThat(out.toString().lines()).containsSubsequence(
                "    point             hold                    hold-then-late-release  crash",
                "    before-db-commit  PASS                    FAIL                    PASS");
    }

    @Test
    void anUnreachableBrokerIsNotRunWithExit3AndStillLeavesAProtocol() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Console c = Console.run("run", "--bootstrap-server", "127.0.0.1:" + port,
                "--experiment", "replay", "--workdir", dir.toString(), "--json");

        assertThat(c.rc()).isEqualTo(ReplayLab.NOT_RUN);
        JsonNode j = Json.mapper().readTree(c.out());
        assertThat(j.get("outcome").asText()).isEqualTo("NOT_RUN");
        assertThat(j.get("experiments").get(0).get("reason").asText()).contains("did not answer");
        assertThat(Path.of(j.get("evidence").asText())).exists();
    }

    /** Runs the CLI with {@code args}, asserts it refused them as bad input (exit 2), and returns what it said. */
    private static String refused(String... args) {
        Console c = Console.run(args);
        assertThat(c.rc()).as(String.join(" ", args)).isEqualTo(ReplayLab.BAD_INPUT);
        return c.err();
    }
}
