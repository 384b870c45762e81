package io.replaylab.harness.lab;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.micrometer.core.instrument.Timer;
import io.replaylab.barrier.wire.FetchWatch;
import io.replaylab.barrier.wire.MemberTimeouts;
import io.replaylab.evidence.Source;
import io.replaylab.evidence.process.Poll;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.oracle.TopicOracle;

/**
 * One wait for a group to be done with a topic ({@link LabKafka#awaitDrained}, {@link LabKafka#awaitApplied}): its progress
 * by committed offsets and effects, judged by the consumer's own timeouts once they were read on the wire, its meters and
 * its progress lines.
 */
final class GroupDrain {
    /** The longest a drain may go on while it still progresses: a phase still moving after this is not drained (NOT_RUN). */
    static final Duration LONGEST_DRAIN = Duration.ofHours(1);

    private final LabKafka kafka;
    private final LabContext ctx;
    private final String group;
    private final String topic;
    /** Null: done means committed to the end. */
    private final String inbox;
    private final String stage;
    private final LabContext.Instance[] needed;
    /** Null: the log end. */
    private final Map<Integer, Long> recordEnds;
    /**
     * A stage followed by offsets alone: the broker's Fetch answers to the group since the drain began (or since the caller's watch
     * opened; null: no witness), and the group's offsets where the stage began: each partition's reading starts at its committed
     * offset then, else at its log start.
     */
    private final FetchWatch fetches;
    private final boolean ownWatch;
    private final OffsetSnapshot from;
    private long committedSeen = Long.MIN_VALUE;
    private long committedMovedAt = System.nanoTime();
    private final Timer.Sample started;
    private long firstCommitted = -1;
    private long mostCommitted = -1;
    private long fewestMissing = Long.MAX_VALUE;
    private long committedAtAppliedLook = Long.MIN_VALUE;
    private long lastAppliedLook = System.nanoTime();
    /** Since when every effect was applied with no offset committed (MAX_VALUE: not so at the last look). */
    private long appliedUncommittedSince = Long.MAX_VALUE;
    private long lastReport = System.nanoTime();
    private final long startedAt = System.nanoTime();
    private long lastProgress = startedAt;
    private java.time.Instant lastProgressAt = java.time.Instant.now();
    private final java.time.Instant startedAtInstant = java.time.Instant.now();
    private final java.util.Set<String> members = new java.util.HashSet<>();
    private boolean said;
    private String processes = "";
    /** Ends the wait early (no drain, nothing said), checked before each look; null: never. With it, {@link #needed} are not checkpointed. */
    private java.util.function.BooleanSupplier over;

    GroupDrain(LabKafka kafka, LabContext ctx, String group, String topic, String inbox, String stage, FetchWatch fetches,
            OffsetSnapshot from, LabContext.Instance[] needed) {
        this.kafka = kafka;
        this.ctx = ctx;
        this.started = Timer.start(ctx.meters());
        this.group = group;
        this.topic = topic;
        this.inbox = inbox;
        this.stage = stage;
        this.needed = needed;
        this.recordEnds = recordEnds(topic);
        this.ownWatch = inbox == null && fetches == null && kafka.witness().isPresent();
        boolean watched = inbox == null && (fetches != null || ownWatch);
        this.from = !watched ? null : from != null ? from : kafka.ops().describe(group); // read first: a describe that fails leaves no watch open
        this.fetches = !watched ? null : ownWatch ? kafka.witness().get().watchFetches(topic) : fetches;
    }

    /** Ends the wait early, with null and no reason given, once {@code over} holds: an experiment's own end, a kill it armed. */
    GroupDrain endingWhen(java.util.function.BooleanSupplier over) {
        this.over = over;
        return this;
    }

    OffsetSnapshot await() throws InterruptedException {
        OffsetSnapshot[] done = {null};
        boolean ended;
        try {
            ended = Poll.every(Duration.ofMillis(250)).upTo(LONGEST_DRAIN).until(() -> look(done), Boolean::booleanValue);
        } finally {
            if (ownWatch) {
                fetches.close();
            }
        }
        if (!ended) {
            kafka.notDone.put(group, "still not done after " + Timeouts.seconds(LONGEST_DRAIN) + ", though it progressed all along");
        }
        return done[0];
    }

