package io.replaylab.harness.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import io.replaylab.barrier.CallOutcome;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.FailKind;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The experiments' judgements on recorded values, each branch by itself: what the scenarios on a
 * real broker reach (LabTest, NotRunTest, …) and what only a broken broker, cluster or client
 * could give. The stale-commit verdict has its own class (StaleCommitVerdictTest).
 */
class VerdictsTest {
    @TempDir
    Path dir;

    private int runs;

    private <T> T on(String experiment, Function<ExperimentRecorder, T> judge) {
        try (RunRecorder run = RunRecorder.start(dir.resolve("run-" + (++runs)), "run-verdicts")) {
            return judge.apply(run.experiment(experiment));
        }
    }

    /**
     * No handoff within the wait: FAIL, the fault not observed; NOT_RUN only when A's own timeouts asked for more than the lab's
     * longest wait and the wait was cut there (the lab's patience, not the consumer's doing). The margin: a minute at least.
     */
    @Test
    void noHandoffIsAFailUnlessTheConsumersTimeoutsAskedForMoreThanTheLabWaits() {
        Outcome inTime = on("rebalance", e -> Handoff.of(Duration.ofSeconds(66), "A's session timeout is 6 s", Duration.ofSeconds(6), false, e)
                .none("no handoff: t-0 stayed with A for PT1M6S"));
        assertThat(inTime.status()).isEqualTo(Status.FAIL);
        assertThat(inTime.failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        assertThat(inTime.reason()).isEqualTo("no handoff: t-0 stayed with A for PT1M6S");

        Outcome cut = on("rebalance", e -> Handoff.of(Handoff.LONGEST, "capped", Duration.ofMinutes(40), true, e).none("no handoff: t-0 stayed with A"));
        assertThat(cut.status()).isEqualTo(Status.NOT_RUN);
        assertThat(cut.reason()).isEqualTo("no handoff: t-0 stayed with A; A's timeouts ask for 2400 s before it is dropped, more than the lab waits "
                + "(600 s): give LabSettings.handoffTimeout to wait longer");

        Outcome asked = on("rebalance", e -> Handoff.of(Handoff.LONGEST, "asked for", Duration.ofMinutes(40), false, e).none("no handoff"));
        assertThat(asked.status()).as("a wait asked for is the user's: no excuse").isEqualTo(Status.FAIL);
        assertThat(io.replaylab.harness.lab.Timeouts.margin(Duration.ofSeconds(6))).isEqualTo(Duration.ofSeconds(60));
        assertThat(io.replaylab.harness.lab.Timeouts.margin(Duration.ofMinutes(8))).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void replayPassesOnlyWhenEveryOffsetWasCommittedAgainAndEveryRecordHandledAgain() {
        ExperimentRecorder[] seen = new ExperimentRecorder[1];
        Optional<Outcome> delivered = on("replay", e -> {
            seen[0] = e;
            return Verdicts.redelivery(e, Verdicts.REDELIVERED, 60, 60, 60, 60, "60 offsets committed again");
        });
        assertThat(delivered).isEmpty();
        assertThat(seen[0].checks()).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.PASS);
            assertThat(c.actual()).isEqualTo("60 offsets committed again (offsets 0 → end again)");
            assertThat(c.expected()).isEqualTo("60 redelivered");
        });
        assertThat(seen[0].finished()).isFalse();

        Outcome jumped = on("replay", e -> Verdicts.redelivery(e, Verdicts.REDELIVERED, 60, 60, 60, 0, "60 offsets committed again, 0 records handled").orElseThrow());
        assertThat(jumped.status()).isEqualTo(Status.FAIL);
        assertThat(jumped.failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        assertThat(jumped.reason()).isEqualTo("no redelivery: after the reset to earliest the subject handled 0 of 60 records again "
                + "(60 offsets committed again, 0 records handled)");
        assertThat(on("replay", e -> Verdicts.redelivery(e, Verdicts.REDELIVERED, 60, 60, 59, 60, "59")).orElseThrow().status()).as("one offset not committed again")
                .isEqualTo(Status.FAIL);
        assertThat(on("replay", e -> Verdicts.redelivery(e, Verdicts.REDELIVERED, 60, 60, 60, 59, "59")).orElseThrow().status()).as("one record not handled again")
                .isEqualTo(Status.FAIL);
        assertThat(on("replay", e -> Verdicts.redelivery(e, Verdicts.REDELIVERED, 0, 0, 0, 0, "0")).orElseThrow().reason()).as("an empty topic shows nothing")
                .startsWith("no redelivery: after the reset to earliest the subject handled 0 of 0");
        Status more = on("replay", e -> {
            Verdicts.redelivery(e, Verdicts.REDELIVERED, 60, 60, 61, 61, "61");
            return e.checks().get(0).status();
        });
        assertThat(more).as("more than the topic (a retry) is still every record").isEqualTo(Status.PASS);
    }

