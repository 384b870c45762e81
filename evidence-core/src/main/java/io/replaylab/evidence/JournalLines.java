package io.replaylab.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;

/**
 * The one reader of a journal's lines: each line that reads as an entry, with its number, and a
 * problem for each that does not (a last line cut short when the run stopped while writing it is
 * said so). A reader that judges reports the problems ({@link JournalReader}); one that only needs the
 * good lines takes {@link #entries()} ({@link RunJournal}).
 */
record JournalLines(List<Line> entries, List<String> problems) {
    /** One readable line: its number (from 1) and its entry. */
    record Line(int number, JournalEntry entry) {
    }

    static JournalLines read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the journal " + file, e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new EvidenceFormatException(file + ": not text", e);
        }
        List<Line> entries = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        boolean endsWithNewline = text.endsWith("\n");
        int lastLine = endsWithNewline ? lines.length - 1 : lines.length;
        for (int i = 0; i < lastLine; i++) {
            String line = lines[i];
            if (line.isBlank()) {
                continue;
            }
            try {
                entries.add(new Line(i + 1, Json.mapper().readValue(line, JournalEntry.class)));
            } catch (JsonProcessingException ex) {
                boolean cut = i == lastLine - 1 && !endsWithNewline;
                problems.add(file.getFileName() + " line " + (i + 1) + (cut ? " is cut short (the run stopped while writing it)"
                        : " is not valid evidence: " + ex.getOriginalMessage()));
            }
        }
        return new JournalLines(List.copyOf(entries), List.copyOf(problems));
    }
}
