package io.replaylab.evidence.junit;

import java.util.List;
import java.util.function.Function;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * A module's public surface as its {@code *ApiTest} pins it: the public top-level types of its main
 * classes (tests left out) in some packages and their subpackages. A type becomes public on purpose,
 * with the test's list, never by accident. Needs ArchUnit on the test class path.
 */
public final class PublicTypes {
    private PublicTypes() {
    }

    /** Their simple names: {@code "Payload"}. */
    public static List<String> simpleNames(String... packages) {
        return of(packages, JavaClass::getSimpleName);
    }

    /** Their fully qualified names: {@code "io.replaylab.evidence.Payload"}. */
    public static List<String> names(String... packages) {
        return of(packages, JavaClass::getName);
    }

    private static List<String> of(String[] packages, Function<JavaClass, String> name) {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(packages).stream()
                .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)).map(name).sorted().toList();
    }
}
