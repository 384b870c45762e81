package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.wire.WitnessedCommit;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.FailKind;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.Status;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Finding;

/**
 * The experiments' judgements, each a function of what was recorded and observed (no broker, no
 * process, no clock), so that each branch has a fast test of its own ({@code VerdictsTest},
 * {@code StaleCommitVerdictTest}) and mutation testing reaches them in seconds (README: mutation
 * testing). The experiments gather the facts and call these.
 */
final class Verdicts {
    /** Replay's check that every record was delivered again after the reset. */
    static final String REDELIVERED = "records delivered again";
    /** The redelivery read from committed offsets alone (no processing log, no wire witness): a consumer that jumps to the end passes it. */
    static final String RECOMMITTED = "offsets committed again";
    /** Rebalance's check that the record A and B both handled has one effect. */
    static final String COLLISION = "no second effect from the old/new collision";

    private Verdicts() {
    }

    /** Who refused A's stale commit, in a few words: the broker (with its error) or the client before sending, or not known and why. */
    static String rejecter(CallOutcome o, RebalanceExperiment.StaleCommitOnWire wire) {
        String said = o.errorName() == null ? "" : o.errorName();
        return switch (wire.seen()) {
            case NO_WITNESS -> "rejected (" + said + "; the run had no wire witness: by the broker or by the client is not known)";
            case NOT_WITNESSED -> "rejected (" + said + "; not witnessed: A never talked through the wire proxy)";
            case WITNESSED -> wire.rejected().map(c -> "rejected by the broker: " + wire.answer(c))
                    .orElse(wire.commits().isEmpty() ? "refused by the client before sending (" + said + ")"
                            : "rejected (" + said + "; its OffsetCommit was on the wire, the broker's answer was not)");
        };
    }

    /** What the wire showed, for the check: which commit the broker answered, or that none of A's went out. */
    private static String wireDetail(RebalanceExperiment.StaleCommitOnWire wire) {
        if (wire.seen() != RebalanceExperiment.StaleCommitOnWire.Seen.WITNESSED) {
            return "";
        }
        return wire.rejected().map(c -> " to " + RebalanceExperiment.StaleCommitOnWire.named(c))
                .orElse(wire.commits().isEmpty() ? ": no OffsetCommit from A (" + wire.heldAs() + ") after its hold" : "");
    }

    /**
     * How long a released A's call may take to return: a minute (the Java client's {@code default.api.timeout.ms}), or its
     * group's {@link io.replaylab.harness.lab.LabKafka#patience} when its timeouts say longer.
     */
    static Duration callWait(io.replaylab.harness.lab.LabContext ctx, String group) {
        Duration window = ctx.kafka().patience(group).judgedOr(Duration.ofSeconds(60));
        return window.compareTo(Duration.ofSeconds(60)) > 0 ? window : Duration.ofSeconds(60);
    }

