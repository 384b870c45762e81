package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import io.replaylab.kafka.testing.PythonConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recipes under docs/recipes run as written. */
class RecipesTest {
    private static final Path RECIPES = Path.of("../../docs/recipes"); // the module's directory is the test's working directory

    @TempDir
    Path dir;

    @Test
    void thePythonConsumerConfiguredByItsEnvironmentPassesReplayAndRebalanceAsTheRecipeRunsIt() throws Exception {
        String python = PythonConsumer.python(); // skips, saying how to install it, where there is no Python with confluent_kafka
        Files.copy(PythonConsumer.copy(dir, "handbook_consumer.py"), dir.resolve("consumer.py"));
        String script = ShellSteps.firstBashBlock(RECIPES.resolve("python-by-environment.md"));
        assertThat(script).contains("\"python3 consumer.py\"");

        // the recipe says python3: here the one that has confluent_kafka
        String said = ShellSteps.run(ShellSteps.withLauncher(dir), "the recipe", script.replace("\"python3 consumer.py\"", "\"" + python + " consumer.py\""));

        // exit 0 (ShellSteps.run asserts it) is PASS and nothing else
        assertThat(said).contains("replay").contains("rebalance").contains("PASS").doesNotContain("NOT_RUN");
    }
}
