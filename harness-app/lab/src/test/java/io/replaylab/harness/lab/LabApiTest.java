package io.replaylab.harness.lab;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import io.replaylab.barrier.BarrierSource;
import io.replaylab.barrier.WirePoint;
import io.replaylab.barrier.wire.WireProxy;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.replaylab.evidence.junit.PublicTypes;
import org.junit.jupiter.api.Test;

/**
 * Pins harness-lab's public surface, what a second lab composes its run from: the runtime, the
 * subject value, the reference experiments as factories and the synthetic payments they produce.
 * Its main code knows no CLI, no picocli and no reference subject.
 */
class LabApiTest {
    private static final JavaClasses LAB = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.replaylab.harness.lab", "io.replaylab.harness.experiment", "io.replaylab.harness.barrier");

    @Test
    void theOnlyPublicTypesAreTheApi() {
        assertThat(PublicTypes.names("io.replaylab.harness.lab", "io.replaylab.harness.experiment", "io.replaylab.harness.barrier"))
                .containsExactlyInAnyOrder(
                "io.replaylab.harness.experiment.Experiments", "io.replaylab.harness.experiment.Defect", "io.replaylab.harness.experiment.ScheduleCell", "io.replaylab.harness.experiment.WireFaultCell", "io.replaylab.harness.experiment.DbFaultCell",
                "io.replaylab.harness.lab.BarrierKind", "io.replaylab.harness.lab.Experiment", "io.replaylab.harness.lab.Lab",
                "io.replaylab.harness.lab.LabContext", "io.replaylab.harness.lab.LabProgress", "io.replaylab.harness.lab.LabSettings",
                "io.replaylab.harness.lab.BrokerSettings", "io.replaylab.harness.lab.TargetSettings", "io.replaylab.harness.lab.Timeouts",
                "io.replaylab.harness.lab.BarrierSettings",
                "io.replaylab.harness.lab.LabStop", "io.replaylab.harness.lab.LabStoppedException",
                "io.replaylab.harness.lab.Leftovers", "io.replaylab.harness.lab.CleanupRefusedException",
                "io.replaylab.harness.lab.SubjectExitedException", "io.replaylab.harness.lab.SubjectFailedException", "io.replaylab.harness.lab.Subject", "io.replaylab.harness.lab.RecordSource", "io.replaylab.harness.lab.InvalidSettingsException",
                "io.replaylab.harness.lab.SyntheticPayments", "io.replaylab.harness.lab.SyntheticProducer", "io.replaylab.harness.lab.Versions",
                "io.replaylab.harness.lab.junit.RecordLab", "io.replaylab.harness.lab.junit.LabRunner", "io.replaylab.harness.lab.InstanceSpec",
                "io.replaylab.harness.lab.LabKafka", "io.replaylab.harness.lab.LabWire", "io.replaylab.harness.lab.LabDbWire", "io.replaylab.harness.lab.LabEvent", "io.replaylab.harness.lab.LabTarget", "io.replaylab.harness.lab.LabSubjects", "io.replaylab.harness.lab.ProcessingLine",
                "io.replaylab.harness.barrier.BarrierPlan", "io.replaylab.harness.barrier.Held", "io.replaylab.harness.barrier.CommitPoint",
                "io.replaylab.harness.barrier.PointNotReached", "io.replaylab.harness.barrier.PointUnreachable", "io.replaylab.harness.barrier.CommitsAnotherWay");
    }

    @Test
    void noExperimentNamesABarrierTechnologyOnlyTheBarrierRoomDoes() {
        // LabWire hands the run's proxy to the room as a BarrierSource (barrier(), which only the room may call: below)
        noClasses().that().resideOutsideOfPackage("io.replaylab.harness.barrier..").and().doNotHaveSimpleName("LabWire").should().dependOnClassesThat()
                .resideInAnyPackage("io.replaylab.barrier.jdi..", "io.replaylab.barrier.gdb..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName(WirePoint.class.getName())
                .orShould().dependOnClassesThat().haveFullyQualifiedName(BarrierSource.class.getName())
                .orShould().dependOnClassesThat().haveFullyQualifiedName(io.replaylab.barrier.PgPoint.class.getName())
                .because("experiments and the run hold A through harness.barrier's BarrierPlan, whatever holds it").check(LAB);
        DescribedPredicate<JavaMethodCall> armsAPoint = DescribedPredicate.describe("arm a point on a barrier technology",
                call -> call.getTargetOwner().isAssignableTo(BarrierSource.class) && call.getName().equals("arm"));
        noClasses().that().resideOutsideOfPackage("io.replaylab.harness.barrier..").should().callMethodWhere(armsAPoint).check(LAB);
        DescribedPredicate<JavaMethodCall> takesTheWireBarrier = DescribedPredicate.describe("take the wire proxy as a barrier",
                call -> call.getTargetOwner().isEquivalentTo(LabWire.class) && call.getName().equals("barrier"));
        noClasses().that().resideOutsideOfPackage("io.replaylab.harness.barrier..").should().callMethodWhere(takesTheWireBarrier).check(LAB);
        DescribedPredicate<JavaMethodCall> takesTheDbBarrier = DescribedPredicate.describe("take the PostgreSQL proxy as a barrier",
                call -> call.getTargetOwner().isEquivalentTo(LabDbWire.class) && call.getName().equals("barrier"));
        noClasses().that().resideOutsideOfPackage("io.replaylab.harness.barrier..").should().callMethodWhere(takesTheDbBarrier).check(LAB);
        // the target makes the PostgreSQL proxy; experiments see it as a LabDbWire
        noClasses().that().resideOutsideOfPackage("io.replaylab.harness.barrier..").and().doNotHaveSimpleName("TargetDatabase")
                .and().doNotHaveSimpleName("LabDbWire").and().doNotHaveSimpleName("LabRun").should().dependOnClassesThat()
                .haveFullyQualifiedName(io.replaylab.barrier.pg.PgProxy.class.getName()).check(LAB);
        // the run makes the proxy; every other class of the lab sees it as a LabWire
        noClasses().that().resideOutsideOfPackage("io.replaylab.harness.barrier..").and().doNotHaveSimpleName("RunFixture")
                .and().doNotHaveSimpleName("LabRun").and().doNotHaveSimpleName("Lab").and().doNotHaveSimpleName("LabWire")
                .should().dependOnClassesThat().haveFullyQualifiedName(WireProxy.class.getName()).check(LAB);
    }

    @Test
    void theLabKnowsNoCliNoPicocliAndNoReferenceSubject() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("picocli..", "io.replaylab.harness", "io.replaylab.harness.subject..",
                "io.replaylab.harness.bench..").check(LAB);
    }
}
