package io.replaylab.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reading and writing saved runs. Start recording with {@link RunRecorder#start}; read back with
 * {@link #read(Path)} (an {@code evidence.json}, or a {@code journal.jsonl} of a run that never
 * finished); render with {@link Reports}.
 */
public final class Evidence {
    public static final String EVIDENCE_FILE = "evidence.json";
    public static final String JOURNAL_FILE = Journal.FILE_NAME;

    private Evidence() {
    }

    /** Writes {@code evidence.json} atomically. */
    public static void write(Path file, RunEvidence run) {
        writeJson(file, run);
    }

    /**
     * Writes any value of a protocol (a plan, a manifest, a snapshot) as the evidence writes itself:
     * pretty JSON, the same mapping (times as ISO-8601, no nulls), atomically.
     */
    public static void writeJson(Path file, Object value) {
        AtomicFiles.writeString(file, toJson(value) + "\n");
    }

    /** A value of a protocol as pretty JSON, as {@link #writeJson} writes it (for a console that prints JSON). */
    public static String toJson(Object value) {
        try {
            return Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    /**
     * Reads a saved run. A {@code .jsonl} file is read as a journal (a cut or corrupt journal gives
     * an incomplete run, NOT_RUN, with its problems listed). A corrupt {@code evidence.json} throws
     * {@link EvidenceFormatException} naming the line and column or the field.
     */
    public static RunEvidence read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new EvidenceFormatException(file + " does not exist or is not a file");
        }
        if (file.getFileName().toString().endsWith(".jsonl")) {
            return JournalReader.read(file);
        }
        JsonNode tree;
        try {
            tree = Json.mapper().readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new EvidenceFormatException(file + " " + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        if (tree == null || !tree.isObject()) {
            throw new EvidenceFormatException(file + " is empty or not a JSON object");
        }
        JsonNode version = tree.get("schemaVersion");
        if (version == null || !version.canConvertToInt()) {
            throw new EvidenceFormatException(file + ": field 'schemaVersion' is missing; is this a replay-lab evidence.json?");
        }
        if (version.asInt() > RunEvidence.SCHEMA_VERSION) {
            throw new EvidenceFormatException(file + ": schemaVersion " + version.asInt() + " is newer than this reader ("
                    + RunEvidence.SCHEMA_VERSION + "); use a newer replay-lab");
        }
        try {
            return Json.mapper().treeToValue(tree, RunEvidence.class);
        } catch (JsonMappingException e) {
            throw new EvidenceFormatException(file + ": field '" + e.getPathReference().replaceAll("io\\.replaylab\\.evidence\\.", "")
                    + "' is invalid: " + e.getOriginalMessage(), e);
        } catch (JsonProcessingException e) {
            throw new EvidenceFormatException(file + ": " + e.getOriginalMessage(), e);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new EvidenceFormatException(file + ": " + e.getMessage(), e);
        }
    }

    private static String where(JsonLocation loc) {
        return loc == null ? "" : "line " + loc.getLineNr() + ", column " + loc.getColumnNr();
    }
}