    @Test
    void aRebuildPassesWithEveryEffectAndFailsWithOneMissingOrNone() {
        Check all = Verdicts.rebuilt(60, "lab-x/g2", 60, 0);
        assertThat(all.status()).isEqualTo(Status.PASS);
        assertThat(all.expected()).isEqualTo("60 effects in lab-x/g2");
        assertThat(all.actual()).isEqualTo("60 effects, 0 missing");
        assertThat(Verdicts.rebuilt(60, "lab-x/g2", 59, 1).status()).isEqualTo(Status.FAIL);
        assertThat(Verdicts.rebuilt(60, "lab-x/g2", 0, 0).status()).as("an empty generation rebuilt nothing").isEqualTo(Status.FAIL);
    }

    @Test
    void theZombiesCommitOutcomeDecidesTheCheckAndAnUnseenOneIsNotRun() {
        Outcome none = on("eos", e -> Verdicts.zombieCommit(e, Optional.empty(), Duration.ofSeconds(60)).orElseThrow());
        assertThat(none.status()).isEqualTo(Status.NOT_RUN);
        assertThat(none.reason()).isEqualTo("A's commitTransaction outcome was not observed after release");

        ExperimentRecorder[] accepted = new ExperimentRecorder[1];
        Optional<Outcome> goesOn = on("eos", e -> {
            accepted[0] = e;
            return Verdicts.zombieCommit(e, Optional.of(CallOutcome.accepted("transaction-commit")), Duration.ofSeconds(60));
        });
        assertThat(goesOn).isEmpty();
        assertThat(accepted[0].checks()).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.FAIL);
            assertThat(c.actual()).isEqualTo("ACCEPTED after its partitions moved to B");
        });
        ExperimentRecorder[] rejected = new ExperimentRecorder[1];
        Optional<Outcome> fenced = on("eos", e -> {
            rejected[0] = e;
            return Verdicts.zombieCommit(e, Optional.of(CallOutcome.rejected("transaction-commit",
                    "org.apache.kafka.common.errors.ProducerFencedException", "fenced")), Duration.ofSeconds(60));
        });
        assertThat(fenced).isEmpty();
        assertThat(rejected[0].checks()).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.PASS);
            assertThat(c.actual()).isEqualTo("REJECTED: ProducerFencedException: fenced");
        });
        assertThat(rejected[0].finished()).isFalse();
    }

    private static DurabilityExperiment.Result result(DurabilityExperiment.Config c, List<String> lost, long duplicated) {
        return new DurabilityExperiment.Result(c, 300, 300, lost, duplicated, 300 - lost.size() + duplicated, null);
    }

    /** What a correct cluster never gives (the safe settings losing, the control losing nothing): the verdict's other branches, on values. */
    @Test
    void durabilityFailsOnASafeLossOrDuplicateIsNotRunWhenTheControlLostNothingAndPassesWhenOnlyTheControlLost() {
        DurabilityExperiment.Config safe = DurabilityExperiment.Config.SAFE;
        DurabilityExperiment.Config unsafe = DurabilityExperiment.Config.UNSAFE;

        Outcome lostSafe = on("durability", e -> Verdicts.durability(e, result(safe, List.of("id-7 (acknowledged at offset 7)"), 0), result(unsafe, List.of("id-1"), 0)));
        Outcome twiceSafe = on("durability", e -> Verdicts.durability(e, result(safe, List.of(), 2), result(unsafe, List.of(), 0)));
        Outcome controlHeld = on("durability", e -> Verdicts.durability(e, result(safe, List.of(), 0), result(unsafe, List.of(), 0)));
        ExperimentRecorder[] passed = new ExperimentRecorder[1];
        Outcome pass = on("durability", e -> {
            passed[0] = e;
            return Verdicts.durability(e, result(safe, List.of(), 0), result(unsafe, List.of("id-1", "id-2", "id-3", "id-4"), 0));
        });

        assertThat(lostSafe.status()).isEqualTo(Status.FAIL);
        assertThat(lostSafe.failKind()).isEqualTo(FailKind.CHECK_FAILED);
        assertThat(lostSafe.reason()).isEqualTo("safe lost 1 and duplicated 0 of 300 acknowledged record(s) under the leader crash");
        assertThat(twiceSafe.status()).as("a safe duplicate fails even when the control lost nothing").isEqualTo(Status.FAIL);
        assertThat(twiceSafe.reason()).isEqualTo("safe lost 0 and duplicated 2 of 300 acknowledged record(s) under the leader crash");
        assertThat(controlHeld.status()).isEqualTo(Status.NOT_RUN);
        assertThat(controlHeld.reason()).isEqualTo("the fault was not confirmed: the unsafe control lost none of its 300 acknowledged records, "
                + "so this schedule did not show a loss it could have caused");
        assertThat(pass.status()).isEqualTo(Status.PASS);
        assertThat(pass.confirmation()).isNotNull();
        assertThat(passed[0].checks()).extracting(Check::name, Check::actual, Check::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple("safe: every acknowledged record is in the log", "0 lost of 300", Status.PASS),
                org.assertj.core.groups.Tuple.tuple("safe: no acknowledged record twice in the log", "0 duplicated", Status.PASS));
        assertThat(passed[0].events()).anyMatch(ev -> ev.payload().summary().equals("the control bit: unsafe lost 4 lost of 300, e.g. id-1, id-2, id-3"));
    }

    private static Map<String, Outcome> cells(Object... cellAndOutcome) {
        Map<String, Outcome> m = new LinkedHashMap<>();
        for (int i = 0; i < cellAndOutcome.length; i += 2) {
            m.put((String) cellAndOutcome[i], (Outcome) cellAndOutcome[i + 1]);
        }
        return m;
    }

    @Test
    void aMatrixIsItsWorstCellNamedWithEveryCellsStatusAndPassesOnlyWhenEveryCellDoes() {
        Outcome pass = Outcome.notRun("x");
        ExperimentRecorder[] all = new ExperimentRecorder[1];
        Outcome allPass = on("schedules", e -> {
            all[0] = e;
            Outcome p = Outcome.judge(e.confirmFault("held", e.record(io.replaylab.evidence.Source.here("t"), new io.replaylab.evidence.Payload.Note("n"))), List.of(Check.pass("held", "R8", "held", "held")));
            return Verdicts.worstCell(e, cells("a:hold", p, "b:crash", p), "every cell's fault was confirmed");
        });
        assertThat(allPass.status()).isEqualTo(Status.PASS);
        assertThat(all[0].checks()).singleElement().satisfies(c -> {
            assertThat(c.name()).isEqualTo("every cell PASSes");
            assertThat(c.actual()).isEqualTo("2 cell(s): 2 PASS");
        });
        assertThat(allPass.confirmation().description()).isEqualTo("every cell's fault was confirmed: 2 cell(s): 2 PASS");

        Outcome checkFailed = Outcome.checkFailed("a second effect");
        Outcome notSeen = Outcome.faultNotObserved("no handoff");
        Outcome notRun = Outcome.notRun("never reached");
        Outcome failed = on("schedules", e -> Verdicts.worstCell(e, cells("a:hold", pass, "b:crash", checkFailed), "c"));
        assertThat(failed.status()).isEqualTo(Status.FAIL);
        assertThat(failed.failKind()).isEqualTo(FailKind.CHECK_FAILED);
        assertThat(failed.reason()).isEqualTo("cell b:crash FAILED (a second effect); 2 cell(s): 1 NOT_RUN (a:hold), 1 FAIL (b:crash)");
        assertThat(on("schedules", e -> Verdicts.worstCell(e, cells("a:hold", notSeen), "c")).failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        Outcome twoFailed = on("schedules", e -> Verdicts.worstCell(e, cells("a:hold", notSeen, "b:crash", checkFailed), "c"));
        assertThat(twoFailed.reason()).as("of equally bad cells, the first in the matrix's order is named").startsWith("cell a:hold FAILED (no handoff)");
        Outcome failOverNotRun = on("schedules", e -> Verdicts.worstCell(e, cells("a:hold", checkFailed, "b:freeze", notRun), "c"));
        assertThat(failOverNotRun.status()).as("a FAIL outranks a NOT_RUN").isEqualTo(Status.FAIL);
        assertThat(failOverNotRun.reason()).isEqualTo("cell a:hold FAILED (a second effect); 2 cell(s): 1 NOT_RUN (b:freeze), 1 FAIL (a:hold)");
        Outcome notRunOverPass = on("schedules", e -> {
            Outcome p = Outcome.judge(e.confirmFault("held", e.record(io.replaylab.evidence.Source.here("t"), new io.replaylab.evidence.Payload.Note("n"))), List.of(Check.pass("held", "R8", "held", "held")));
            return Verdicts.worstCell(e, cells("a:hold", p, "b:freeze", notRun), "c");
        });
        assertThat(notRunOverPass.status()).as("one cell that showed nothing: the matrix showed nothing for it").isEqualTo(Status.NOT_RUN);
        assertThat(notRunOverPass.reason()).isEqualTo("cell b:freeze NOT_RUN (never reached); 2 cell(s): 1 PASS, 1 NOT_RUN (b:freeze)");
    }

    @Test
    void duplicatePublishGoesOnOnlyWhenEveryReSentRecordWasCommittedAndHandled() {
        ExperimentRecorder[] seen = new ExperimentRecorder[1];
        Optional<Outcome> delivered = on("duplicate-publish", e -> {
            seen[0] = e;
            return Verdicts.republishDelivered(e, "t", 15, 15, 15, false, "15 of 15 re-sent offsets committed");
        });
        assertThat(delivered).isEmpty();
        assertThat(seen[0].checks()).singleElement().satisfies(c -> {
            assertThat(c.status()).isEqualTo(Status.PASS);
            assertThat(c.name()).isEqualTo("re-sent records delivered");
        });
        assertThat(seen[0].finished()).isFalse();

        Outcome nothing = on("duplicate-publish", e -> Verdicts.republishDelivered(e, "t", 0, 0, 0, false, "").orElseThrow());
        assertThat(nothing.status()).isEqualTo(Status.NOT_RUN);
        assertThat(nothing.reason()).isEqualTo("no record of t that the source mapping reads could be published again");

        Outcome blind = on("duplicate-publish", e -> Verdicts.republishDelivered(e, "t", 15, 15, 0, true, "15 of 15").orElseThrow());
        assertThat(blind.status()).as("committed, but the wire saw no Fetch at all: not shown either way").isEqualTo(Status.NOT_RUN);
        assertThat(blind.reason()).contains("committed past 15 re-sent record(s) but the subject never fetched t through the wire proxy")
                .contains("does the consumer take its broker from {bootstrap}?");

        Outcome skipped = on("duplicate-publish", e -> Verdicts.republishDelivered(e, "t", 15, 15, 3, false, "3 of them delivered").orElseThrow());
        assertThat(skipped.status()).isEqualTo(Status.FAIL);
        assertThat(skipped.failKind()).isEqualTo(FailKind.FAULT_NOT_OBSERVED);
        assertThat(skipped.reason()).isEqualTo("the re-sent records were not delivered: the subject handled 3 of 15 record(s) published again at "
                + "new offsets (3 of them delivered)");
        Optional<Outcome> offByOne = on("duplicate-publish", e -> Verdicts.republishDelivered(e, "t", 15, 14, 15, false, "14 of 15"));
        assertThat(offByOne).as("every one delivered, one re-sent offset not committed past (a consumer that commits each record's own offset)")
                .isEmpty();
        assertThat(on("duplicate-publish", e -> Verdicts.republishDelivered(e, "t", 15, 0, 0, true, "none")).orElseThrow().failKind())
                .as("off the wire, but nothing committed past them either: not delivered, the consumer's").isEqualTo(FailKind.FAULT_NOT_OBSERVED);
    }

    @Test
    void aDuplicatePublishThatLeftASecondEffectFailsNamingTheDoubledIds() {
        Outcome judged = on("duplicate-publish", e -> Outcome.judge(e.confirmFault("re-sent", e.record(io.replaylab.evidence.Source.here("t"),
                new io.replaylab.evidence.Payload.Note("n"))), List.of(Check.fail("no second effect", "R12", "0 duplicated", "2 duplicated"))));
        Outcome named = Verdicts.doubled(judged, new io.replaylab.oracle.Finding("duplicated", 7, List.of("p-1 x2", "p-5 x2")), 15);
        assertThat(named.status()).isEqualTo(Status.FAIL);
        assertThat(named.failKind()).isEqualTo(FailKind.CHECK_FAILED);
        assertThat(named.confirmation()).isEqualTo(judged.confirmation());
        assertThat(named.reason()).isEqualTo("check failed: no second effect (R12): 7 message id(s) have a second effect after 15 record(s) were "
                + "published again at new offsets (a message applied again at its new position: is the inbox keyed by partition and offset "
                + "rather than by the message's id?): p-1 x2, p-5 x2, …");

        assertThat(Verdicts.doubled(judged, new io.replaylab.oracle.Finding("duplicated", 2, List.of("p-1 x2", "p-5 x2")), 15).reason())
                .as("every id listed: no ellipsis").endsWith("?): p-1 x2, p-5 x2");

        io.replaylab.oracle.Finding none = new io.replaylab.oracle.Finding("duplicated", 0, List.of());
        assertThat(Verdicts.doubled(judged, none, 15)).as("a FAIL with no second effect keeps its own reason").isSameAs(judged);
        Outcome pass = on("duplicate-publish", e -> Outcome.judge(e.confirmFault("re-sent", e.record(io.replaylab.evidence.Source.here("t"),
                new io.replaylab.evidence.Payload.Note("n"))), List.of(Check.pass("no second effect", "R12", "0 duplicated", "0 duplicated"))));
        assertThat(Verdicts.doubled(pass, none, 15)).isSameAs(pass);
    }

    @Test
    void aFailOfTheOraclesChecksNamesTheLostAndDoubledIdsAndNothingElseIsTouched() {
        io.replaylab.oracle.Finding none = new io.replaylab.oracle.Finding("x", 0, List.of());
        io.replaylab.oracle.Comparison c = new io.replaylab.oracle.Comparison(Status.FAIL, "", null, "ns", 10, 9,
                new io.replaylab.oracle.Finding("missing", 7, List.of("p-1", "p-2", "p-3", "p-4", "p-5")),
                new io.replaylab.oracle.Finding("duplicated", 1, List.of("p-9")), none, none, none, none, null, null, null);
        Outcome failed = Outcome.checkFailed("check failed: no missing effect (R12)");

        assertThat(Verdicts.naming(failed, c).reason()).isEqualTo("check failed: no missing effect (R12): effect lost of 7 message id(s): "
                + "p-1, p-2, p-3, p-4, p-5, …; a second effect of 1 message id(s): p-9");
        assertThat(Verdicts.naming(failed, c).failKind()).isEqualTo(FailKind.CHECK_FAILED);
        Outcome notObserved = Outcome.faultNotObserved("no handoff");
        assertThat(Verdicts.naming(notObserved, c)).isSameAs(notObserved);
        Outcome notRun = Outcome.notRun("no broker");
        assertThat(Verdicts.naming(notRun, c)).isSameAs(notRun);
        io.replaylab.oracle.Comparison clean = new io.replaylab.oracle.Comparison(Status.PASS, "", null, "ns", 10, 10,
                none, none, none, none, none, none, null, null, null);
        assertThat(Verdicts.naming(failed, clean)).as("a FAIL of some other check names no ids").isSameAs(failed);
        io.replaylab.oracle.Comparison archived = new io.replaylab.oracle.Comparison(Status.FAIL, "", null, "ns", 10, 9, none, none, none, none, none,
                none, null, new io.replaylab.oracle.Finding("archived", 1, List.of("p-4 (p0@4) archived after 5 deliveries")), none);
        assertThat(Verdicts.naming(failed, archived).reason()).isEqualTo("check failed: no missing effect (R12): archived by the broker with nobody's "
                + "word for it, 1 message id(s): p-4 (p0@4) archived after 5 deliveries");
        io.replaylab.oracle.Comparison noneArchived = new io.replaylab.oracle.Comparison(Status.FAIL, "", null, "ns", 10, 9,
                new io.replaylab.oracle.Finding("missing", 1, List.of("p-1")), none, none, none, none, none, null, none, none);
        assertThat(Verdicts.naming(failed, noneArchived).reason()).as("a share group's findings with none in them say nothing")
                .isEqualTo("check failed: no missing effect (R12): effect lost of 1 message id(s): p-1");
    }
}
