package io.replaylab.harness.barrier;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The barrier room is sealed: a held point is immutable, a technology is a package-private class
 * that only {@link BarrierPlan} picks, and no one outside the room names what holds A.
 */
class BarrierRoomTest {
    private static final JavaClasses LAB = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.replaylab.harness");

    @Test
    void aHeldPointHasNoFieldAnotherClassCanFillIn() {
        fields().that().areDeclaredIn(Held.class).should().beFinal().andShould().bePrivate().check(LAB);
    }

    @Test
    void aTechnologyIsAClassOfTheRoomThatOnlyTheBarrierPlanChooses() {
        classes().that().implement(Technology.class).should().bePackagePrivate().andShould().resideInAPackage("io.replaylab.harness.barrier")
                .check(LAB);
        // made by its constructor or a factory of its own: only the plan asks for one
        DescribedPredicate<JavaCall<?>> makesATechnology = DescribedPredicate.describe("make a technology",
                call -> call.getTargetOwner().isAssignableTo(Technology.class) && !call.getTargetOwner().isEquivalentTo(Technology.class)
                        && !call.getOriginOwner().equals(call.getTargetOwner())
                        && (call instanceof JavaConstructorCall || call.getTarget().resolveMember().map(m -> m.getModifiers()
                                .contains(com.tngtech.archunit.core.domain.JavaModifier.STATIC)).orElse(false)));
        noClasses().that().doNotHaveFullyQualifiedName(BarrierPlan.class.getName()).should().callCodeUnitWhere(makesATechnology).check(LAB);
        DescribedPredicate<JavaClass> technology = DescribedPredicate.describe("a technology", c -> c.isAssignableTo(Technology.class));
        noClasses().that().resideOutsideOfPackage("io.replaylab.harness.barrier").should().dependOnClassesThat(technology).check(LAB);
    }
}
