package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/** README's snippets are cut from code that compiles and runs, line for line: they cannot drift from it. */
class ReadmeSnippetTest {
    private static final String FENCE = "```java\n";

    /** The body of the first java block whose first line starts with {@code firstLine}. */
    private static String snippet(String readme, String firstLine) {
        int start = readme.indexOf(FENCE + firstLine);
        assertThat(start).as("a java snippet starting with " + firstLine).isGreaterThanOrEqualTo(0);
        return readme.substring(start + FENCE.length(), readme.indexOf("```", start + FENCE.length()));
    }

    /** The snippet as it stands in a class body, every line but the empty ones indented. */
    private static String indented(String snippet, String indent) {
        return snippet.lines().map(l -> l.isEmpty() ? l : indent + l).collect(Collectors.joining("\n", "", "\n"));
    }

    private static String read(String... path) throws Exception {
        return Files.readString(Path.of("..", path));
    }

    @Test
    void theReadmeIsAShortFrontDoor() throws Exception {
        assertThat(read("..", "README.md").lines().count()).as("README's lines").isLessThanOrEqualTo(200);
    }

    @Test
    void theExperimentsReadmeAndHelpNameAreTheLabsCatalogue() throws Exception {
        String names = io.replaylab.harness.experiment.Experiments.catalogue().stream().map(io.replaylab.harness.experiment.Experiments.Named::name)
                .collect(Collectors.joining("|"));
        assertThat(read("..", "README.md")).as("README's list of --experiment choices").contains("`--experiment " + names + "`");
        String help = Console.run("run", "--help").out();
        io.replaylab.harness.experiment.Experiments.catalogue().forEach(n -> assertThat(help).as("run --help on " + n.name())
                .containsPattern("(?m)^  " + java.util.regex.Pattern.quote(n.name()) + " +" + java.util.regex.Pattern.quote(n.shows()) + "$"));
    }

    @Test
    void theJunitSnippetIsCutFromTheExampleProject() throws Exception {
        String snippet = snippet(read("..", "docs", "reference.md"), "@LocalKafkaTest");
        String example = read("..", "examples", "custom-test", "src", "test", "java", "com", "example", "lab", "ReplayOfMyConsumerTest.java");

        String body = example.substring(example.indexOf("@LocalKafkaTest\n@RecordEvidence"));
        assertThat(body).startsWith(snippet.substring(0, snippet.lastIndexOf("    }\n}") + 6));
    }

    @Test
    void theOwnExperimentSnippetIsCutFromItsTest() throws Exception {
        String snippet = snippet(read("README.md"), "static final Experiment CRASH_RESTART");

        assertThat(read("subject", "src", "test", "java", "com", "example", "ownlab", "CrashRestartExperimentTest.java")).contains(indented(snippet, "    "));
    }

    @Test
    void harnessAppsLeadSnippetIsCutFromItsTest() throws Exception {
        String readme = read("README.md");
        assertThat(readme.substring(0, readme.indexOf(FENCE)).lines().count()).as("harness-app/README.md leads with its snippet").isLessThan(8);
        String snippet = snippet(readme, "try (LocalKafka kafka");
        assertThat(readme.indexOf(FENCE + "try (LocalKafka kafka")).as("the lead is the first snippet").isEqualTo(readme.indexOf(FENCE));

        assertThat(read("subject", "src", "test", "java", "io", "replaylab", "harness", "experiment", "ReadmeLeadTest.java"))
                .contains(indented(snippet, "        "));
    }

    @Test
    void theOwnConsumerSnippetIsTheSecondLabsTestWhole() throws Exception {
        String snippet = snippet(read("..", "README.md"), "@RecordLab\nclass");

        assertThat(read("..", "examples", "own-consumer", "src", "test", "java", "com", "example", "own", "PaymentsConsumerTest.java")).endsWith(snippet);
    }
}
