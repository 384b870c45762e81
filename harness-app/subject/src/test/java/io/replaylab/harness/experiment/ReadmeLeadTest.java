package io.replaylab.harness.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.subject.ReferenceSubject;
import io.replaylab.kafka.broker.LocalKafka;
import org.junit.jupiter.api.Test;

/** harness-app/README.md's first snippet, line for line (ReadmeSnippetTest holds them together): the lab as a library runs. */
class ReadmeLeadTest {
    @Test
    void theLabAsALibraryRunsReplayAndRebalanceOnTheReferenceSubjectToAPass() throws Exception {
        try (LocalKafka kafka = LocalKafka.create().start()) {
            Lab.LabResult r = Lab.run(LabSettings.custom()
                    .subject(ReferenceSubject.consume())             // or Subject.command("python3 consumer.py {bootstrap} {topic} {group} …")
                    .bootstrap(kafka.bootstrapServers())
                    .experiments(Experiments.replay(), Experiments.rebalance())
                    .workDir(Path.of("target/lab"))
                    .build(), null);                                 // null: no progress lines
            assertEquals(Status.PASS, r.evidence().outcome().status()); // or FAIL, or NOT_RUN: each with its reason
            assertTrue(Files.exists(r.report()));                    // the run's HTML report, beside evidence.json
        }
    }
}
