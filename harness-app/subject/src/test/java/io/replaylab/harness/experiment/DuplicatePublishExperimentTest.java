package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static io.replaylab.harness.experiment.Runs.run;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.check;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.RecordSource;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.PythonConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * duplicate-publish on a real broker: every 4th record published again, raw, at a new offset (as a
 * producer's retry writes it), then one effect per message id. The handbook consumer (Python on
 * librdkafka, fed by its own producer) passes with its inbox keyed by payment id and fails keyed by
 * partition and offset; the reference subject passes.
 */
@LocalKafkaTest
class DuplicatePublishExperimentTest {
    @TempDir
    Path dir;

    /** The handbook's own producer, in its own shape: identity in the key, amount at /amountCents. */
    private LabSettings.Builder handbookLab(LocalKafka kafka, Subject consumer) {
        RecordSource theirs = Handbook.producer(dir);
        return on(kafka, dir.resolve("runs")).targetQuery(PythonConsumer.HANDBOOK_TARGET_QUERY).experiments(Experiments.duplicatePublish())
                .subject(consumer).source(theirs);
    }

    /** The ids the experiment published again, from its artifact. */
    private static List<String> republishedIds(Lab.LabResult r, ExperimentEvidence x) throws Exception {
        String file = x.artifacts().stream().map(a -> a.path()).filter(p -> p.endsWith("-republished.json")).findFirst().orElseThrow();
        List<String> ids = new ArrayList<>();
        for (JsonNode n : new ObjectMapper().readTree(r.runDir().resolve(file).toFile())) {
            assertThat(n.get("newOffset").asLong()).as("a new offset, after the original").isGreaterThan(n.get("offset").asLong());
            ids.add(n.get("id").asText());
        }
        return ids;
    }

    @Test
    void aHandbookConsumerWhoseInboxIsKeyedByPositionFailsNamingTheReSentIdsItAppliedTwice(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(handbookLab(kafka, Handbook.consumer(dir).env("INBOX_KEY", "position")).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "duplicate-publish");
        failedItsChecks(x);
        List<String> ids = republishedIds(r, x);
        assertThat(ids).as("every 4th of 60 records").hasSize(15);
        assertThat(x.outcome().reason()).startsWith("check failed: no second effect (R12): 15 message id(s) have a second effect after 15 record(s) "
                + "were published again at new offsets").contains(ids.stream().sorted().findFirst().orElseThrow() + " x2");
        assertThat(x.checks()).filteredOn(c -> c.name().equals("re-sent records delivered")).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.PASS);
            assertThat(c.actual()).as("confirmed on the wire: the Python consumer keeps no processing log")
                    .isEqualTo("15 of 15 re-sent offsets committed, 15 of them delivered to A by the broker's Fetch answers on the wire");
        });
    }

    @Test
    void theSameConsumerWithItsInboxKeyedByPaymentIdPasses(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(handbookLab(kafka, Handbook.consumer(dir)), "duplicate-publish");
        passed(x);
        assertThat(x.events().stream().map(e -> e.payload().toString())).anyMatch(p -> p.contains("published 15 record(s) again at new offsets")
                && p.contains("a plain re-send of the raw records") && p.contains("not a lost Produce answer on the wire"));
        assertThat(x.events().stream().map(e -> e.payload().toString())).as("the oracle saw each re-sent id at two offsets, and counted it once")
                .anyMatch(p -> p.contains("OracleVerdict") && p.contains("source-duplicates=15"));
    }

    /**
     * A Fetch that waits long at the broker (librdkafka's fetch.wait.max.ms, 5 s here) may still be waiting when the records are
     * published again, and its answer delivers them: the wire reads it, so the consumer's own setting does not cost it the proof.
     */
    @Test
    void theSameConsumerWithALongFetchWaitIsConfirmedOnTheWireAndPasses(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(handbookLab(kafka, Handbook.consumer(dir).env("FETCH_WAIT_MS", "5000")), "duplicate-publish");
        passed(x);
        assertThat(check(x, "re-sent records delivered").actual())
                .isEqualTo("15 of 15 re-sent offsets committed, 15 of them delivered to A by the broker's Fetch answers on the wire");
    }

    @Test
    void theReferenceSubjectPassesConfirmedByItsProcessingLog(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir.resolve("runs")).experiments(Experiments.duplicatePublish()).build(), null);

        ExperimentEvidence x = experiment(r.evidence(), "duplicate-publish");
        passed(x);
        assertThat(republishedIds(r, x)).hasSize(15);
        assertThat(x.checks()).filteredOn(c -> c.name().equals("re-sent records delivered")).singleElement()
                .satisfies(c -> assertThat(c.actual()).startsWith("15 of 15 re-sent offsets committed, 15 records handled after the re-send in the "
                        + "subject's log").contains("duplicate=15"));
    }

    /** Each NOT_RUN of a group that did not drain, reached by a reference twin that stops reading at that moment. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "stall              | the subject did not consume the topic to the end: not done within 25 s (the lab's drain timeout, LabSettings.drainTimeout: the run has no wire witness to show the consumer's own timeouts) (see logs/duplicate-publish-A.err)",
        "stall-on-duplicate | the subject did not consume the 15 re-sent record(s): not done within 25 s (the lab's drain timeout, LabSettings.drainTimeout: the run has no wire witness to show the consumer's own timeouts) (see logs/duplicate-publish-A.err)"})
    void aSubjectThatStopsReadingIsNotRunNamingWhichDrain(String defect, String reason, LocalKafka kafka) throws Exception {
        // 25 s: the first drain (a JVM start and 60 records) must fit in it on a loaded 2-core machine (NotRunTest)
        ExperimentEvidence x = run(on(kafka, dir.resolve("runs")).experiments(Experiments.duplicatePublish())
                .subject(Subject.command(BrokenSubjectMain.template(defect))).drainTimeout(Duration.ofSeconds(25)).stopGrace(Duration.ofSeconds(3)).witness(false)
                , "duplicate-publish");
        wasNotRun(x).isEqualTo(reason);
    }
}
