package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.evidence.junit.PublicTypes;
import org.junit.jupiter.api.Test;

/**
 * Pins oracle's public surface: a type becomes public on purpose (this list changes with it), never
 * by accident. Everything not listed stays package-private.
 */
class OracleApiTest {
    @Test
    void theOnlyPublicTypesAreTheApi() {
        assertThat(PublicTypes.simpleNames("io.replaylab.oracle"))
                .containsExactlyInAnyOrder(
                "ArchivedRecord", "Comparison", "Cut", "Finding", "Oracle", "OracleReadException", "RecordParser",
                "RecordParsers", "SnapshotDiff", "SourceIndex", "SourceMapping", "SourceSpec", "Target", "TargetEvent", "TargetSnapshot", "TargetSpec", "TopicOracle");
    }
}
