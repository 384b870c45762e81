package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.faultNotObserved;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.check;
import static io.replaylab.harness.experiment.Runs.failedItsChecks;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import io.replaylab.harness.subject.ReferenceSubject;
import io.replaylab.harness.lab.Subject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.subject.BrokenTransformMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/** The eos experiment on real processes: the reference transform subject PASSes, and every way it can end otherwise is reached. */
@LocalKafkaTest
// two at a time (the module's surefire settings): mostly waits on a transform that never commits and on handoffs
@Execution(ExecutionMode.CONCURRENT)
class EosExperimentTest {
    @TempDir
    Path dir;

    private LabSettings.Builder eos(LocalKafka kafka) {
        return Runs.on(kafka, dir).records(40).experiments(Experiments.eos());
    }

    private static ExperimentEvidence only(Lab.LabResult r) {
        assertThat(r.evidence().experiments()).hasSize(1);
        return r.evidence().experiments().get(0);
    }

    /** Instance eos-B of the reference transform subject is replaced by {@code bCommand}; A is the reference one. */
    private static String withB(String bCommand) {
        String reference = ReferenceSubject.transform().template();
        return "sh -c 'if [ \"$0\" = eos-B ]; then exec " + bCommand + "; fi; exec \"$@\"' {instance} " + reference;
    }

    @ParameterizedTest(name = "{0} group protocol")
    @EnumSource(GroupProtocol.class)
    void theZombiesTransactionIsAbortedItsCommitFencedAndEveryInputIsInTheOutputOnce(GroupProtocol protocol, LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(eos(kafka).groupProtocol(protocol).build(), null);

        ExperimentEvidence x = only(r);
        passed(x);
        assertThat(check(x, "held inside an open transaction, before its commit").status()).isEqualTo(Status.PASS);
        assertThat(check(x, "the zombie's commit fenced").actual()).startsWith("REJECTED: ");
        assertThat(check(x, "the zombie's output aborted").actual()).endsWith("uncommitted, 1 committed");
        assertThat(x.events()).extracting(e -> e.type()).contains("barrier-armed", "barrier-reached", "barrier-released", "commit-rejected", "oracle-verdict");
        assertThat(x.limitations()).contains(Limitations.EOS_ONE_ZOMBIE_ONE_BROKER);
        assertThat(x.environment().get("barrier")).isEqualTo("debugger at org.apache.kafka.clients.producer.KafkaProducer#commitTransaction (thread hold)");
        assertThat(Files.readString(r.report())).contains("the zombie's commit fenced");
    }

    @Test
    void aTransformThatCommitsItsOffsetsOutsideTheTransactionFailsWithDuplicates(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(eos(kafka).transformSubject(Subject.command(BrokenTransformMain.template("offsets-outside"))).build(), null);

        ExperimentEvidence x = only(r);
        failedItsChecks(x);
        assertThat(check(x, "the zombie's commit fenced").status()).isEqualTo(Status.FAIL);
        assertThat(check(x, "the zombie's commit fenced").actual()).isEqualTo("ACCEPTED after its partitions moved to B");
        assertThat(check(x, "the zombie's output aborted").actual()).endsWith("2 committed");
        assertThat(x.outcome().reason()).contains("no second effect (R12)");
    }

    @Test
    void aProgramThatNeverCommitsATransactionNeverReachesThePoint(LocalKafka kafka) throws Exception {
        String neverCommits = Runs.pollsOnly();
        Lab.LabResult r = Lab.run(eos(kafka).transformSubject(Subject.command(neverCommits)).barrierTimeout(Duration.ofSeconds(8)).build(), null);

        ExperimentEvidence x = only(r);
        wasNotRun(x).isEqualTo("the injection point was never reached: A did not call "
                + "org.apache.kafka.clients.producer.KafkaProducer#commitTransaction within PT8S (is it a transactional producer?)");
    }

    @Test
    void aTransactionWithNoOutputDoesNotConfirmThePoint(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(eos(kafka).transformSubject(Subject.command(BrokenTransformMain.template("empty-transaction"))).build(), null);

        ExperimentEvidence x = only(r);
        wasNotRun(x).startsWith("the injection point was not confirmed: A is at "
                + "org.apache.kafka.clients.producer.KafkaProducer#commitTransaction but the output topic ").endsWith(
                "holds no record of an open transaction (does it write its output inside the transaction?)");
    }

    @Test
    void anOutputThatNamesNoInputDoesNotConfirmThePoint(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(eos(kafka).transformSubject(Subject.command(BrokenTransformMain.template("renamed-output"))).build(), null);

        ExperimentEvidence x = only(r);
        wasNotRun(x).startsWith("the injection point was not confirmed: A's open transaction holds ")
                .contains("-copy, which is at [] in ").endsWith(" instead of exactly one input record");
    }

    @Test
    void aSecondInstanceThatNeverJoinsIsNoHandoff(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(eos(kafka).transformSubject(Subject.command(withB("sleep 600"))).handoffTimeout(Duration.ofSeconds(10)).build(), null);

        ExperimentEvidence x = only(r);
        faultNotObserved(x).startsWith("no handoff: ").endsWith("stayed with A for PT10S");
    }

    @Test
    void aSecondInstanceThatJoinsButNeverCommitsLeavesTheFaultUnobserved(LocalKafka kafka) throws Exception {
        String pollsOnly = Runs.pollsOnly().replace("'", "\"");
        // the handoff comes first, within the same timeout: B's JVM start, its join and A's removal took over 20 s in a loaded
        // fresh-clone run, and over 40 s in a clean-machine CI run (four test JVMs with their subjects on two cores)
        Lab.LabResult r = Lab.run(eos(kafka).transformSubject(Subject.command(withB(pollsOnly))).handoffTimeout(Duration.ofSeconds(60)).build(), null);

        ExperimentEvidence x = only(r);
        faultNotObserved(x).startsWith("B never committed past A's input ").endsWith("within PT1M");
    }

    @Test
    void aGroupThatDoesNotDrainAfterTheRecoveryIsNotRun(LocalKafka kafka) throws Exception {
        // 3000 transactions cannot finish in 2 s: the verdict waits for a group that is done
        Lab.LabResult r = Lab.run(eos(kafka).records(3000).drainTimeout(Duration.ofSeconds(2)).witness(false).build(), null);

        ExperimentEvidence x = only(r);
        wasNotRun(x).isEqualTo("the group did not drain after the recovery: not done within 2 s (the lab's drain timeout, LabSettings.drainTimeout: the run has no wire witness to show the consumer's own timeouts)");
    }

    @Test
    void withoutATransformSubjectEosIsNotRunNamingWhatToPass(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(LabSettings.custom().subject(ReferenceSubject.consume()).bootstrap(kafka.bootstrapServers()).workDir(dir)
                .experiments(Experiments.eos()).build(), null);

        ExperimentEvidence x = only(r);
        wasNotRun(x).contains("no consume-transform-produce subject to test").contains("LabSettings.transformSubject");
    }
}
