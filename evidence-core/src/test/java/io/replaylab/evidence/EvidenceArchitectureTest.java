package io.replaylab.evidence;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * evidence-core is the history of any lab: Kafka lives in the modules that record Kafka events
 * (their {@link Payload.Extension}s and {@link ReportSection}s), so nothing public here names it.
 */
class EvidenceArchitectureTest {
    private static final List<String> KAFKA_WORDS = List.of("kafka", "commit", "offset", "partition", "broker", "topic", "consumergroup");

    private final JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.replaylab.evidence");

    @Test
    void noPublicTypeMethodOrFieldNamesAKafkaConcept() {
        List<String> names = classes.stream().filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC)).flatMap(c -> Stream.concat(
                Stream.of(c.getName()),
                Stream.concat(c.getMethods().stream().filter(m -> m.getModifiers().contains(JavaModifier.PUBLIC)).map(m -> c.getSimpleName() + "." + m.getName()),
                        c.getFields().stream().filter(f -> f.getModifiers().contains(JavaModifier.PUBLIC)).map(f -> c.getSimpleName() + "." + f.getName()))))
                .toList();

        assertThat(names).as("public names of evidence-core").hasSizeGreaterThan(100)
                .filteredOn(n -> KAFKA_WORDS.stream().anyMatch(n.toLowerCase(Locale.ROOT)::contains)).isEmpty();
    }

    @Test
    void nothingDependsOnTheKafkaClient() {
        noClasses().should().dependOnClassesThat().resideInAPackage("org.apache.kafka..").check(classes);
    }

    @Test
    void theReportsSectionTitlesNameNoKafkaConcept() throws Exception {
        String md = Reports.markdown(Evidence.read(java.nio.file.Path.of("src/test/resources/evidence-0.1/known-run.json")));
        assertThat(md.lines().filter(l -> l.startsWith("#")).map(l -> l.toLowerCase(Locale.ROOT)))
                .isNotEmpty().noneMatch(l -> KAFKA_WORDS.stream().anyMatch(l::contains));
    }

}
