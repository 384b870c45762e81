package io.replaylab.harness.experiment;

import static io.replaylab.harness.experiment.Runs.experiment;
import static io.replaylab.harness.experiment.Runs.on;
import static io.replaylab.harness.experiment.Runs.passed;
import static io.replaylab.harness.experiment.Runs.wasNotRun;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import io.replaylab.kafka.testing.PythonConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer that keeps its positions in its own database and never commits an offset to Kafka (kafka-ops'
 * {@code db_offsets_consumer.py}): correct, and not what the lab was written around. It used to stall every wait that read
 * progress from committed offsets: replay NOT_RUN after 46 s ("did not consume the topic to the end ... every effect applied"),
 * every point that waits for an offset commit NOT_RUN after the 60 s barrier timeout, the DB cells too (their warm-up waited for
 * one), and a stage followed by committed offsets alone (rebuild's generations, a re-send, a wire fault's first drain) FAILed as a
 * stall. Now a drain ends when every effect is applied, the DB cells run, rebuild follows each generation by its own effects and
 * passes, and what cannot apply says why at once.
 */
@LocalKafkaTest
class DbOffsetsConsumerTest {
    /** The consumers commit no offset on any timer: a short interval keeps each wait for one short. */
    private static final Duration ONE_TICK = Duration.ofSeconds(1);
    private static final String NOTHING_TO_HOLD = "so there is no offset commit to hold";

    @TempDir
    Path dir;

    @Test
    void aConsumerThatKeepsItsOffsetsInItsDatabaseIsJudgedAtItsDbCommitAndTheOffsetExperimentsSayWhyTheyCannotApply(LocalKafka kafka)
            throws Exception {
        String template = "'" + PythonConsumer.python() + "' '" + PythonConsumer.copy(dir, "db_offsets_consumer.py") + "' --bootstrap {bootstrap} "
                + "--topic {topic} --group {group} --db {db} --namespace {namespace} --instance {instance}";
        Lab.LabResult r = Lab.run(on(kafka, dir.resolve("runs")).records(30).subject(Subject.command(template)).commitInterval(ONE_TICK)
                .targetQuery("SELECT message_id, amount FROM dbo_ledger WHERE ns = {namespace}")
                .experiments(Experiments.replay(), Experiments.rebalance(), Experiments.commitAhead(), Experiments.rebuild(),
                        Experiments.duplicatePublish(),
                        Experiments.schedules(List.of(ScheduleCell.parse("before-db-commit:hold"), ScheduleCell.parse("before-offset-commit:hold"))),
                        Experiments.wireFaults(List.of(WireFaultCell.parse("offset-commit:lost-answer"))))
                .build(), null);

        wasNotRun(experiment(r.evidence(), "replay")).contains("applied every record's effect but committed no offset")
                .contains("so a reset of the group's offsets, the lab's replay, does not drive it");
        wasNotRun(experiment(r.evidence(), "rebalance")).matches("the injection point cannot be reached: A applied the effect of every record "
                + "on \\S+ \\(30\\) and sent no OffsetCommit of group \\S+ in the 2 s after: .*so there is no offset commit to hold");
        wasNotRun(experiment(r.evidence(), "commit-ahead")).startsWith("the group got no offset commit at all");
        // each generation followed by its own effects (it was NOT_RUN: "the group got no offset commit")
        passed(experiment(r.evidence(), "rebuild"));
        // a stage followed by the group's offsets alone: not a stall (it was FAIL), the lab cannot follow it
        wasNotRun(experiment(r.evidence(), "duplicate-publish")).startsWith("the subject did not consume the ").contains(" re-sent record(s): the "
                + "group got no offset commit in the 4 s after its consumer joined: the lab follows this stage by the group's committed offsets");
        passedAfterAWarmUpWithoutACommit(experiment(r.evidence(), "schedules.before-db-commit.hold"));
        wasNotRun(experiment(r.evidence(), "schedules.before-offset-commit.hold"))
                .startsWith("the injection point before-offset-commit cannot be reached: A applied the effect").endsWith(NOTHING_TO_HOLD);
        wasNotRun(experiment(r.evidence(), "wire-faults.offset-commit.lost-answer")).startsWith("the fault cannot fire: A applied the effect of "
                + "every record").endsWith("so there is no OffsetCommit for it");
    }

