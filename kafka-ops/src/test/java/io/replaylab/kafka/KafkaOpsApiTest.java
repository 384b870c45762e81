package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Pins kafka-ops's public surface: a type becomes public on purpose (this list changes with it), never
 * by accident. Everything not listed stays package-private.
 */
class KafkaOpsApiTest {
    @Test
    void theOnlyPublicTypesAreTheApi() {
        assertThat(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.replaylab.kafka").stream()
                .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)).map(JavaClass::getSimpleName))
                .containsExactlyInAnyOrder(
                "Bootstraps", "BrokerUnreachableException", "ExecuteResetOptions", "GroupMember", "GroupState", "KafkaOps",
                "KafkaOpsException", "LabNamespace", "OffsetLookup", "OffsetSnapshot", "OffsetsEvent", "PartitionOffsets", "PartitionRef",
                "PlanRow", "ResetPlan", "ResetPlans", "ResetRefusedException", "ResetResult", "ResetScope",
                "ResetTarget", "ResetTargets", "SavedPlan", "LocalKafka", "LocalKafkaConfig", "LocalKafkaCluster",
                "LocalKafkaException", "LocalKafkaTest");
    }
}
