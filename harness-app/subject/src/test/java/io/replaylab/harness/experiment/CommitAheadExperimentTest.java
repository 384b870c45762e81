package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.failed;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.PythonConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live frontier check on consumers it was not written for: the handbook's Python consumer as it
 * is (commits after its transaction), its twin that commits first, and the JVM reference. Its timer-committing
 * twins (librdkafka's auto-commit, and a timer over offsets stored after the transaction) are in
 * {@link HandbookConsumerTest}, beside its other timer cells.
 */
@LocalKafkaTest
class CommitAheadExperimentTest {
    @TempDir
    Path dir;

    private LabSettings.Builder settings(LocalKafka kafka, int records) {
        return Runs.on(kafka, dir.resolve("runs")).records(records)
                .experiments(Experiments.commitAhead());
    }

    /** The handbook consumer's settings: its shape written by the lab's producer, its ledger read by its query. */
    private LabSettings.Builder handbookSettings(LocalKafka kafka, int records) {
        return settings(kafka, records).targetQuery(PythonConsumer.HANDBOOK_TARGET_QUERY)
                .source(Handbook.shaped());
    }

    private ExperimentEvidence run(LabSettings.Builder b) throws Exception {
        return experiment(Lab.run(b.build(), null).evidence(), CommitAheadExperiment.NAME);
    }

    @Test
    void aConsumerThatCommitsBeforeItsTransactionIsKilledAtSuchACommitAndFails(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(handbookSettings(kafka, 40).subject(Handbook.consumer(dir).env("COMMIT_FIRST", "1")));

        failed(x).contains("no missing effect").contains("no commit ahead of the database (R11)").contains("effect lost of");
        Runs.failedCheck(x, CommitAheadExperiment.NO_COMMIT_AHEAD).matches("commit-ahead-A sent a commit of \\S+-\\d at \\d+ while [1-9]\\d* "
                + "record\\(s\\) it covered had no effect in the target yet: \\[.+\\]: a crash there loses them");
        assertThat(x.events().stream().map(ev -> ev.payload().toString())).anyMatch(p -> p.contains("killed at that commit"));
    }

    /**
     * A consumer whose statements commit themselves never reaches a DB commit to be held at; it is killed at its first commit ahead
     * while the lab still waits for that point, and the kill is the finding (NOT_RUN before: "exited on its own with code 137").
     */
    @Test
    void aConsumerKilledAtACommitAheadBeforeItsDbCommitPointFails(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(settings(kafka, 40).subject(Subject.command(ForeignSubjectMain.template()).env("COMMIT_FIRST", "1"))
                .targetQuery(ForeignSubjectMain.TARGET_QUERY));

        failed(x).contains("effect lost of");
        assertThat(x.events().stream().map(ev -> ev.payload().toString())).anyMatch(p -> p.contains("killed at that commit"))
                .noneMatch(p -> p.contains("exited on its own"));
    }

    @Test
    void everyExperimentOnTheRunsBrokerListsCommitsAheadOfTheDatabaseWithoutJudgingThem(LocalKafka kafka) throws Exception {
        ExperimentEvidence ahead = experiment(Lab.run(handbookSettings(kafka, 20).experiments(Experiments.replay())
                .subject(Handbook.consumer(dir).env("COMMIT_FIRST", "1")).build(), null).evidence(), "replay");
        ExperimentEvidence correct = experiment(Lab.run(handbookSettings(kafka, 20).experiments(Experiments.replay())
                .subject(Handbook.consumer(dir)).build(), null).evidence(), "replay");

        assertThat(ahead.events().stream().map(ev -> ev.payload().toString())).filteredOn(p -> p.contains("commit ahead of the database: replay-"))
                .hasSizeBetween(1, FrontierCheck.LISTED);
        assertThat(ahead.outcome().status()).as("listed, not judged: replay's own verdict").isEqualTo(Status.PASS);
        assertThat(correct.outcome().status()).isEqualTo(Status.PASS);
        assertThat(correct.events().stream().map(ev -> ev.payload().toString())).noneMatch(p -> p.contains("commit ahead of the database"));
    }

    @Test
    void theHandbookConsumerThatCommitsAfterItsTransactionPassesWithEveryCommitChecked(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(handbookSettings(kafka, 40).subject(Handbook.consumer(dir)));

        passed(x);
        assertThat(x.events().stream().map(ev -> ev.payload().summary())).noneMatch(p -> p.contains("commit ahead of the database"))
                .anyMatch(p -> p.contains("A released after") && p.contains("no commit of A's covered the held record"));
    }

    @Test
    void theJvmReferenceSubjectPasses(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(settings(kafka, 40));

        passed(x);
        assertThat(x.outcome().reason()).contains("none ahead");
        assertThat(Runs.check(x, CommitAheadExperiment.NO_COMMIT_AHEAD).actual()).matches("[1-9]\\d* commit\\(s\\) seen, [1-9]\\d* covered records, none ahead");
    }

    @Test
    void aTargetOutsideWalModeIsNotReadWhileTheSubjectWritesAndTheExperimentIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(handbookSettings(kafka, 20).subject(Handbook.consumer(dir).env("JOURNAL_MODE", "DELETE")));

        wasNotRun(x).contains("journal mode 'delete', not WAL").contains("can block the subject's writes");
    }

    @Test
    void tooFewCommitsToJudgeAreNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(handbookSettings(kafka, 2).subject(Handbook.consumer(dir)));

        wasNotRun(x).contains("commit(s) covering a record were checked (3 needed)");
    }

    @Test
    void withoutTheWireProxyThereIsNoLiveCheckAndTheExperimentIsNotRun(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = run(settings(kafka, 20).witness(false));

        wasNotRun(x).contains("no wire proxy");
    }
}
