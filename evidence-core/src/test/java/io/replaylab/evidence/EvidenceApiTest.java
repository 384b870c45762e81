package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Pins evidence-core's public surface: a type becomes public on purpose (this list changes with it), never
 * by accident. Everything not listed stays package-private.
 */
class EvidenceApiTest {
    @Test
    void theOnlyPublicTypesAreTheApi() {
        assertThat(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.replaylab.evidence").stream()
                .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)).map(JavaClass::getSimpleName))
                .containsExactlyInAnyOrder(
                "Artifact", "AtomicFiles", "Check", "Event", "Evidence", "EvidenceFormatException",
                "ExperimentEvidence", "ExperimentRecorder", "FailKind", "FaultConfirmation", "Json",
                "LogTail", "MetricValue", "Outcome", "Payload", "Report", "ReportSection", "Reports", "RunEvidence",
                "RunRecorder", "SavedProtocol", "Source", "Status", "Resource", "RunJournal", "RecordEvidence", "PayloadTypes", "TestResults", "Prerequisite", "ChildProcess", "ChildProcessException", "Platform", "Poll");
    }
}
