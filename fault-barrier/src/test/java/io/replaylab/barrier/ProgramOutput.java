package io.replaylab.barrier;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

/** For tests that watch a real program: wait (with a deadline, never a fixed sleep) until its output says something. */
public final class ProgramOutput {
    private ProgramOutput() {
    }

    public static void await(Path output, String text) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!Files.readString(output).contains(text) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(Files.readString(output)).contains(text);
    }
}
