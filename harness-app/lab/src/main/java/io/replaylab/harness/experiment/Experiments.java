package io.replaylab.harness.experiment;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.replaylab.barrier.wire.CommitCheck;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.Versions;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.oracle.SourceIndex;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TopicOracle;

/**
 * The reference experiments as values for {@link io.replaylab.harness.lab.LabSettings.Builder#experiments},
 * and the steps they share. {@link #reference()} is what a run takes by default; the others take longer and
 * run only when given: {@link #thorough()} adds schedules, wire-faults, commit-ahead and duplicate-publish
 * (every defect class of {@link Defect}), {@link #all()} eos and durability too.
 */
public final class Experiments {
    private Experiments() {
    }

    /** Replay (R1–R6, R11–R15): reset the inactive group to earliest and replay into the same target: no second effect. */
    public static Experiment replay() {
        return new Experiment(ReplayExperiment.NAME, List.of(ReplayExperiment.REQUIREMENTS), ReplayExperiment::run);
    }

    /** Rebalance (R7–R12): A held between its DB commit and its offset commit, the partition moves to B, A's stale commit is rejected. */
    public static Experiment rebalance() {
        return new Experiment(RebalanceExperiment.NAME, List.of(RebalanceExperiment.REQUIREMENTS), RebalanceExperiment::run);
    }

    /** Rebuild (R16): a second generation rebuilds every effect on the same DB; the first stays untouched. */
    public static Experiment rebuild() {
        return new Experiment(RebuildExperiment.NAME, List.of(RebuildExperiment.REQUIREMENTS), RebuildExperiment::run);
    }

    /**
     * Duplicate publish (R11–R15): a slice of the source published again at new offsets, raw, as an at-least-once producer's retry
     * writes it; still one effect per message id (an inbox keyed by partition and offset FAILs, naming the doubled ids).
     */
    public static Experiment duplicatePublish() {
        return new Experiment(DuplicatePublishExperiment.NAME, List.of(DuplicatePublishExperiment.REQUIREMENTS), DuplicatePublishExperiment::run);
    }

    /**
     * Share-group ownership (KIP-932; R7–R9, R11–R14): A held after its DB transaction and before its acknowledgement, the
     * record's lock expires, B gets it again, A's acknowledgement is refused; one effect per message. Needs LabSettings'
     * share subject; not part of {@link #all()} (a share group is another kind of consumer).
     */
    public static Experiment shareOwnership() {
        return new Experiment(ShareOwnershipExperiment.NAME, List.of(ShareOwnershipExperiment.REQUIREMENTS), Shares.body(ShareOwnershipExperiment::run));
    }

    /**
     * Replay on a share group (R1–R6 for queues, R11–R15): the share group's start offsets reset to the earliest record
     * through the consumer group's guards, every record delivered again, the target unchanged. Needs LabSettings' share
     * subject; not part of {@link #all()}.
     */
    public static Experiment shareReplay() {
        return new Experiment(ShareReplayExperiment.NAME, List.of(ShareReplayExperiment.REQUIREMENTS), Shares.body(ShareReplayExperiment::run));
    }

    /**
     * A poison record in a share group: published after the source, no consumer can read it; the consumer's ACCEPT (after
     * a quarantine) or REJECT PASSes, a RELEASE every time until the broker archives it FAILs ("the consumer lost it"). Reads
     * delivery counts and acknowledgement types on the wire (the witness).
     */
    public static Experiment sharePoison() {
        return new Experiment(SharePoisonExperiment.NAME, List.of(SharePoisonExperiment.REQUIREMENTS), Shares.body(SharePoisonExperiment::run));
    }

    /**
     * A crash at the DB commit in a share group: A held at its DB transaction's commit (after its first acknowledgement)
     * and killed; a consumer that acknowledges before its transaction FAILs, naming the lost record.
     */
    public static Experiment shareCrash() {
        return new Experiment(ShareCrashExperiment.NAME, List.of(ShareCrashExperiment.REQUIREMENTS), Shares.body(ShareCrashExperiment::run));
    }

    /**
     * Acknowledged ahead of the database in a share group (R11 as it happens, R12): every acknowledgement that ACCEPTs records
     * checked on the wire against the target as it is sent; A killed at its first one ahead; a record ACCEPTed before its
     * effect is lost (FAIL naming it). Any client (the wire); needs the wire proxy.
     */
    public static Experiment shareAckAhead() {
        return new Experiment(ShareAckAheadExperiment.NAME, List.of(ShareAckAheadExperiment.REQUIREMENTS), Shares.body(ShareAckAheadExperiment::run, false));
    }

