package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.evidence.junit.PublicTypes;
import org.junit.jupiter.api.Test;

/**
 * Pins evidence-core's public surface: a type becomes public on purpose (this list changes with it), never
 * by accident. Everything not listed stays package-private.
 */
class EvidenceApiTest {
    @Test
    void theOnlyPublicTypesAreTheApi() {
        assertThat(PublicTypes.simpleNames("io.replaylab.evidence"))
                .containsExactlyInAnyOrder(
                "Artifact", "AtomicFiles", "Check", "Event", "Evidence", "EvidenceFormatException",
                "ExperimentEvidence", "ExperimentRecorder", "FailKind", "FaultConfirmation", "Json", "Setting", "BadInputException",
                "LogTail", "MetricValue", "Outcome", "Payload", "Report", "ReportSection", "RunSection", "JunitXml", "Reports", "RunEvidence",
                "RunRecorder", "SavedProtocol", "Source", "Status", "Resource", "RunJournal", "RecordEvidence", "PayloadTypes", "TestResults", "Prerequisite", "PublicTypes", "ChildProcess", "ChildProcessException", "Platform", "Poll");
    }
}
