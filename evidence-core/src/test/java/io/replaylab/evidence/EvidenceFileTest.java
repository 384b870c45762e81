package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvidenceFileTest {
    @TempDir
    Path dir;

    @Test
    void atomicWriteLeavesEitherTheOldOrTheNewFileNeverATornOne() throws Exception {
        Path target = dir.resolve("evidence.json");
        String a = "A".repeat(1_000_000);
        String b = "B".repeat(1_500_000);
        AtomicFiles.writeString(target, a);
        AtomicBoolean stop = new AtomicBoolean();
        List<String> torn = new ArrayList<>();
        Thread reader = new Thread(() -> {
            while (!stop.get()) {
                try {
                    String s = Files.readString(target, StandardCharsets.UTF_8);
                    if (!s.equals(a) && !s.equals(b)) {
                        torn.add("length " + s.length());
                    }
                } catch (Exception e) {
                    torn.add(e.toString());
                }
            }
        });
        reader.start();
        for (int i = 0; i < 40; i++) {
            AtomicFiles.writeString(target, i % 2 == 0 ? b : a);
        }
        stop.set(true);
        reader.join();

        assertThat(torn).isEmpty();
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(target); // no temp file left behind
        }
    }

    @Test
    void corruptEvidenceJsonNamesLineAndColumn() throws Exception {
        Path f = dir.resolve("evidence.json");
        Files.writeString(f, "{\n  \"schemaVersion\": 1,\n  \"runId\": \"x\",\n  oops\n}\n");
        assertThatThrownBy(() -> Evidence.read(f)).isInstanceOf(EvidenceFormatException.class)
                .hasMessageContaining("line 4");
    }

    @Test
    void invalidFieldIsNamed() throws Exception {
        try (RunRecorder run = SampleRuns.knownRun(dir)) {
            run.save();
        }
        Path f = dir.resolve(Evidence.EVIDENCE_FILE);
        Files.writeString(f, Files.readString(f).replace("\"status\" : \"PASS\"", "\"status\" : \"MAYBE\""));
        assertThatThrownBy(() -> Evidence.read(f)).isInstanceOf(EvidenceFormatException.class)
                .hasMessageContaining("status").hasMessageContaining("MAYBE");
    }

    @Test
    void evidenceFromTheFutureOrWithoutSchemaVersionIsRefusedClearly() throws Exception {
        Path f = dir.resolve("e.json");
        Files.writeString(f, "{\"schemaVersion\": 99}");
        assertThatThrownBy(() -> Evidence.read(f)).hasMessageContaining("schemaVersion 99");
        Files.writeString(f, "{\"runId\": \"x\"}");
        assertThatThrownBy(() -> Evidence.read(f)).hasMessageContaining("'schemaVersion' is missing");
        assertThatThrownBy(() -> Evidence.read(dir.resolve("absent.json"))).hasMessageContaining("does not exist");
    }
}