    /** share-replay, share-ownership, share-crash, share-poison and share-ack-ahead: the share-group experiments. */
    public static List<Experiment> shares() {
        return List.of(shareReplay(), shareOwnership(), shareCrash(), sharePoison(), shareAckAhead());
    }

    /** replay, rebalance, rebuild: a run's default. */
    public static List<Experiment> reference() {
        return List.of(replay(), rebalance(), rebuild());
    }

    /**
     * The whole battery on one subject: the defaults, {@link #schedules()} (its sequences too), {@link #wireFaults()},
     * {@link #commitAhead()}, duplicate-publish and, on a PostgreSQL target, {@link #dbFaults()}: every defect class README's catalogue names.
     */
    public static List<Experiment> thorough() {
        return java.util.stream.Stream.concat(reference().stream(),
                java.util.stream.Stream.of(schedules(), wireFaults(), commitAhead(), duplicatePublish(), dbFaults().whenPostgres())).toList();
    }

    /** Every experiment: {@link #thorough()}, {@link #eos()} (it needs a transform subject) and {@link #durability()} (a cluster of its own). */
    public static List<Experiment> all() {
        return java.util.stream.Stream.concat(thorough().stream(), java.util.stream.Stream.of(eos(), durability())).toList();
    }

    /** EOS (R15's other half): a consume-transform-produce subject (LabSettings' transform subject) held at commitTransaction. */
    public static Experiment eos() {
        return new Experiment(EosExperiment.NAME, List.of(EosExperiment.REQUIREMENTS), EosExperiment::run);
    }

    /**
     * The default matrix on the run's target: every single fault at every point of the commit protocol (after-db-commit on PostgreSQL
     * only), and the sequences that catch what those do not ({@link ScheduleCell#all(boolean)}).
     */
    public static Experiment schedules() {
        return new Experiment(SchedulesExperiment.NAME, List.of(SchedulesExperiment.REQUIREMENTS),
                (ctx, ns, e) -> SchedulesExperiment.run(ScheduleCell.all(ctx.target().wire().isPresent()), ctx, ns, e));
    }

    /** The schedules experiment on these cells only (at least one), in matrix order. */
    public static Experiment schedules(List<ScheduleCell> cells) {
        if (cells == null || cells.isEmpty()) {
            throw new IllegalArgumentException("the schedules experiment needs at least one cell, e.g. ScheduleCell.parse(\"after-offset-commit:crash\")");
        }
        List<ScheduleCell> selected = ScheduleCell.every().stream().filter(cells::contains).toList();
        return new Experiment(SchedulesExperiment.NAME, List.of(SchedulesExperiment.REQUIREMENTS),
                (ctx, ns, e) -> SchedulesExperiment.run(selected, ctx, ns, e));
    }

    /** Database faults aimed at A's transactions in the PostgreSQL proxy: the default cells ({@link DbFaultCell#defaults}); NOT_RUN on SQLite. */
    public static Experiment dbFaults() {
        return new Experiment(DbFaultsExperiment.NAME, List.of(DbFaultsExperiment.REQUIREMENTS), (ctx, ns, e) -> DbFaultsExperiment.run(null, ctx, ns, e));
    }

    /** The db-faults experiment on these cells (at least one), in the order given. */
    public static Experiment dbFaults(List<DbFaultCell> cells) {
        if (cells == null || cells.isEmpty()) {
            throw new IllegalArgumentException("the db-faults experiment needs at least one cell, e.g. DbFaultCell.parse(\"commit:lost-answer\")");
        }
        List<DbFaultCell> selected = List.copyOf(cells);
        return new Experiment(DbFaultsExperiment.NAME, List.of(DbFaultsExperiment.REQUIREMENTS), (ctx, ns, e) -> DbFaultsExperiment.run(selected, ctx, ns, e));
    }

    /** Answers a broker may give, aimed at A's requests on the wire: the default cells for the run's group protocol ({@link WireFaultCell#defaults}). */
    public static Experiment wireFaults() {
        return new Experiment(WireFaultsExperiment.NAME, List.of(WireFaultsExperiment.REQUIREMENTS), (ctx, ns, e) -> WireFaultsExperiment.run(null, ctx, ns, e));
    }

