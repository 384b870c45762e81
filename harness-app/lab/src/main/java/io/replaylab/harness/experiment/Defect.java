package io.replaylab.harness.experiment;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.FailKind;
import io.replaylab.evidence.Report;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.RunSection;
import io.replaylab.evidence.Status;
import io.replaylab.oracle.Comparison;

/**
 * The defect classes the lab catches, each with the experiment (or cell) that catches it and what
 * it shows when it does: README's table "What catches what" is this list (a test holds them equal),
 * and a run of {@link Experiments#thorough()} ends with one line per class.
 *
 * @param name        the class's name in the lab's words, e.g. {@code COMMITS_AHEAD}
 * @param description the defect in words: "commits offsets ahead of its database (…)"
 * @param caughtBy    the experiment (or {@code schedules.<point>.<fault>} cell) whose FAIL is this defect, as named in the evidence
 * @param shows       what its FAIL shows
 * @param fix         what a consumer does to be rid of it
 * @param signature   how its FAIL reads in that experiment's evidence: a FAIL there for another reason is another defect's
 * @param sameSymptom a class whose FAIL in this class's experiment looks the same, which the run must rule out first (or null)
 */
public record Defect(String name, String description, String caughtBy, String shows, String fix, Signature signature, Defect sameSymptom) {
    /** Every delivery applied: no inbox, or one read outside the effect's transaction. */
    public static final Defect NO_INBOX = new Defect("NO_INBOX", "applies every delivery (no inbox, or the inbox outside the effect's transaction)",
            "rebalance", "a second effect of the record A and B both handled",
            "write the message's id into an inbox table in the same database transaction as the effect, and apply the effect only when that "
                    + "row is new", Signature.failed(FailKind.CHECK_FAILED, Comparison.NO_SECOND_EFFECT, io.replaylab.harness.experiment.Verdicts.COLLISION), null);
    /** After a reset, the consumer jumps to the log end (or never reads below its own position). */
    public static final Defect SKIPS_THE_REPLAY = new Defect("SKIPS_THE_REPLAY", "skips a replay (jumps to the log end after a reset)", "replay",
            "no fetch below the log end on the wire, though the offsets moved back",
            "resume from the committed offset: no seek to the end on assignment (auto.offset.reset applies only to a group with no offset)",
            Signature.failed(FailKind.FAULT_NOT_OBSERVED, io.replaylab.harness.experiment.Verdicts.REDELIVERED)
                    .madeOnly("where the wire witness or the consumer's processing log shows what it read"), null);
    /** The offset is committed before the effect's transaction: a timer's auto-commit, a commit-first loop, a batch committed before it is applied. */
    public static final Defect COMMITS_AHEAD = new Defect("COMMITS_AHEAD",
            "commits offsets ahead of its database (auto-commit, commit first, a batch committed before it is applied)", "commit-ahead",
            "a commit the live check found ahead of the database as it was sent (A killed there), and the missing effect and hole below "
                    + "the committed offset that follow unless the effects landed before the kill",
            "commit a record's offset only after its effect's transaction committed (enable.auto.commit=false, then commitSync after the DB "
                    + "commit)", Signature.failed(FailKind.CHECK_FAILED, Comparison.NO_MISSING_EFFECT, CommitAheadExperiment.NO_COMMIT_AHEAD), null);
    /** A write that stays busy under contention is logged and skipped, and its offset committed. */
    public static final Defect SWALLOWS_BUSY_WRITES = new Defect("SWALLOWS_BUSY_WRITES",
            "swallows a busy database error under contention and commits the offset", "schedules.before-db-commit.hold-then-crash",
            "a missing effect: B skipped the record while A held the lock, then A died",
            "retry a transaction the database refused (busy, a serialization failure, a deadlock) or stop; never commit the offset past it",
            Signature.failed(FailKind.CHECK_FAILED, Comparison.NO_MISSING_EFFECT), COMMITS_AHEAD);
    /** The inbox is keyed by partition and offset, not by the message's identity. */
    public static final Defect POSITION_AS_IDENTITY = new Defect("POSITION_AS_IDENTITY", "takes a message's identity from its position (partition, offset)",
            "duplicate-publish", "a second effect of each message published again at a new offset",
            "key the inbox by the message's own id (a field or header its producer sets), never by topic, partition and offset",
            Signature.failed(FailKind.CHECK_FAILED, Comparison.NO_SECOND_EFFECT), NO_INBOX);

