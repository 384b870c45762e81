package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * What ArchUnit cannot see in the main sources: behaviour over a fault, an effect or a point lives on
 * the type, so a new one is guided by the compiler; a {@code default -> throw} over such a type would
 * let a missing case compile and fail at run time.
 */
class RoomsTest {
    /** The switches that may end in a throw: they parse text a user typed, where an unknown word is bad input. */
    private static final Map<String, String> PARSERS = Map.of(
            "ProgramSearch.java", "switch (arch): the machine's os.arch text",
            "BarrierKind.java", "switch (s): a barrier's name as typed");

    @Test
    void noSwitchOverATypeEndsInDefaultThrowOnlyTextParsersDo() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("..", ".."))) {
            files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/java/") && !f.toString().contains("/target/"))
                    .forEach(f -> {
                        try {
                            List<String> lines = Files.readAllLines(f);
                            for (int i = 0; i < lines.size(); i++) {
                                if (lines.get(i).contains("default -> throw") && !PARSERS.containsKey(f.getFileName().toString())) {
                                    found.add(f + ":" + (i + 1));
                                }
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
        assertThat(found).as("put the behaviour on the fault, effect or point type instead").isEmpty();
    }

    /** A Kafka API or a broker's error is a type ({@code ApiKeys}, {@code Errors}, a fate's accessor): no main code compares its name as text. */
    @Test
    void noMainCodeComparesAKafkaApiOrAnErrorNameAsText() throws IOException {
        List<String> names = new ArrayList<>();
        for (org.apache.kafka.common.protocol.ApiKeys k : org.apache.kafka.common.protocol.ApiKeys.values()) {
            names.add(k.name);
        }
        for (org.apache.kafka.common.protocol.Errors err : org.apache.kafka.common.protocol.Errors.values()) {
            names.add(err.name());
        }
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("..", ".."))) {
            files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/java/") && !f.toString().contains("/target/"))
                    // the witness reads the wire's own answers: its records are where the names are interpreted, once
                    .filter(f -> !f.getFileName().toString().equals("WitnessedCommit.java") && !f.getFileName().toString().equals("ShareWitness.java")
                            && !f.getFileName().toString().equals("BarrierEvent.java"))
                    .forEach(f -> {
                        try {
                            List<String> lines = Files.readAllLines(f);
                            for (int i = 0; i < lines.size(); i++) {
                                String line = lines.get(i);
                                for (String n : names) {
                                    if (line.contains("equals(\"" + n + "\")") || line.contains("\"" + n + "\".equals(") || line.contains("\"" + n + "\"::equals")) {
                                        found.add(f.getFileName() + ":" + (i + 1) + " " + n);
                                    }
                                }
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        }
        assertThat(found).as("compare the type (ApiKeys, Errors) or ask the record that read it").isEmpty();
    }
}