    /** The wire-faults experiment on these cells (at least one), in the order given. */
    public static Experiment wireFaults(List<WireFaultCell> cells) {
        if (cells == null || cells.isEmpty()) {
            throw new IllegalArgumentException("the wire-faults experiment needs at least one cell, e.g. WireFaultCell.parse(\"offset-commit:lost-answer\")");
        }
        List<WireFaultCell> selected = List.copyOf(new java.util.LinkedHashSet<>(cells));
        return new Experiment(WireFaultsExperiment.NAME, List.of(WireFaultsExperiment.REQUIREMENTS),
                (ctx, ns, e) -> WireFaultsExperiment.run(selected, ctx, ns, e));
    }

    /**
     * Commit-ahead (R11 as it happens, R12): every OffsetCommit checked on the wire against the target as it is sent; A killed at
     * its first commit that covers a record with no effect yet, then the oracle judges the loss. Needs the wire proxy (the witness).
     */
    public static Experiment commitAhead() {
        return new Experiment(CommitAheadExperiment.NAME, List.of(CommitAheadExperiment.REQUIREMENTS), CommitAheadExperiment::run);
    }

    /** Durability on a local 3-broker cluster of its own: one leader crash, safe against unsafe producer settings. Its four JVMs need the CPU: it runs alone. */
    public static Experiment durability() {
        return new Experiment(DurabilityExperiment.NAME, List.of(DurabilityExperiment.REQUIREMENTS), DurabilityExperiment::run).alone();
    }

    /**
     * An experiment, or a set of them, by the name a user gives it: what it shows, whether it takes
     * cells (schedules' {@code point:fault}, wire-faults' {@code api:effect}) and whether it is a
     * battery (the source then has aborted transactions by default). {@link #catalogue()} is the one
     * list of them: the CLI's choices and help, and README's table, come from it.
     */
    public static final class Named {
        private final String name;
        private final String shows;
        private final boolean takesCells;
        private final boolean battery;
        private final Function<List<String>, List<Experiment>> make;

        private Named(String name, String shows, boolean takesCells, boolean battery, Function<List<String>, List<Experiment>> make) {
            this.name = name;
            this.shows = shows;
            this.takesCells = takesCells;
            this.battery = battery;
            this.make = make;
        }

        private static Named one(String name, String shows, Supplier<Experiment> make) {
            return new Named(name, shows, false, false, cells -> List.of(make.get()));
        }

        private static Named set(String name, String shows, boolean battery, Supplier<List<Experiment>> make) {
            return new Named(name, shows, false, battery, cells -> make.get());
        }

        private static Named withCells(String name, String shows, Supplier<Experiment> all, Function<List<String>, Experiment> some) {
            return new Named(name, shows, true, false, cells -> List.of(cells.isEmpty() ? all.get() : some.apply(cells)));
        }

        public String name() {
            return name;
        }

        /** What it shows, in a line. */
        public String shows() {
            return shows;
        }

        /** Whether it runs chosen cells ({@link #experiments(List)}). */
        public boolean takesCells() {
            return takesCells;
        }

        /** A battery of experiments on one subject: its source has aborted transactions by default. */
        public boolean battery() {
            return battery;
        }

        /** The experiments, their default cells. */
        public List<Experiment> experiments() {
            return make.apply(List.of());
        }