    /**
     * R9 on A's released commit, as observed by the barrier and the wire witness: the check, and the
     * experiment's end unless the commit was refused (then the experiment goes on). Not observed or
     * never delivered: NOT_RUN (nothing was shown either way). ACCEPTED, by the client or by the
     * broker on the wire (even when the client reported an error): FAIL. A correct broker refuses it
     * (old generation or member epoch; Kafka 4.3+ accepts an older member epoch only when every
     * partition of the commit is still the member's, KIP-1251, never the one that moved), so only a
     * broken broker, coordinator or client can produce that, which is why no scenario against Kafka
     * 4.1 or 4.4 reaches it and a unit test proves the branch. Only the moved partition's answer is judged.
     */
    static Optional<Outcome> staleCommit(ExperimentRecorder e, Optional<CallOutcome> outcome, Duration waited, RebalanceExperiment.StaleCommitOnWire wire,
            String notHeldWhole) {
        if (outcome.isEmpty()) {
            e.check(Check.notRun("stale commit rejected", "R9", "REJECTED", "the commit's outcome was not observed within " + waited.toSeconds() + " s"));
            return Optional.of(e.finish(Outcome.notRun("A's commit outcome was not observed after release")));
        }
        CallOutcome o = outcome.get();
        Optional<WitnessedCommit> storedOnWire = wire.accepted();
        if (storedOnWire.isPresent()) {
            WitnessedCommit c = storedOnWire.get();
            e.check(Check.fail("stale commit rejected", "R9", "REJECTED", "ACCEPTED by the broker on the wire (" + c.summary() + "); the client reported "
                    + o.verdict() + (o.errorName() == null ? "" : " " + o.errorName())));
            return Optional.of(e.finish(Outcome.faultNotObserved("the stale commit was ACCEPTED by the broker after the partition moved to B "
                    + "(" + RebalanceExperiment.StaleCommitOnWire.named(c) + ")" + (o.verdict() == CallOutcome.Verdict.ACCEPTED ? ""
                    : ", although the client reported " + o.errorName()))));
        }
        if (o.verdict() == CallOutcome.Verdict.NOT_DELIVERED) {
            e.check(Check.notRun("stale commit rejected", "R9", "REJECTED", "NOT_DELIVERED: " + o.message()));
            return Optional.of(e.finish(Outcome.notRun("A's commit never reached the broker, so its rejection could not be observed: " + o.message()
                    + "; A could not be held whole (frozen) instead: " + notHeldWhole)));
        }
        if (o.verdict() == CallOutcome.Verdict.ACCEPTED) {
            boolean unsent = wire.seen() == RebalanceExperiment.StaleCommitOnWire.Seen.WITNESSED && wire.commits().isEmpty();
            e.check(Check.fail("stale commit rejected", "R9", "REJECTED", "ACCEPTED" + (unsent ? " by the client, with no OffsetCommit from A on the wire" : "")));
            return Optional.of(e.finish(Outcome.faultNotObserved("the stale commit was ACCEPTED after the partition moved to B"
                    + (unsent ? " (the client returned normally though no OffsetCommit from A (" + wire.heldAs() + ") went out after its hold)" : ""))));
        }
        e.check(Check.pass("stale commit rejected", "R9", "REJECTED", rejecter(o, wire) + wireDetail(wire) + "; the client said "
                + o.errorName() + ": " + o.message()));
        return Optional.empty();
    }

    /**
     * R9 on the zombie's released {@code commitTransaction}, as observed: NOT_RUN when no outcome was
     * seen (nothing was shown either way); otherwise the check, REJECTED passing it and ACCEPTED failing
     * it, and the experiment goes on so that the oracle shows what a late commit did to the output.
     */
    static Optional<Outcome> zombieCommit(ExperimentRecorder e, Optional<CallOutcome> outcome, Duration waited) {
        if (outcome.isEmpty()) {
            e.check(Check.notRun("the zombie's commit fenced", "R9", "REJECTED", "the commit's outcome was not observed within " + waited.toSeconds() + " s"));
            return Optional.of(e.finish(Outcome.notRun("A's commitTransaction outcome was not observed after release")));
        }
        CallOutcome o = outcome.get();
        if (o.verdict() == CallOutcome.Verdict.ACCEPTED) {
            e.check(Check.fail("the zombie's commit fenced", "R9", "REJECTED", "ACCEPTED after its partitions moved to B"));
        } else {
            e.check(Check.pass("the zombie's commit fenced", "R9", "REJECTED", "REJECTED: " + o.errorName() + ": " + o.message()));
        }
        return Optional.empty();
    }

    /**
     * The outcome from both results: FAIL when {@code safe} lost or duplicated an acknowledged record
     * (whatever the control did), NOT_RUN when the {@code unsafe} control lost nothing (the fault was
     * not shown to bite), else judged on the checks with the control's loss as the confirmation.
     */
    static Outcome durability(ExperimentRecorder e, DurabilityExperiment.Result safe, DurabilityExperiment.Result unsafe) {
        e.check(Check.of("safe: every acknowledged record is in the log", "R15", "0 lost of " + safe.acknowledged(),
                lostText(safe), safe.lost().isEmpty()));
        e.check(Check.of("safe: no acknowledged record twice in the log", "R15", "0 duplicated", safe.duplicated() + " duplicated",
                safe.duplicated() == 0));
        for (DurabilityExperiment.Result r : List.of(safe, unsafe)) {
            if (r.target() != null) {
                r.target().toChecks().forEach(c -> e.check(new Check(r.config().name() + ": " + c.name() + " (target vs log)", c.requirement(),
                        c.expected(), c.actual(), c.status())));
            }
        }
        if (!safe.lost().isEmpty() || safe.duplicated() > 0) {
            return e.finish(Outcome.checkFailed("safe lost " + safe.lost().size() + " and duplicated " + safe.duplicated() + " of "
                    + safe.acknowledged() + " acknowledged record(s) under the leader crash"));
        }
        if (unsafe.lost().isEmpty()) {
            return e.finish(Outcome.notRun("the fault was not confirmed: the unsafe control lost none of its " + unsafe.acknowledged()
                    + " acknowledged records, so this schedule did not show a loss it could have caused"));
        }
        Event loss = e.record(Source.here("harness"), new Payload.Note("the control bit: unsafe lost " + lostText(unsafe)));
        return e.finish(Outcome.judge(e.confirmFault("unsafe lost " + unsafe.lost().size() + " of " + unsafe.acknowledged()
                + " acknowledged records under the leader crash; safe lost none", loss), e.checks()));
    }

