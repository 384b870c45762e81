package io.replaylab.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.evidence.junit.PublicTypes;
import org.junit.jupiter.api.Test;

/**
 * Pins kafka-ops's public surface: a type becomes public on purpose (this list changes with it), never
 * by accident. Everything not listed stays package-private.
 */
class KafkaOpsApiTest {
    @Test
    void theOnlyPublicTypesAreTheApi() {
        assertThat(PublicTypes.simpleNames("io.replaylab.kafka"))
                .containsExactlyInAnyOrder(
                "Bootstraps", "BrokerUnreachableException", "ClientProperties", "GroupType", "ExecuteResetOptions", "GroupMember", "GroupState", "KafkaOps",
                "KafkaOpsException", "LabNamespace", "NamespaceDeletion", "OffsetLookup", "OffsetSnapshot", "OffsetsEvent", "PartitionOffsets", "PartitionRef",
                "PlanRow", "ResetPlan", "ResetPlans", "ResetRefusedException", "ResetResult", "ResetScope",
                "ResetTarget", "ResetTargets", "SavedPlan", "LocalKafka", "LocalKafkaConfig", "LocalKafkaCluster",
                "LocalKafkaException", "LocalKafkaTest");
    }
}