        /**
         * The experiments on these cells (empty: the default ones), each parsed by the experiment's cell type.
         *
         * @throws IllegalArgumentException a cell that does not parse (naming it), or cells for one that takes none
         */
        public List<Experiment> experiments(List<String> cells) {
            if (!cells.isEmpty() && !takesCells) {
                throw new IllegalArgumentException("cells are for " + catalogue().stream().filter(Named::takesCells).map(Named::name)
                        .collect(Collectors.joining(" or ")) + ", not for " + name);
            }
            return make.apply(List.copyOf(cells));
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static final List<Named> CATALOGUE = List.of(
            Named.set("default", "replay, rebalance and rebuild", false, Experiments::reference),
            Named.set("thorough", "the defaults, schedules, wire-faults, commit-ahead, duplicate-publish; on PostgreSQL db-faults too", true,
                    Experiments::thorough),
            Named.set("all", "thorough, eos and durability", true, Experiments::all),
            Named.one(ReplayExperiment.NAME, "reset an inactive group to earliest and replay into the same target: no second effect", Experiments::replay),
            Named.one(RebalanceExperiment.NAME, "A held between its DB commit and its offset commit, the partition moves to B, A's stale commit "
                    + "is refused", Experiments::rebalance),
            Named.one(RebuildExperiment.NAME, "a second generation rebuilds every effect on the same DB", Experiments::rebuild),
            Named.one(EosExperiment.NAME, "a consume-transform-produce subject held at commitTransaction (it needs a transform subject)", Experiments::eos),
            Named.withCells(SchedulesExperiment.NAME, "every fault (hold, freeze, crash, sequences) at every point of the commit protocol",
                    Experiments::schedules, cells -> schedules(cells.stream().map(ScheduleCell::parse).distinct().toList())),
            Named.withCells(WireFaultsExperiment.NAME, "answers a broker may give, aimed at A's requests on the wire", Experiments::wireFaults,
                    cells -> wireFaults(cells.stream().map(WireFaultCell::parse).toList())),
            Named.withCells(DbFaultsExperiment.NAME, "database faults (ambiguous commit, 40001, 40P01, 57P01) at A's transactions, on a PostgreSQL target", Experiments::dbFaults, cells -> dbFaults(cells.stream().map(DbFaultCell::parse).toList())),
            Named.one(CommitAheadExperiment.NAME, "every OffsetCommit checked against the target as it is sent; A killed at one ahead of its DB",
                    Experiments::commitAhead),
            Named.one(DuplicatePublishExperiment.NAME, "a slice of the source published again at new offsets: one effect per message id",
                    Experiments::duplicatePublish),
            Named.one(DurabilityExperiment.NAME, "a leader crash on a 3-broker cluster of its own, safe against unsafe producer settings",
                    Experiments::durability),
            Named.set("shares", "share-replay, share-ownership, share-crash, share-poison and share-ack-ahead (they need a share subject)", false, Experiments::shares),
            Named.one(ShareReplayExperiment.NAME, "a share group's start offsets reset to earliest: every record again, the target unchanged",
                    Experiments::shareReplay),
            Named.one(ShareOwnershipExperiment.NAME, "A held before its acknowledgement, the lock expires, B gets the record, A's acknowledgement "
                    + "is refused", Experiments::shareOwnership),
            Named.one(ShareCrashExperiment.NAME, "A killed at its DB commit in a share group", Experiments::shareCrash),
            Named.one(SharePoisonExperiment.NAME, "a record no consumer can read: ACCEPT or REJECT, never RELEASE until archived",
                    Experiments::sharePoison),
            Named.one(ShareAckAheadExperiment.NAME, "every acknowledgement checked against the target as it is sent; A killed at one ahead",
                    Experiments::shareAckAhead));

    /** Every experiment and set a user can name, in the order help lists them. */
    public static List<Named> catalogue() {
        return CATALOGUE;
    }

    /**
     * The experiment or set called {@code name} (any case).
     *
     * @throws IllegalArgumentException an unknown name, with the known ones
     */
    public static Named named(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return CATALOGUE.stream().filter(x -> x.name.equals(n)).findFirst().orElseThrow(() -> new IllegalArgumentException("unknown experiment '"
                + name + "': use one of " + CATALOGUE.stream().map(Named::name).collect(Collectors.joining(", "))));
    }

    /**
     * The live frontier check as a {@link CommitCheck} for a proxy of one's own (the one every
     * experiment on the run's broker arms, passively): each OffsetCommit's newly covered records of {@code topic}, looked up in
     * {@code index}, asked of {@code target}; one ahead of the database is a note in {@code e}. Commits cannot be attributed to
     * an instance here: nobody is killed.
     */
    public static CommitCheck liveCheck(ExperimentRecorder e, String topic, SourceIndex index,
            Supplier<Target> target) {
        return new FrontierCheck(e, topic, index, target, List::of);
    }

    /**
     * The environment of an experiment on the run's one broker and target, and that limitation; with the wire proxy, every
     * OffsetCommit of its namespace's group ({@code ns.group()}, its inbox {@code ns.inbox(1)}: not the groups an experiment
     * names apart, e.g. rebuild's generations) is checked against the target as it is sent, and one ahead of the database is
     * listed in its evidence (never killed here: only commit-ahead proves a loss).
     */
    static void onTheRunsBroker(LabContext ctx, ExperimentRecorder e, LabNamespace ns) {
        environment(ctx, e, ns);
        e.limitation(Limitations.singleBrokerAndDatabase(ctx.target().kind()));
        ctx.target().wire().ifPresent(db -> e.limitation(Limitations.POSTGRES_PROXY));
        ctx.kafka().wire().ifPresent(proxy -> ctx.closeAtEnd(proxy.checkCommits(ns.group(), FrontierCheck.of(ctx, e, ns.topic(), ns.inbox(1)))));
    }

    static void environment(LabContext ctx, ExperimentRecorder e, LabNamespace ns) {
        e.environment("replay-lab", Versions.replayLab())
                .environment("java", Versions.java())
                .environment("kafka-clients", Versions.kafkaClients())
                .environment("broker", ctx.kafka().brokerVersion())
                .environment("sqlite", Versions.sqlite())
                .environment("bootstrap", ctx.kafka().bootstrap())
                .environment("namespace", ns.prefix())
                .environment("topic", ns.topic())
                .environment("group", ns.group())
                .environment("target db", ctx.target().describe())
                .environment("group protocol", ctx.settings().broker().groupProtocol().name)
                .environment("subject", ctx.settings().subject().isEmpty() ? "none given" : ctx.settings().subject().orElseThrow().description())
                .environment("pid.harness", Long.toString(ProcessHandle.current().pid()));
        ctx.kafka().wire().ifPresent(proxy -> e.environment("subject bootstrap", proxy.bootstrapServers() + " (the wire proxy, forwarding to "
                + ctx.kafka().bootstrap() + ")"));
        e.environment("wire witness", ctx.kafka().witness().isPresent() ? "on: every OffsetCommit of the subjects and the broker's answer are recorded"
                : "off: the evidence cannot tell a commit the broker rejected from one the client never sent");
    }

    /**
     * Fills the experiment's source topic as the run says ({@link io.replaylab.harness.lab.LabSettings#source()}: the lab's
     * payments, in the reference or the user's shape, or the user's producer) and returns what it holds: the source set.
     */
    public static TopicOracle.SourceSummary produce(LabContext ctx, ExperimentRecorder e, LabNamespace ns) throws Exception {
        return ctx.kafka().fillSource(e, ns.topic(), ns.prefix());
    }

    /**
     * The end of a fault experiment: waits for the group to drain with {@code needed} running, stops
     * every instance, replays their assignment logs into the timeline; the drained offsets, or null
     * after recording the NOT_RUN check (the oracle would only count the records nobody consumed yet
     * as missing: no verdict on a group that is not done).
     */
    static OffsetSnapshot settle(LabContext ctx, ExperimentRecorder e, String group, String topic, String inbox, List<LabContext.Instance> running,
            LabContext.Instance needed) throws InterruptedException {
        return settled(ctx, e, group, running, ctx.kafka().awaitApplied(group, topic, inbox, "recovery", needed));
    }

    /** As {@link #settle(LabContext, ExperimentRecorder, String, String, String, List, LabContext.Instance)} for a group whose effects are no inbox's (a transform's output): drained means committed to the end. */
    static OffsetSnapshot settle(LabContext ctx, ExperimentRecorder e, String group, String topic, List<LabContext.Instance> running,
            LabContext.Instance needed) throws InterruptedException {
        return settled(ctx, e, group, running, ctx.kafka().awaitDrained(group, topic, "recovery", needed));
    }

    /** The instances stopped and their assignment logs recorded after a drain that returned {@code settled} (null: not drained, said why). */
    static OffsetSnapshot settled(LabContext ctx, ExperimentRecorder e, String group, List<LabContext.Instance> running, OffsetSnapshot settled)
            throws InterruptedException {
        for (LabContext.Instance i : running) {
            ctx.subjects().stop(e, i);
        }
        for (LabContext.Instance i : running) {
            ctx.subjects().recordAssignmentLog(e, i);
        }
        if (settled == null) {
            e.check(Check.notRun("drained after recovery", "R10", "lag 0, or every effect applied", ctx.kafka().notDone(group)));
        }
        return settled;
    }

    /** The NOT_RUN of a group that did not drain after the recovery ({@link #settle} returned null: its check says why; a share group's: its drain timeout). */
    static Outcome notDrained(LabContext ctx, ExperimentRecorder e) {
        String why = e.checks().stream().filter(c -> c.name().equals("drained after recovery") && c.status() == Status.NOT_RUN).map(Check::actual)
                .reduce((first, second) -> second).orElse("not done within " + ctx.settings().timeouts().drain().toSeconds()
                + " s (the lab's drain timeout, LabSettings.drainTimeout: a share group's timeouts are not read on the wire)");
        return e.finish(Outcome.notRun("the group did not drain after the recovery: " + why));
    }
}
