package io.replaylab.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The append-only JSON-lines journal. Every line is written, flushed and fsynced before the call
 * returns, so a run killed at any moment leaves every recorded line readable.
 */
final class Journal implements AutoCloseable {
    static final String FILE_NAME = "journal.jsonl";

    private final Path file;
    private final FileChannel channel;

    Journal(Path file) {
        this.file = file;
        try {
            this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the evidence journal " + file, e);
        }
    }

    synchronized void append(JournalEntry entry) {
        try {
            byte[] line = (Json.mapper().writeValueAsString(entry) + "\n").getBytes(StandardCharsets.UTF_8);
            ByteBuffer buf = ByteBuffer.wrap(line);
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
            channel.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the evidence journal " + file, e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
