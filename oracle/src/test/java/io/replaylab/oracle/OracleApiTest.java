package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Pins oracle's public surface: a type becomes public on purpose (this list changes with it), never
 * by accident. Everything not listed stays package-private.
 */
class OracleApiTest {
    @Test
    void theOnlyPublicTypesAreTheApi() {
        assertThat(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.replaylab.oracle").stream()
                .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)).map(JavaClass::getSimpleName))
                .containsExactlyInAnyOrder(
                "Comparison", "Cut", "Finding", "Oracle", "OracleReadException", "RecordParser",
                "RecordParsers", "SnapshotDiff", "SourceIndex", "SourceMapping", "SourceSpec", "Target", "TargetEvent", "TargetSnapshot", "TargetSpec", "TopicOracle");
    }
}