    /** One look; true when the wait is over, with {@code done[0]} the drained offsets (null: stalled, NOT_RUN). */
    private boolean look(OffsetSnapshot[] done) throws InterruptedException {
        if (over != null && over.getAsBoolean()) {
            return true;
        }
        // with an early end, the instances are the caller's to watch (its end says when one is gone): they only hear the notes
        ctx.subjects().checkpoint(over != null ? new LabContext.Instance[0] : needed);
        OffsetSnapshot s = atEnd();
        boolean drained = s != null;
        if (s == null) {
            s = kafka.ops().describe(group);
        }
        long committed = LabKafka.committedSum(s, topic);
        if (committed > 0 && ctx.subjects().firstInbox() != null) {
            ctx.target().checkTargetQuery(ctx.subjects().firstInbox());
        }
        if (firstCommitted < 0) {
            firstCommitted = committed;
        }
        if (System.nanoTime() - lastReport > 2_000_000_000L) {
            long end = s.partitions().stream().filter(p -> p.topic().equals(topic)).mapToLong(PartitionOffsets::logEnd).sum();
            ctx.step("  … " + group + " committed " + committed + " of " + end);
            lastReport = System.nanoTime();
        }
        if (drained) {
            done[0] = metered(s, committed);
            return true;
        }
        if (committed > mostCommitted) {
            mostCommitted = committed;
            progressed();
        }
        if (committed != committedSeen) {
            committedSeen = committed;
            committedMovedAt = System.nanoTime();
        }
        Optional<String> shortOfTheEnd = doneShort(s);
        if (shortOfTheEnd.isPresent()) {
            note(new LabEvent.DoneShort(group, shortOfTheEnd.get(), kafka.where(s, topic), Timeouts.seconds(still())));
            done[0] = metered(s, committed);
            return true;
        }
        // a new member, or a process the supervisor restarted: its chance starts now (a member joining again, as in a rebalance
        // storm, is no progress: it would keep the wait alive for ever)
        List<MemberTimeouts> joined = kafka.witness().map(w -> w.timeouts(group)).orElse(List.of());
        boolean newMember = false;
        for (MemberTimeouts t : joined) {
            newMember |= members.add(t.memberId());
        }
        String pids = java.util.Arrays.stream(needed).map(i -> Long.toString(i.pid())).collect(java.util.stream.Collectors.joining(","));
        if (newMember || !pids.equals(processes)) {
            processes = pids;
            progressed();
        }
        if (inbox != null && System.nanoTime() - lastAppliedLook >= LabKafka.STILL.toNanos()) {
            lastAppliedLook = System.nanoTime();
            // read whether or not the group ever commits: a consumer that keeps its offsets in its own database commits none,
            // and is done when every effect is applied; until the group sent a commit, a target the subject has not made yet
            // is not readable yet (once it did, the subject's schema exists, and a target that cannot be read is an error)
            boolean uncommitted = committed == 0 && noCommitOnTheWire().orElse(true);
            // (read only once a commit timer would have fired: a consumer that commits is not read before its first commit)
            boolean tooSoon = uncommitted && System.nanoTime() - startedAt < ctx.settings().timeouts().commitTimer().toNanos();
            long missing = tooSoon || !ctx.target().targetReadable(inbox) ? -1
                    : uncommitted ? missingYet(s) : ctx.target().compare(topic, inbox, s).missing().count();
            if (missing >= 0) {
                // with nothing committed yet, a commit timer is given one more tick (every effect applied and nothing committed for
                // half the wait: a timer's interval) before the group counts as one that never commits
                appliedUncommittedSince = missing == 0 && uncommitted ? Math.min(appliedUncommittedSince, System.nanoTime()) : Long.MAX_VALUE;
                boolean timerDue = !uncommitted || System.nanoTime() - appliedUncommittedSince >= ctx.settings().timeouts().commitInterval().toNanos();
                if (missing == 0 && committed == committedAtAppliedLook && timerDue) {
                    ctx.step("  … " + group + ": every effect applied, its committed offsets still at " + committed + " (not at the log end)");
                    done[0] = metered(s, committed);
                    return true;
                }
                if (missing < fewestMissing) {
                    fewestMissing = missing;
                    progressed();
                }
                committedAtAppliedLook = committed;
            }
        }
        LabKafka.Patience p = kafka.patience(group);
        // judged once a process of this drain joined (a member an earlier phase saw says nothing of a process still starting)
        java.time.Instant since = java.util.Arrays.stream(needed).map(LabContext.Instance::started).max(java.util.Comparator.naturalOrder())
                .orElse(startedAtInstant);
        boolean judged = p.judged() && joined.stream().anyMatch(t -> !t.seen().isBefore(since));
        if (judged && !said) {
            said = true;
            say(p);
        }
        // a stage read from the group's offsets alone (no inbox) cannot follow a consumer that never commits one: twice its
        // commit timer after a process of this drain joined with not one commit, the stage cannot be judged (it did not stall)
        Duration unjudgeable = ctx.settings().timeouts().commitTimer().multipliedBy(2);
        if (inbox == null && committed == 0 && noCommitOnTheWire().orElse(false)
                && joined.stream().anyMatch(t -> !t.seen().isBefore(since) && t.seen().plus(unjudgeable).isBefore(java.time.Instant.now()))) {
            kafka.notDone.put(group, "the group got no offset commit in the " + Timeouts.seconds(unjudgeable) + " after its consumer joined: the lab "
                    + "follows this stage by the group's committed offsets alone, and cannot tell a consumer that keeps its positions itself "
                    + "(in its own database, or on a timer longer than the commit interval, LabSettings.commitInterval) from one that read "
                    + "nothing");
            return true;
        }
        if (System.nanoTime() - (judged ? lastProgress : startedAt) < (judged ? p.window() : ctx.settings().timeouts().drain()).toNanos()) {
            return false;
        }
        // a stage with no inbox (a replay, a re-send, a wire fault's first drain) needs the records read to the end: a live consumer that
        // stopped short of it past its own timeouts hung, and that is judged
        Optional<String> missing = !judged ? Optional.empty() : inbox == null ? Optional.of("records left unread past its committed offsets")
                : kafka.missingEffects(topic, inbox, s);
        if (missing.isPresent()) {
            throw kafka.stalled(group, topic, "during " + stage, missing.get(), s, p, lastProgressAt);
        }
        // nothing missing (every effect applied: at-least-once allows offsets short of the end), or no timeouts of its own
        kafka.notDone.put(group, judged ? "its committed offsets stood at " + kafka.where(s, topic) + " with no progress for " + Timeouts.seconds(p.window()) + " ("
                + p.basis() + "), every effect applied" : "not done within " + Timeouts.seconds(ctx.settings().timeouts().drain())
                + " (" + (p.judged() ? "the lab's drain timeout, LabSettings.drainTimeout: no process of this drain joined through the wire proxy yet"
                        : p.basis()) + ")");
        return true;
    }