    /** Records of aborted transactions are read and applied: the client reads uncommitted (the Java client's default). */
    public static final Defect READS_ABORTED = new Defect("READS_ABORTED", "applies records of aborted transactions (isolation.level=read_uncommitted)",
            "replay", "an effect of a record whose transaction its producer aborted (on a source with aborted transactions, as thorough "
                    + "writes it)",
            "read with isolation.level=read_committed (librdkafka's default; the Java client's is read_uncommitted), with a client that has it "
                    + "and drops the records its fetches' answers list as aborted",
            Signature.failed(FailKind.CHECK_FAILED, io.replaylab.harness.lab.LabTarget.NO_ABORTED_EFFECT)
                    .madeOnly("on a source with aborted transactions, as thorough writes it"), null);

    public Defect {
        Objects.requireNonNull(caughtBy, "caughtBy");
        Objects.requireNonNull(signature, "signature");
    }

    /**
     * How a defect's FAIL reads in its experiment's evidence: with this kind of FAIL, one of these checks failed (for a skipped
     * replay, the redelivery check with the fault not observed). Ruled out by a PASS, or by a FAIL of another check, with these
     * checks made and holding. {@code madeOnly}: where those checks are made, when not in every run of the experiment (or null).
     */
    public record Signature(FailKind kind, List<String> checks, String madeOnly) {
        public Signature {
            Objects.requireNonNull(kind, "kind");
            checks = List.copyOf(checks);
        }

        public static Signature failed(FailKind kind, String... checks) {
            return new Signature(kind, List.of(checks), null);
        }

        /** The same, its checks made only {@code where}: what a run lacked when it could not judge the class. */
        public Signature madeOnly(String where) {
            return new Signature(kind, checks, where);
        }

        /** Whether {@code x}'s FAIL is this defect. */
        boolean shownBy(ExperimentEvidence x) {
            return x.outcome().status() == Status.FAIL && x.outcome().failKind() == kind && x.checks().stream()
                    .anyMatch(c -> checks.contains(c.name()) && c.status() == Status.FAIL);
        }

        /**
         * Whether {@code x} rules it out: a PASS, or a FAIL with the fault confirmed, with these checks made and holding (a PASS
         * without them, e.g. a replay read from offsets alone, says nothing of this defect).
         */
        boolean ruledOutBy(ExperimentEvidence x) {
            List<io.replaylab.evidence.Check> own = x.checks().stream().filter(c -> checks.contains(c.name())).toList();
            return (x.outcome().status() == Status.PASS || x.outcome().status() == Status.FAIL && x.outcome().failKind() == FailKind.CHECK_FAILED)
                    && !own.isEmpty() && own.stream().allMatch(c -> c.status() == Status.PASS);
        }
    }

    /** What a run says of a defect class. */
    public enum Verdict {
        /** Its experiment FAILed the way this defect shows. */
        CAUGHT,
        /** Its experiment PASSed, or FAILed for another defect with this one's check holding. */
        NOT_FOUND,
        /** Its experiment was NOT_RUN, or FAILed in a way that says nothing of this defect. */
        NOT_JUDGED;

