package io.replaylab.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;

/** Rebuilds a run from its journal: every valid line counts, every bad line is named, never a PASS by default. */
final class JournalReader {
    private JournalReader() {
    }

    static RunEvidence read(Path file) {
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
        List<String> problems = new ArrayList<>();
        String runId = null;
        Instant runStarted = null;
        Instant runEnded = null;
        Map<String, Builder> experiments = new LinkedHashMap<>();
        String[] lines = text.split("\n", -1);
        boolean endsWithNewline = text.endsWith("\n");
        int lastLine = endsWithNewline ? lines.length - 1 : lines.length;
        for (int i = 0; i < lastLine; i++) {
            String line = lines[i];
            int no = i + 1;
            if (line.isBlank()) {
                continue;
            }
            JournalEntry e;
            try {
                e = Json.mapper().readValue(line, JournalEntry.class);
            } catch (JsonProcessingException ex) {
                boolean cut = i == lastLine - 1 && !endsWithNewline;
                problems.add(file.getFileName() + " line " + no + (cut ? " is cut short (the run stopped while writing it)"
                        : " is not valid evidence: " + ex.getOriginalMessage()));
                continue;
            }
            if (e.kind() == null) {
                problems.add(file.getFileName() + " line " + no + " has no 'kind'");
                continue;
            }
            Builder b = e.experiment() == null ? null : experiments.get(e.experiment());
            switch (e.kind()) {
                case JournalEntry.RUN -> {
                    runId = e.runId();
                    runStarted = e.time();
                    if (e.schemaVersion() != null && e.schemaVersion() > RunEvidence.SCHEMA_VERSION) {
                        problems.add(file.getFileName() + " line " + no + ": schema version " + e.schemaVersion()
                                + " is newer than this reader's " + RunEvidence.SCHEMA_VERSION);
                    }
                }
                case JournalEntry.EXPERIMENT -> experiments.put(e.experiment(), new Builder(e.experiment(), e.requirements(), e.time()));
                case JournalEntry.RUN_FINISHED -> runEnded = e.time();
                case JournalEntry.CLEANUP -> {
                    // written after the protocol was saved; not part of the verdict
                }
                default -> {
                    if (b == null) {
                        problems.add(file.getFileName() + " line " + no + ": " + e.kind() + " for unknown experiment '"
                                + e.experiment() + "'");
                        continue;
                    }
                    switch (e.kind()) {
                        case JournalEntry.ENVIRONMENT -> b.environment.put(e.key(), e.value());
                        case JournalEntry.EVENT -> b.events.add(e.event());
                        case JournalEntry.CHECK -> b.checks.add(e.check());
                        case JournalEntry.LIMITATION -> b.limitations.add(e.value());
                        case JournalEntry.ARTIFACT -> b.artifacts.add(e.artifact());
                        case JournalEntry.METRICS -> b.metrics = e.metrics();
                        case JournalEntry.FINISHED -> {
                            b.ended = e.time();
                            b.outcome = e.outcome();
                        }
                        default -> problems.add(file.getFileName() + " line " + no + ": unknown kind '" + e.kind() + "'");
                    }
                }
            }
        }
        if (runId == null) {
            problems.add(file.getFileName() + ": no 'run' line: this is not a replay-lab journal, or its first line is lost");
            runId = "unknown";
        }
        List<ExperimentEvidence> done = new ArrayList<>();
        for (Builder b : experiments.values()) {
            done.add(b.build());
        }
        boolean complete = runEnded != null && problems.isEmpty();
        Instant started = runStarted != null ? runStarted
                : done.stream().map(ExperimentEvidence::started).findFirst().orElse(Instant.EPOCH);
        return new RunEvidence(RunEvidence.SCHEMA_VERSION, runId, started, runEnded, complete, done,
                RunEvidence.outcomeOf(complete, done), problems);
    }

    private static final class Builder {
        final String name;
        final List<String> requirements;
        final Instant started;
        final Map<String, String> environment = new LinkedHashMap<>();
        final List<Event> events = new ArrayList<>();
        final List<Check> checks = new ArrayList<>();
        final List<String> limitations = new ArrayList<>();
        final List<Artifact> artifacts = new ArrayList<>();
        List<MetricValue> metrics = List.of();
        Instant ended;
        Outcome outcome;

        Builder(String name, List<String> requirements, Instant started) {
            this.name = name;
            this.requirements = requirements == null ? List.of() : requirements;
            this.started = started == null ? Instant.EPOCH : started;
        }

        ExperimentEvidence build() {
            Outcome o = outcome != null ? outcome
                    : Outcome.notRun("experiment '" + name + "' did not finish: its journal ends after "
                            + events.size() + " event(s)");
            return new ExperimentEvidence(name, requirements, started, outcome != null ? ended : null, environment, events,
                    checks, o, limitations, artifacts, metrics);
        }
    }
}