    /**
     * Why a stage followed by offsets alone is done short of the end, read on the wire once its committed offsets stood still for a
     * commit interval; empty while it is not. Either every record to the end was delivered to the group from where the stage began,
     * and its committed offsets moved since: a consumer that commits each record's own offset (not the next one to read, as Kafka's
     * consumers do) stops one short of the end on every partition, and so does one whose last commit went missing; what it applied
     * is the oracle's to judge. Or every partition with records to read was fetched, and only above the group's committed offset
     * where the stage began: the consumer takes its positions from elsewhere than the group's offsets (its own database, a seek),
     * and will read nothing below them; what it skipped is the stage's verdict to judge.
     */
    private Optional<String> doneShort(OffsetSnapshot s) {
        if (fetches == null || fetches.unreadable() != null || System.nanoTime() - committedMovedAt < still().toNanos()) {
            return Optional.empty();
        }
        List<PartitionOffsets> mine = s.partitions().stream().filter(p -> p.topic().equals(topic)).toList();
        if (committedSeen != LabKafka.committedSum(from, topic)
                && mine.stream().allMatch(p -> fetches.deliveredAll(p.partition(), start(p), end(p)))) {
            return Optional.of("every record delivered to it from where the " + stage + " began (the broker's Fetch answers on the wire)");
        }
        Map<Integer, Long> lowest = fetches.lowestOffsets();
        // only above the group's committed offsets: a partition with none starts where auto.offset.reset says (latest: a skip the
        // subject checks judge as such, with the reset seen on the wire)
        List<PartitionOffsets> toRead = mine.stream().filter(p -> start(p) < end(p)).toList();
        if (!toRead.isEmpty() && toRead.stream().allMatch(p -> LabKafka.committed(from, topic, p.partition()) >= 0
                && lowest.containsKey(p.partition()) && lowest.get(p.partition()) > start(p))) {
            return Optional.of("it fetched " + topic + " only from " + lowest + ", above where the " + stage + " began ("
                    + toRead.stream().map(p -> p.partition() + "=" + start(p)).collect(java.util.stream.Collectors.joining(", ", "{", "}"))
                    + "): it takes its positions from elsewhere than the group's offsets");
        }
        return Optional.empty();
    }

