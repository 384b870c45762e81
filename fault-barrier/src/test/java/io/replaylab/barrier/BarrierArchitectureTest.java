package io.replaylab.barrier;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The barrier core and the debugger barriers (JVM and native) know nothing of Kafka or SQL; only the in-process decorators do. */
class BarrierArchitectureTest {
    private final JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.replaylab.barrier");

    @Test
    void coreAndDebuggersDependOnNeitherKafkaNorSql() {
        noClasses().that().resideInAnyPackage("io.replaylab.barrier", "io.replaylab.barrier.jdi", "io.replaylab.barrier.gdb")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "java.sql..", "javax.sql..", "org.sqlite..", "com.zaxxer..")
                .check(classes);
    }

    @Test
    void kafkaAndJdbcDecoratorsStayApart() {
        noClasses().that().resideInAPackage("io.replaylab.barrier.jdbc").should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
                .check(classes);
        noClasses().that().resideInAPackage("io.replaylab.barrier.kafka").should().dependOnClassesThat().resideInAnyPackage("java.sql..", "javax.sql..")
                .check(classes);
    }
}
