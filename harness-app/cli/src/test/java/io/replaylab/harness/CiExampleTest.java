package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CI job of {@code examples/ci/replay-lab.yml} works as written: every {@code run:} step runs, in order, as GitHub's
 * runner runs it ({@code bash -eo pipefail}), in a directory whose {@code ./replay-lab} is this build's CLI (the launcher
 * would build the jar, which the test phase has not made yet); what its other steps keep and show is what the lab wrote.
 */
class CiExampleTest {
    private static final Path WORKFLOW = Path.of("../../examples/ci/replay-lab.yml"); // the module's directory is the test's working directory

    @TempDir
    Path repo;

    @Test
    void theExampleWorkflowsCommandsRunTheLabAndLeaveWhatItsArtifactAndJunitStepsRead() throws Exception {
        JsonNode job = new ObjectMapper(new YAMLFactory()).readTree(WORKFLOW.toFile()).get("jobs").get("replay-lab");
        List<JsonNode> steps = new ArrayList<>();
        job.get("steps").forEach(steps::add);
        List<String> uses = steps.stream().filter(s -> s.has("uses")).map(s -> s.get("uses").asText()).toList();
        assertThat(uses).anyMatch(u -> u.startsWith("actions/checkout@")).anyMatch(u -> u.startsWith("actions/setup-java@"))
                .anyMatch(u -> u.startsWith("actions/upload-artifact@"));

        ShellSteps.withLauncher(repo);
        StringBuilder said = new StringBuilder();
        for (JsonNode step : steps) {
            if (step.has("run")) {
                said.append(ShellSteps.run(repo, step.get("name").asText(), step.get("run").asText()));
            }
        }
        assertThat(said).as("the outcome step").contains("PASS - ").contains("report: ");

        String junit = steps.stream().filter(s -> s.path("uses").asText().startsWith("mikepenz/action-junit-report@")).findFirst().orElseThrow()
                .get("with").get("report_paths").asText();
        assertThat(Files.readString(repo.resolve(junit))).contains("<testcase classname=\"replay-lab.replay\"")
                .contains("<testcase classname=\"replay-lab.rebalance\"").containsPattern("<testsuites [^>]*failures=\"0\"");
        String kept = steps.stream().filter(s -> s.path("uses").asText().startsWith("actions/upload-artifact@")).findFirst().orElseThrow()
                .get("with").get("path").asText();
        for (String line : kept.strip().split("\n")) {
            Path path = Path.of(line.strip());
            if (path.getFileName().toString().contains("*")) {
                try (var found = Files.newDirectoryStream(repo.resolve(path).getParent(), path.getFileName().toString())) {
                    assertThat(found).as("the artifact step keeps " + path).hasSizeGreaterThanOrEqualTo(2); // the XML and the JSON
                }
            } else {
                assertThat(repo.resolve(path)).as("the artifact step keeps " + path).exists();
            }
        }
        try (var runs = Files.list(repo.resolve("lab-runs"))) {
            assertThat(runs.filter(d -> Files.exists(d.resolve("report.html")))).as("a run with its report under lab-runs/").hasSize(1);
        }
    }
}
