package io.replaylab.harness.subject;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** harness-subject offers the reference subject as lab values and as a program (its picocli command, which the CLI mounts as {@code subject}). */
class SubjectApiTest {
    @Test
    void theOnlyPublicTypesAreTheSubjectValuesAndItsCommand() {
        assertThat(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.replaylab.harness.subject")
                .stream().filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)).map(JavaClass::getName))
                .containsExactlyInAnyOrder("io.replaylab.harness.subject.ReferenceSubject", "io.replaylab.harness.subject.SubjectCommand");
    }
}
