package io.replaylab.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.replaylab.evidence.AtomicFiles;
import io.replaylab.evidence.Json;

/** Saving, loading and CSV export/import of reset plans. */
public final class ResetPlans {
    private ResetPlans() {
    }

    /** The file a plan is saved as in a plan directory. */
    public static Path fileIn(Path planDir, ResetPlan plan) {
        return planDir.resolve(plan.planId() + ".plan.json");
    }

    /** Writes the saved plan durably (fsync + atomic rename). */
    public static SavedPlan save(SavedPlan saved) {
        try {
            ObjectNode node = Json.mapper().valueToTree(saved);
            node.remove("file");
            AtomicFiles.writeString(saved.file(), Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n");
            return saved;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize plan " + saved.plan().planId(), e);
        }
    }

    /** Reads a saved plan; a bad file names itself and what is wrong. */
    public static SavedPlan load(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("plan file " + file + " does not exist");
        }
        try {
            ObjectNode node = (ObjectNode) Json.mapper().readTree(file.toFile());
            if (node == null || !node.has("plan")) {
                throw new IllegalArgumentException("plan file " + file + " has no 'plan' field: is it a replay-lab saved plan?");
            }
            node.remove("file");
            SavedPlan s = Json.mapper().treeToValue(node, SavedPlan.class);
            return new SavedPlan(s.schemaVersion(), s.status(), s.statusDetail(), s.updatedAt(), s.plan(), file);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("plan file " + file + " is not a valid saved plan: " + e.getOriginalMessage(), e);
        } catch (ClassCastException e) {
            throw new IllegalArgumentException("plan file " + file + " is not a JSON object");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read plan file " + file, e);
        }
    }

    /**
     * The CSV that {@code kafka-consumer-groups --reset-offsets --from-file} reads: no header,
     * {@code topic,partition,offset}. Rows that remove an offset cannot be expressed and are left out.
     */
    public static String toCsv(ResetPlan plan) {
        StringBuilder sb = new StringBuilder();
        for (PlanRow r : plan.rows()) {
            if (r.next() >= 0) {
                sb.append(r.topic()).append(',').append(r.partition()).append(',').append(r.next()).append('\n');
            }
        }
        return sb.toString();
    }

    /** Parses that CSV; a bad line is named with its number and content. */
    public static Map<PartitionRef, Long> parseCsv(String text, String sourceName) {
        Map<PartitionRef, Long> out = new LinkedHashMap<>();
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(",", -1);
            String where = sourceName + " line " + (i + 1) + " ('" + line + "')";
            if (f.length != 3) {
                throw new IllegalArgumentException(where + ": expected topic,partition,offset");
            }
            int partition;
            long offset;
            try {
                partition = Integer.parseInt(f[1].strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ": partition '" + f[1] + "' is not a number");
            }
            try {
                offset = Long.parseLong(f[2].strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ": offset '" + f[2] + "' is not a number");
            }
            if (offset < 0 || partition < 0 || f[0].isBlank()) {
                throw new IllegalArgumentException(where + ": topic must be named, partition and offset must be >= 0");
            }
            PartitionRef ref = new PartitionRef(f[0].strip(), partition);
            if (out.put(ref, offset) != null) {
                throw new IllegalArgumentException(where + ": " + ref + " appears twice");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(sourceName + " holds no topic,partition,offset line");
        }
        return out;
    }

    public static Map<PartitionRef, Long> readCsv(Path file) {
        try {
            return parseCsv(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read CSV file " + file + ": " + e.getMessage(), e);
        }
    }
}