    private static String lostText(DurabilityExperiment.Result r) {
        return r.lost().size() + " lost of " + r.acknowledged() + (r.lost().isEmpty() ? "" : ", e.g. " + String.join(", ",
                r.lost().subList(0, Math.min(3, r.lost().size()))));
    }
    /**
     * A matrix experiment's own outcome from its cells' (named, in matrix order): PASS, with a
     * check, when every cell PASSes ({@code confirmed} says what that confirms); else the worst
     * cell's status, naming it and its reason. The summary lists the cells that did not PASS.
     */
    static Outcome worstCell(ExperimentRecorder e, Map<?, Outcome> outcomes, String confirmed) {
        Map<String, Outcome> cells = new java.util.LinkedHashMap<>();
        outcomes.forEach((cell, o) -> cells.put(cell.toString(), o));
        String worst = cells.keySet().stream().reduce((x, y) -> cells.get(y).status().ordinal() > cells.get(x).status().ordinal() ? y : x)
                .orElseThrow();
        Outcome w = cells.get(worst);
        String summary = summary(cells);
        return e.finish(switch (w.status()) {
            case PASS -> {
                e.check(Check.pass("every cell PASSes", "R12", "PASS in each of " + cells.size() + " cell(s)", summary));
                yield Outcome.judge(e.confirmFault(confirmed + ": " + summary,
                        e.record(Source.here("harness"), new Payload.Note("all " + cells.size() + " cell(s) PASS"))), e.checks());
            }
            case FAIL -> w.failKind() == FailKind.CHECK_FAILED
                    ? Outcome.checkFailed("cell " + worst + " FAILED (" + w.reason() + "); " + summary)
                    : Outcome.faultNotObserved("cell " + worst + " FAILED (" + w.reason() + "); " + summary);
            case NOT_RUN -> Outcome.notRun("cell " + worst + " NOT_RUN (" + w.reason() + "); " + summary);
        });
    }

    /** e.g. {@code 9 cell(s): 8 PASS, 1 FAIL (after-offset-commit:crash)}. */
    static String summary(Map<String, Outcome> cells) {
        Map<Status, List<String>> by = new EnumMap<>(Status.class);
        cells.forEach((cell, o) -> by.computeIfAbsent(o.status(), k -> new ArrayList<>()).add(cell));
        return cells.size() + " cell(s): " + by.entrySet().stream().map(x -> x.getValue().size() + " " + x.getKey()
                + (x.getKey() == Status.PASS ? "" : " (" + String.join(", ", x.getValue()) + ")")).collect(Collectors.joining(", "));
    }

    /**
     * R5 after the reset to earliest: FAIL as fault-not-observed unless the group committed every
     * offset again AND, where the subject keeps a processing log, it handled every record again (a
     * subject that jumps to the end commits the offsets without reading a record); an empty topic
     * shows nothing. Empty when the records were delivered again (the check passed). {@code check}: the check's name, {@link #REDELIVERED},
     * or {@link #RECOMMITTED} where offsets are all the lab can read.
     */
    static Optional<Outcome> redelivery(ExperimentRecorder e, String check, long total, long records, long recommitted, long handled, String seen) {
        if (recommitted < total || handled < records || total == 0) {
            e.check(Check.fail(check, "R5", records + " redelivered", seen));
            return Optional.of(e.finish(Outcome.faultNotObserved("no redelivery: after the reset to earliest the subject handled " + handled + " of "
                    + records + " records again (" + seen + ")")));
        }
        e.check(Check.pass(check, "R5", records + " redelivered", seen + " (offsets 0 → end again)"));
        return Optional.empty();
    }

