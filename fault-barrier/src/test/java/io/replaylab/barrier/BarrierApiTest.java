package io.replaylab.barrier;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.replaylab.evidence.junit.PublicTypes;
import org.junit.jupiter.api.Test;

/**
 * Pins fault-barrier's public surface: a type becomes public on purpose (this list changes with it), never
 * by accident. Everything not listed stays package-private.
 */
class BarrierApiTest {
    @Test
    void theOnlyPublicTypesAreTheApi() {
        assertThat(PublicTypes.simpleNames("io.replaylab.barrier"))
                .containsExactlyInAnyOrder(
                "Arrival", "Barrier", "BarrierEvent", "BarrierEvidence", "BarrierReportSection", "BarrierListener", "BarrierOptions", "BarrierState",
                "BarrierTimeoutException", "BarrierTransition", "CallOutcome", "CommitOffset", "CommitFrontier", "Injector", "IllegalBarrierMoveException",
                "BarrierDataSource", "DebuggerBarrier", "HoldMode", "MethodPoint", "BarrierConsumer",
                "WireProxy", "WireWitness", "WitnessedCommit", "WitnessedReset", "MemberTimeouts", "FetchWatch", "ShareWitness", "WireFault", "ArmedFault", "FaultFiring",
                "NativeDebugger", "NativePoint", "NativeAttachException", "Point", "WirePoint", "BarrierSource", "CommitCheck", "PgPoint", "PgProxy",
                "DbFault", "ArmedDbFault", "DbFaultFiring", "PgWitness", "WitnessedTransaction");
    }

    @Test
    void theBarrierUsersHoldIsTheControllersViewOnly() {
        JavaClass barrier = new ClassFileImporter().importClasses(Barrier.class).get(Barrier.class);
        assertThat(barrier.getMethods().stream().filter(m -> m.getModifiers().contains(JavaModifier.PUBLIC)).map(m -> m.getName()).distinct())
                .containsExactlyInAnyOrder("arm", "point", "state", "arrival", "outcome", "awaitArrival", "tryAwaitArrival", "release", "expire",
                        "awaitOutcome", "toString");
        assertThat(barrier.getMethods().stream().filter(m -> m.getName().equals("release") && m.getModifiers().contains(JavaModifier.PUBLIC)))
                .as("release(by) is the injector's").allSatisfy(m -> assertThat(m.getRawParameterTypes()).isEmpty());
    }
}