        /** {@code caught}, {@code not found}, {@code not judged}. */
        public String words() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        }
    }

    /** This class's experiment (or cell) in a run, if the run had it. */
    public Optional<ExperimentEvidence> in(RunEvidence run) {
        return run.experiments().stream().filter(x -> x.name().equals(caughtBy)).findFirst();
    }

    /** What {@code x}, this class's experiment, says of it alone. */
    public Verdict verdict(ExperimentEvidence x) {
        return signature.shownBy(x) ? Verdict.CAUGHT : signature.ruledOutBy(x) ? Verdict.NOT_FOUND : Verdict.NOT_JUDGED;
    }

    /**
     * What {@code run} says of this class, if it had its experiment: caught only when the class with the same symptom (if any)
     * was ruled out in the same run; else its FAIL may be that other class's, and this one is not judged.
     */
    public Optional<Verdict> verdict(RunEvidence run) {
        return in(run).map(x -> verdict(x) == Verdict.CAUGHT && !sameSymptomRuledOut(run) ? Verdict.NOT_JUDGED : verdict(x));
    }

    private boolean sameSymptomRuledOut(RunEvidence run) {
        return sameSymptom == null || sameSymptom.in(run).map(sameSymptom::verdict).orElse(Verdict.NOT_JUDGED) == Verdict.NOT_FOUND;
    }

    /** What decided the verdict in {@code run}, for people: the experiment's outcome, said to be another defect's when it may be. */
    public Optional<String> decidedBy(RunEvidence run) {
        return in(run).map(x -> {
            String outcome = x.outcome().status() + ": " + x.outcome().reason();
            if (x.outcome().status() == Status.PASS && !signature.ruledOutBy(x)) {
                // the PASS's own reason is the experiment's line above this one: only what it lacked for this class is said here
                return "PASS, without a check that rules this defect out (" + String.join(", ", signature.checks())
                        + (signature.madeOnly() == null ? "" : ", made only " + signature.madeOnly()) + ")";
            }
            if (x.outcome().status() != Status.FAIL) {
                return outcome;
            }
            if (!signature.shownBy(x)) {
                return x.outcome().status() + ", not this defect's: " + x.outcome().reason();
            }
            if (sameSymptomRuledOut(run)) {
                return outcome;
            }
            boolean caught = sameSymptom.verdict(run).orElse(Verdict.NOT_JUDGED) == Verdict.CAUGHT;
            return x.outcome().status() + ", but '" + sameSymptom.description() + "' shows the same and " + sameSymptom.caughtBy()
                    + (caught ? " caught that" : " did not rule it out") + " in this run: " + x.outcome().reason();
        });
    }

    /**
     * The verdict first: at the top of a run's report, one line per defect class, caught or not (with the experiment or cell
     * that decided, linked), or not judged and why, and what a consumer does to be rid of it. A {@link RunSection} service.
     */
    public static final class Verdicts implements RunSection {
        @Override
        public Optional<Report.Section> of(RunEvidence run) {
            if (all().stream().allMatch(d -> d.in(run).isEmpty())) {
                return Optional.empty(); // a run of none of the classes' experiments (another lab's): nothing to say
            }
            List<List<Report.Cell>> rows = all().stream().map(d -> {
                Verdict v = d.verdict(run).orElse(Verdict.NOT_JUDGED);
                Report.Cell verdict = Report.Cell.strong(v.words()).withClass(switch (v) {
                    case CAUGHT -> "caught";
                    case NOT_FOUND -> "absent";
                    case NOT_JUDGED -> "unjudged";
                });
                String evidence = d.decidedBy(run).orElse("this run had no " + d.caughtBy() + " (run it, or thorough, to judge this class)");
                return List.of(verdict, Report.Cell.text(d.description()), Report.Cell.code(d.caughtBy()).linkTo("#exp-" + d.caughtBy()),
                        Report.Cell.text(evidence), Report.Cell.text(v == Verdict.NOT_FOUND ? "" : d.fix()));
            }).toList();
            return Optional.of(Report.Section.of("Verdict by defect class", new Report.Table("defects",
                    List.of("verdict", "defect class", "judged by", "what decided it", "what a consumer does"), rows, null)));
        }
    }

    /** Every class, in README's order. */
    public static List<Defect> all() {
        return List.of(NO_INBOX, SKIPS_THE_REPLAY, COMMITS_AHEAD, SWALLOWS_BUSY_WRITES, POSITION_AS_IDENTITY, READS_ABORTED);
    }
}