    /**
     * Duplicate publish: whether the records published again at new offsets reached the subject.
     * NOT_RUN when none was published, or when the offsets passed them although the subject never
     * fetched the topic through the wire proxy it was given ({@code offWire}: what it read cannot be
     * seen); FAIL as fault-not-observed when the subject handled fewer than were re-sent ({@code handled}:
     * by its processing log, else the broker's Fetch answers, else the offsets committed past them; a
     * consumer that commits what it never read, or one that commits each record's own offset and so
     * never past the last, is judged by what it read). Empty when they were delivered.
     */
    static Optional<Outcome> republishDelivered(ExperimentRecorder e, String topic, long resent, long committedPast, long handled, boolean offWire,
            String seen) {
        if (resent == 0) {
            e.check(Check.notRun("re-sent records delivered", "R14", "at least 1 re-sent", "no record of " + topic + " to publish again"));
            return Optional.of(e.finish(Outcome.notRun("no record of " + topic + " that the source mapping reads could be published again")));
        }
        if (offWire && committedPast > 0) {
            e.check(Check.notRun("re-sent records delivered", "R14", resent + " delivered", seen));
            return Optional.of(e.finish(Outcome.notRun("the group committed past " + committedPast + " re-sent record(s) but the subject never "
                    + "fetched " + topic + " through the wire proxy it was given as {bootstrap}: their delivery cannot be confirmed (does the "
                    + "consumer take its broker from {bootstrap}?)")));
        }
        if (handled < resent) {
            e.check(Check.fail("re-sent records delivered", "R14", resent + " delivered", seen));
            return Optional.of(e.finish(Outcome.faultNotObserved("the re-sent records were not delivered: the subject handled " + handled + " of "
                    + resent + " record(s) published again at new offsets (" + seen + ")")));
        }
        e.check(Check.pass("re-sent records delivered", "R14", resent + " delivered", seen));
        return Optional.empty();
    }

    /**
     * Duplicate publish's outcome: the judged one, and when the oracle found a second effect, a
     * reason that names the doubled ids (the consumer applied a message published again as a new one:
     * its inbox is keyed by position, not by the message's id).
     */
    static Outcome doubled(Outcome judged, Finding duplicated, long resent) {
        if (judged.status() != Status.FAIL || duplicated.count() == 0) {
            return judged;
        }
        return new Outcome(Status.FAIL, judged.reason() + ": " + duplicated.count() + " message id(s) have a second effect after " + resent
                + " record(s) were published again at new offsets (a message applied again at its new position: is the inbox keyed by "
                + "partition and offset rather than by the message's id?): " + String.join(", ", duplicated.examples())
                + (duplicated.count() > duplicated.examples().size() ? ", …" : ""), judged.failKind(), judged.confirmation());
    }

    /**
     * A FAIL of the oracle's checks, its reason naming the effect on the messages: the ids whose effect is lost and those with a
     * second one (the first few of each, as the oracle's findings hold them). Any other outcome as it is.
     */
    static Outcome naming(Outcome judged, Comparison c) {
        if (judged.status() != Status.FAIL || judged.failKind() != FailKind.CHECK_FAILED) {
            return judged;
        }
        List<String> effects = new java.util.ArrayList<>();
        if (c.missing().count() > 0) {
            effects.add("effect lost of " + listed(c.missing()));
        }
        if (c.duplicated().count() > 0) {
            effects.add("a second effect of " + listed(c.duplicated()));
        }
        if (c.archived() != null && c.archived().count() > 0) {
            effects.add("archived by the broker with nobody's word for it, " + listed(c.archived()));
        }
        if (c.rejected() != null && c.rejected().count() > 0) {
            effects.add("rejected by the consumer, its effect lost, " + listed(c.rejected()));
        }
        return effects.isEmpty() ? judged
                : new Outcome(Status.FAIL, judged.reason() + ": " + String.join("; ", effects), judged.failKind(), judged.confirmation());
    }

    private static String listed(Finding f) {
        return f.count() + " message id(s): " + String.join(", ", f.examples()) + (f.count() > f.examples().size() ? ", …" : "");
    }

    /** R16: the new generation holds an effect of every record, none missing (an empty one rebuilt nothing). */
    static Check rebuilt(long records, String generation, long targetEffects, long missing) {
        return Check.of("generation 2 rebuilt every effect", "R16", records + " effects in " + generation,
                targetEffects + " effects, " + missing + " missing", missing == 0 && targetEffects > 0);
    }
}
