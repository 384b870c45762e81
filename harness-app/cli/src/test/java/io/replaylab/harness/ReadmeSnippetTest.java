package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** README's JUnit snippet is the example project's test, line for line: it cannot drift from code that compiles and runs. */
class ReadmeSnippetTest {
    @Test
    void theJunitSnippetIsCutFromTheExampleProject() throws Exception {
        String readme = Files.readString(Path.of("..", "..", "README.md"));
        String example = Files.readString(Path.of("..", "..", "examples", "custom-test", "src", "test", "java", "com", "example", "lab",
                "ReplayOfMyConsumerTest.java"));
        int start = readme.indexOf("```java\n@LocalKafkaTest");
        assertThat(start).as("README has the @LocalKafkaTest snippet").isPositive();
        String snippet = readme.substring(start + "```java\n".length(), readme.indexOf("```", start + 7));

        String body = example.substring(example.indexOf("@LocalKafkaTest\n@RecordEvidence"));
        assertThat(body).startsWith(snippet.substring(0, snippet.lastIndexOf("    }\n}") + 6));
    }

    @Test
    void theOwnExperimentSnippetIsCutFromItsTest() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String test = Files.readString(Path.of("..", "subject", "src", "test", "java", "com", "example", "ownlab", "CrashRestartExperimentTest.java"));
        int start = readme.indexOf("```java\nstatic final Experiment CRASH_RESTART");
        assertThat(start).as("harness-app/README.md has the own-experiment snippet").isPositive();
        String snippet = readme.substring(start + "```java\n".length(), readme.indexOf("```", start + 7));
        String indented = snippet.lines().map(l -> l.isEmpty() ? l : "    " + l).collect(java.util.stream.Collectors.joining("\n", "", "\n"));
        assertThat(test).contains(indented);
    }

    @Test
    void harnessAppsLeadSnippetIsCutFromItsTest() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String test = Files.readString(Path.of("..", "subject", "src", "test", "java", "io", "replaylab", "harness", "experiment", "ReadmeLeadTest.java"));
        int start = readme.indexOf("```java\n");
        assertThat(readme.substring(0, start).lines().count()).as("harness-app/README.md leads with its snippet").isLessThan(8);
        String snippet = readme.substring(start + "```java\n".length(), readme.indexOf("```", start + 7));
        assertThat(snippet).startsWith("try (LocalKafka kafka");
        String indented = snippet.lines().map(l -> l.isEmpty() ? l : "        " + l).collect(java.util.stream.Collectors.joining("\n", "", "\n"));
        assertThat(test).contains(indented);
    }

    @Test
    void theOwnConsumerSnippetIsTheSecondLabsTestWhole() throws Exception {
        String readme = Files.readString(Path.of("..", "..", "README.md"));
        String test = Files.readString(Path.of("..", "..", "examples", "own-consumer", "src", "test", "java", "com", "example", "own",
                "PaymentsConsumerTest.java"));
        int start = readme.indexOf("```java\n@RecordLab\nclass");
        assertThat(start).as("README has the @RecordLab snippet").isPositive();
        String snippet = readme.substring(start + "```java\n".length(), readme.indexOf("```", start + 7));
        assertThat(test).endsWith(snippet);
    }
}
