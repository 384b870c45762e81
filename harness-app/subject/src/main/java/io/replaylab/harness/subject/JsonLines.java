package io.replaylab.harness.subject;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** An append-only JSON-lines log flushed per line (these logs are evidence). A null path writes nothing. */
final class JsonLines implements AutoCloseable {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final OutputStream out;

    JsonLines(Path file) {
        try {
            if (file == null) {
                out = null;
                return;
            }
            if (file.toAbsolutePath().getParent() != null) {
                Files.createDirectories(file.toAbsolutePath().getParent());
            }
            out = new FileOutputStream(file.toFile(), true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open log " + file, e);
        }
    }

    synchronized void write(Map<String, ?> line) {
        if (out == null) {
            return;
        }
        try {
            out.write((MAPPER.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write log line", e);
        }
    }

    @Override
    public synchronized void close() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException ignored) {
                // closing at exit
            }
        }
    }
}