    /** Where a partition's reading starts in this stage: its committed offset when the stage began, else its log start. */
    private long start(PartitionOffsets p) {
        return Math.max(p.logStart(), LabKafka.committed(from, topic, p.partition()));
    }

    /** Where a partition's records end: its log end, or its records' end before transaction markers. */
    private long end(PartitionOffsets p) {
        return recordEnds == null ? p.logEnd() : recordEnds.getOrDefault(p.partition(), p.logEnd());
    }

    /** How long committed offsets must stand still for a drain to end short of the end: a commit interval, 2 s at least. */
    private Duration still() {
        Duration interval = ctx.settings().timeouts().commitInterval();
        return interval.compareTo(LabKafka.STILL) > 0 ? interval : LabKafka.STILL;
    }

    /** Whether the group has sent no OffsetCommit on the wire; empty without a wire witness. */
    private Optional<Boolean> noCommitOnTheWire() {
        return kafka.witness().map(w -> w.commits(group).isEmpty());
    }

    /** How many records have no effect in the target now; -1 when it cannot be read yet (the subject has not made it). */
    private long missingYet(OffsetSnapshot s) {
        try {
            return ctx.target().compare(topic, inbox, s).missing().count();
        } catch (IllegalArgumentException | io.replaylab.oracle.OracleReadException notYet) {
            return -1;
        }
    }

    /** Said once the consumer's timeouts are known: how long the lab will wait for it and why (the start of its wait as judged). */
    private void say(LabKafka.Patience p) {
        note(new LabEvent.DrainPatience(stage, group, Timeouts.seconds(p.window()), p.basis()));
    }

    /** On the console, and in the evidence of the experiment the drain's processes run in. */
    private void note(LabEvent what) {
        ctx.step("  … " + what.summary());
        java.util.Arrays.stream(needed).map(LabContext.Instance::recorder).filter(r -> r != null && !r.finished()).findFirst()
                .ifPresent(r -> r.record(Source.here("harness"), what));
    }

    private void progressed() {
        lastProgress = System.nanoTime();
        lastProgressAt = java.time.Instant.now();
    }

    /** The group at its end, or null: committed at the log end (lag 0) or at the records' end. */
    private OffsetSnapshot atEnd() throws InterruptedException {
        if (recordEnds == null) {
            return kafka.ops().awaitDrained(group, topic, Duration.ZERO, x -> { }).orElse(null);
        }
        OffsetSnapshot s = kafka.ops().describe(group);
        return recordEnds.entrySet().stream().allMatch(e -> LabKafka.committed(s, topic, e.getKey()) >= e.getValue()) ? s : null;
    }

    /** Metered as {@code replaylab.drain} and {@code replaylab.drain.records}. */
    private OffsetSnapshot metered(OffsetSnapshot done, long committed) {
        started.stop(ctx.meters().timer("replaylab.drain", "stage", stage));
        ctx.meters().counter("replaylab.drain.records", "stage", stage).increment(committed - Math.max(0, firstCommitted));
        return done;
    }

    /**
     * Transaction markers take offsets of their own after the last record: a consumer that commits each record's next offset
     * stops below the log end, so a source that may hold transactions is drained at its records' end (null: at the log end).
     */
    private Map<Integer, Long> recordEnds(String topic) {
        return ctx.settings().source().mayHoldTransactions() ? TopicOracle.of(kafka.source(topic)).recordEnds() : null;
    }
}
