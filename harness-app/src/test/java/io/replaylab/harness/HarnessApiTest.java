package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Pins harness-app's public surface: the lab runtime a second lab composes its experiments on
 * ({@code io.replaylab.harness.lab}), the reference experiments' list, the reference subject's
 * producer, and the CLI's entry point. Everything else (commands, benches, the subject's internals)
 * stays package-private.
 */
class HarnessApiTest {
    @Test
    void theOnlyPublicTypesAreTheApi() {
        assertThat(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.replaylab.harness").stream()
                .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)).map(JavaClass::getName))
                .containsExactlyInAnyOrder(
                "io.replaylab.harness.ReplayLab", "io.replaylab.harness.Versions",
                "io.replaylab.harness.experiment.Experiments", "io.replaylab.harness.experiment.ScheduleCell",
                "io.replaylab.harness.lab.BarrierKind", "io.replaylab.harness.lab.Experiment", "io.replaylab.harness.lab.Lab",
                "io.replaylab.harness.lab.LabContext", "io.replaylab.harness.lab.LabProgress", "io.replaylab.harness.lab.LabSettings",
                "io.replaylab.harness.lab.LabStop", "io.replaylab.harness.lab.LabStoppedException",
                "io.replaylab.harness.lab.SubjectExitedException", "io.replaylab.harness.lab.SubjectTemplate",
                "io.replaylab.harness.subject.SubjectCommand", "io.replaylab.harness.subject.SyntheticPayments");
    }
}