    @Test
    void aJavaConsumerThatKeepsItsOffsetsInItsDatabaseIsHeldAtItsJdbcCommitAndItsOffsetPointsSayWhyNot(LocalKafka kafka) throws Exception {
        Lab.LabResult r = Lab.run(on(kafka, dir.resolve("java")).records(30).subject(DbOffsetsMain.subject()).commitInterval(ONE_TICK).targetQuery(DbOffsetsMain.TARGET_QUERY)
                .experiments(Experiments.rebalance(), Experiments.schedules(List.of(ScheduleCell.parse("before-db-commit:hold"),
                        ScheduleCell.parse("after-offset-commit:hold"))))
                .build(), null);

        wasNotRun(experiment(r.evidence(), "rebalance")).startsWith("the injection point cannot be reached: A applied the effect of every record")
                .endsWith(NOTHING_TO_HOLD);
        passedAfterAWarmUpWithoutACommit(experiment(r.evidence(), "schedules.before-db-commit.hold"));
        wasNotRun(experiment(r.evidence(), "schedules.after-offset-commit.hold")).startsWith("A applied the effect of every record").endsWith(NOTHING_TO_HOLD);
    }

    /**
     * The same consumer committing each next offset to Kafka too (for its lag to show), still reading from its database's
     * positions: after the reset it fetches only from them, above the reset offsets, and commits nothing again. Its replay FAILs
     * "no redelivery" (a reset of the group's offsets does not replay it) once its offsets stood still for a commit interval,
     * not after its timeouts as a stall ("records left unread past its committed offsets").
     */
    @Test
    void aConsumerThatAlsoCommitsButReadsFromItsDatabasesPositionsSkipsTheReplay(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = Runs.run(on(kafka, dir.resolve("hybrid")).records(30).subject(DbOffsetsMain.subject().env("ALSO_COMMITS", "1"))
                .commitInterval(ONE_TICK).targetQuery(DbOffsetsMain.TARGET_QUERY).experiments(Experiments.replay()), "replay");

        Runs.failed(x).startsWith("no redelivery: after the reset to earliest the subject handled 0 of 30 records again (0 offsets committed "
                + "again, 0 records delivered again from the reset offsets on the wire (lowest fetch offsets {");
        assertThat(x.outcome().failKind()).isEqualTo(io.replaylab.evidence.FailKind.FAULT_NOT_OBSERVED);
        assertThat(x.events()).extracting(ev -> ev.payload().summary()).anyMatch(t -> t.matches(".*: it fetched \\S+ only from \\{.*\\}, above "
                + "where the replay began \\(\\{0=0, 1=0, 2=0\\}\\): it takes its positions from elsewhere than the group's offsets, its "
                + "committed offsets then still at \\{0=0 of \\d+, 1=0 of \\d+, 2=0 of \\d+\\} for 2 s: done short of the end"));
    }

    /**
     * The same consumer as Kafka's standalone consumer (assign and seek to its database's positions; it never joins and never
     * commits): a heartbeat cell says at its first fetch that the fault cannot fire (it waited the 60 s barrier timeout for a join).
     */
    @Test
    void aStandaloneConsumerWithItsOffsetsInItsDatabaseIsNotRunAtAHeartbeatCellOnceItFetchesWithoutJoining(LocalKafka kafka) throws Exception {
        ExperimentEvidence x = Runs.run(on(kafka, dir.resolve("standalone")).records(30).subject(DbOffsetsMain.subject().env("ASSIGNS", "1"))
                .commitInterval(ONE_TICK).targetQuery(DbOffsetsMain.TARGET_QUERY)
                .experiments(Experiments.wireFaults(List.of(WireFaultCell.parse("heartbeat:error=REBALANCE_IN_PROGRESS")))),
                "wire-faults.heartbeat.error-REBALANCE_IN_PROGRESS");

        wasNotRun(x).matches("the fault cannot fire: A fetched \\S+ from \\{[0-9=, ]+\\} without joining group \\S+: it assigns its "
                + "partitions itself \\(assign, not subscribe: Kafka's standalone consumer\\), and sends no Heartbeat");
    }

    /** The DB cell ran: its warm-up ended on A's applied effects, not on an offset commit that never comes. */
    private static void passedAfterAWarmUpWithoutACommit(ExperimentEvidence cell) {
        passed(cell);
        assertThat(cell.events()).extracting(ev -> ev.payload()).filteredOn(Payload.Note.class::isInstance)
                .anyMatch(p -> p.summary().startsWith("the warm-up: A applied the effect of every record"));
    }
}
