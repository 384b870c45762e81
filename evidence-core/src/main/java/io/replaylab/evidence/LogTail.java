package io.replaylab.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The last lines of a process's log file, for an error message that says why the process failed. */
public final class LogTail {
    private LogTail() {
    }

    /** Up to {@code n} last lines; empty when the file is missing or cannot be read (a diagnosis must not fail in turn). */
    public static List<String> lastLines(Path file, int n) {
        try {
            List<String> all = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
            return List.copyOf(all.subList(Math.max(0, all.size() - n), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return List.of();
        }
    }
}
