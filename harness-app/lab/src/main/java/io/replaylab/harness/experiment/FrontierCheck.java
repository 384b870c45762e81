package io.replaylab.harness.experiment;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import io.replaylab.barrier.CommitOffset;
import io.replaylab.barrier.wire.CommitCheck;
import io.replaylab.evidence.Check;
import io.replaylab.evidence.Event;
import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.Source;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.oracle.SourceIndex;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TopicOracle;

/**
 * R11 as it happens: at each OffsetCommit of the group, before the broker gets it, which records
 * the commit now covers (offsets from where that partition's last commit stood up to the new
 * offset) have no effect in the target yet. A commit that covers such a record is "ahead of the
 * database": recorded with its instance, partition, offset and the first ids without an effect.
 * When armed for an instance, its first such commit kills it there (the commit then goes on to the
 * broker, as one already sent would) and the ids are asked again once it is dead: only those still
 * without an effect count as lost. For a share group, each acknowledgement that ACCEPTs records is
 * checked the same way, for exactly the records it ACCEPTs ("acknowledgement ahead of the database").
 */
final class FrontierCheck implements CommitCheck {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(FrontierCheck.class);
    /** How many checked commits (or share acknowledgements) that covered a record a PASS needs. */
    static final int ENOUGH_COMMITS = 3;
    private static final int SHOWN = 5;
    /** Commits ahead listed in the evidence one by one; the rest are counted (a commit-first consumer is ahead at every commit). */
    static final int LISTED = 10;

    /** A commit that covered records without an effect, and those records (still without one after a kill, when it killed). */
    record Ahead(String instance, int partition, long offset, List<SourceIndex.Entry> uncovered, Event event) {
    }

    private final ExperimentRecorder e;
    private final String topic;
    private final SourceIndex index;
    private final Supplier<Target> target;
    /** The experiment's instances, the newest first: whom a commit can be attributed to. */
    private final Supplier<List<LabContext.Instance>> instances;
    private final Map<Integer, Long> checkedTo = new HashMap<>();
    private final List<Ahead> ahead = new ArrayList<>();
    private final List<String> unchecked = new ArrayList<>();
    private int commits;
    private int covering;
    private Optional<String> blocking;
    private String crashInstance;
    private Function<LabContext.Instance, Event> crash;
    private Ahead killedAt;
    /** What the commit the armed instance was killed at covered with no effect when it was sent. */
    private String killedAhead;
    private Event killEvent;

    FrontierCheck(ExperimentRecorder e, String topic, SourceIndex index, Supplier<Target> target,
            Supplier<List<LabContext.Instance>> instances) {
        this.e = e;
        this.instances = instances;
        this.topic = topic;
        this.index = index;
        this.target = target;
    }

    /**
     * The run's check of {@code topic} against the target's inbox namespace {@code inbox}, commits attributed to the
     * instances the run started.
     */
    static FrontierCheck of(LabContext ctx, ExperimentRecorder e, String topic, String inbox) {
        return new FrontierCheck(e, topic, TopicOracle.of(ctx.kafka().source(topic)).index(), () -> ctx.target().inbox(inbox),
                () -> ctx.subjects().started());
    }

    /** Kills {@code instance} at its first commit ahead of the database, with {@code how} (which records the kill). */
    synchronized void crashAtFirstAhead(String instance, Function<LabContext.Instance, Event> how) {
        this.crashInstance = instance;
        this.crash = how;
    }

    /** No kill from now on (commits are still checked and listed); the commit the instance was killed at, if it was. */
    synchronized Optional<Ahead> disarm() {
        crash = null;
        return Optional.ofNullable(killedAt);
    }

    /** Checks a commit; {@link After#SENDER_STOPPED} when its sender was killed at it, so that no barrier holds it from the broker. */
    @Override
    public synchronized After check(Pending c) {
        boolean armed = killedAt == null;
        look(c);
        return armed && killedAt != null ? After.SENDER_STOPPED : After.GOES_ON;
    }

    private void look(Pending c) {
        commits++;
        if (blocking == null) {
            try {
                blocking = target.get().readsMayBlockWriters();
            } catch (RuntimeException x) {
                unchecked.add(c.connection() + " " + c.offsetsText() + ": the target could not be read yet (" + x.getMessage() + ")");
                return;
            }
        }
        if (blocking.isPresent()) {
            return; // no read while the subject may be writing (said once, by the experiment)
        }
        if (c.kind() == CommitCheck.Kind.ACKNOWLEDGEMENT) {
            acknowledged(c);
            return;
        }
        for (CommitOffset o : c.offsets()) {
            if (!topic.equals(o.topic())) {
                continue;
            }
            long from = checkedTo.getOrDefault(o.partition(), 0L);
            if (o.offset() <= from) {
                checkedTo.put(o.partition(), o.offset()); // nothing new covered (a commit again, or back after a reset)
                continue;
            }
            List<SourceIndex.Entry> without;
            try {
                List<SourceIndex.Entry> covered = index.between(o.partition(), from, o.offset());
                if (covered.isEmpty()) {
                    checkedTo.put(o.partition(), o.offset());
                    continue;
                }
                without = without(covered);
            } catch (RuntimeException x) {
                // the range stays unchecked: the next commit of the partition covers it again
                unchecked.add(c.connection() + " " + c.offsetsText() + ": the lab's read of the source or the target failed (" + x.getMessage() + ")");
                continue;
            }
            checkedTo.put(o.partition(), o.offset());
            covering++;
            if (!without.isEmpty()) {
                aheadOf(c, o, without);
            }
        }
    }

    /**
     * A share group's acknowledgement: the records it ACCEPTs, each of which must have its effect already (a share group has no
     * frontier: each record is acknowledged on its own, so the check is of exactly those records, per partition).
     */
    private void acknowledged(Pending c) {
        Map<Integer, java.util.TreeSet<Long>> accepted = new java.util.TreeMap<>();
        c.offsets().stream().filter(o -> topic.equals(o.topic()))
                .forEach(o -> accepted.computeIfAbsent(o.partition(), k -> new java.util.TreeSet<>()).add(o.offset()));
        accepted.forEach((partition, offsets) -> {
            List<SourceIndex.Entry> without;
            try {
                List<SourceIndex.Entry> covered = index.between(partition, offsets.first(), offsets.last() + 1).stream()
                        .filter(x -> offsets.contains(x.offset())).toList();
                if (covered.isEmpty()) {
                    return; // no readable record among them (a quarantined poison one, say): no effect to ask for
                }
                without = without(covered);
            } catch (RuntimeException x) {
                unchecked.add(c.connection() + " " + c.offsetsText() + ": the lab's read of the source or the target failed (" + x.getMessage() + ")");
                return;
            }
            covering++;
            if (!without.isEmpty()) {
                aheadOf(c, new CommitOffset(topic, partition, offsets.last()), without);
            }
        });
    }

    private List<SourceIndex.Entry> without(List<SourceIndex.Entry> covered) {
        Set<String> with = target.get().withEffects(covered.stream().map(SourceIndex.Entry::id).toList());
        return covered.stream().filter(x -> !with.contains(x.id())).toList();
    }

    private void aheadOf(Pending c, CommitOffset o, List<SourceIndex.Entry> without) {
        Optional<LabContext.Instance> who = attribute(c);
        String name = who.map(LabContext.Instance::name).orElse(crashInstance != null && crashInstance.equals(c.clientId()) ? crashInstance + " (by its client id; "
                + "its process was not known yet)" : "an unknown client (client id '" + c.clientId() + "', port " + c.clientPort() + ")");
        String text = c.kind() == CommitCheck.Kind.ACKNOWLEDGEMENT
                ? "acknowledgement ahead of the database: " + name + " (member " + c.memberId() + ") ACCEPTed " + without.size() + " record(s) of "
                        + o.topic() + "-" + o.partition() + " with no effect in the target yet: " + shown(without)
                : "commit ahead of the database: " + name + " (member " + c.memberId() + ") committed " + o.topic() + "-" + o.partition()
                        + " at " + o.offset() + ", covering " + without.size() + " record(s) with no effect in the target yet: " + shown(without);
        log.info("{}", text);
        boolean kills = killedAt == null && crash != null && who.isPresent() && who.get().name().equals(crashInstance);
        // a commit after the experiment's end (a passive listing) is in the log only: the evidence is closed
        Event ev = ahead.size() < LISTED || kills ? e.recordIfOpen(Source.here("harness"), new Payload.Note(text
                + (ahead.size() == LISTED - 1 ? " (further ones ahead are counted, not listed)" : ""))).orElse(null) : null;
        if (e.finished()) {
            return;
        }
        Ahead a = new Ahead(name, o.partition(), o.offset(), without, ev);
        ahead.add(a);
        if (kills) {
            kill(who.get(), name, o, without, c.kind().word());
        }
    }

    /** Kills {@code i} at its commit {@code o} ahead of the database, and records what of it still had no effect once it was dead. */
    private void kill(LabContext.Instance i, String name, CommitOffset o, List<SourceIndex.Entry> without, String what) {
        killEvent = crash.apply(i);
        List<SourceIndex.Entry> still;
        try {
            still = without(without);
        } catch (RuntimeException x) {
            still = without; // cannot tell: the judge's own read decides
        }
        Event after = e.record(Source.here("harness"), new Payload.Note(name + " killed at that " + what + "; asked again once it was dead, "
                + (still.isEmpty() ? "every one of those records has its effect now (it landed before the kill)"
                        : still.size() + " record(s) still have no effect: " + shown(still))
                + "; the " + what + " goes on to the broker, as one already sent would"));
        killedAt = new Ahead(name, o.partition(), o.offset(), still, after);
        // what became of those records after the kill is the note's; the finding is the commit itself
        killedAhead = name + " sent " + (what.equals("commit") ? "a commit of " + o.topic() + "-" + o.partition() + " at " + o.offset()
                : "an acknowledgement of " + o.topic() + "-" + o.partition()) + " while " + without.size() + " record(s) it covered had no effect "
                + "in the target yet: " + shown(without) + ": a crash there loses them";
    }

    private Optional<LabContext.Instance> attribute(Pending c) {
        List<LabContext.Instance> known = instances.get();
        for (LabContext.Instance i : known) {
            if (i.name().equals(c.clientId()) && i.process().isAlive()) {
                return Optional.of(i);
            }
        }
        for (LabContext.Instance i : known) {
            if (i.process().isAlive() && i.process().ownsTcpPort(c.clientPort())) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    private static String shown(List<SourceIndex.Entry> entries) {
        return entries.subList(0, Math.min(SHOWN, entries.size())) + (entries.size() > SHOWN ? " and " + (entries.size() - SHOWN) + " more" : "");
    }

    /**
     * What the check saw so far: commits of the group, those that covered records and were checked, those ahead of the
     * database, those the lab could not check (a failed read), and why it did not read at all (a target a read could block).
     */
    record Tally(int commits, int covering, List<Ahead> ahead, List<String> unchecked, Optional<String> blocking) {
    }

    synchronized Tally tally() {
        return new Tally(commits, covering, List.copyOf(ahead), List.copyOf(unchecked), blocking == null ? Optional.empty() : blocking);
    }

    /**
     * R11 as the check saw it as each commit was sent (each acknowledgement: {@code kind}): none of the armed instance's covered a
     * record whose effect was not in the target yet. It FAILs at the one the instance was killed at even when those effects landed
     * before the kill: the consumer let its offset run ahead of its database, and only the timing saved the records.
     */
    synchronized Check noneAhead(CommitCheck.Kind kind) {
        String name = noneAheadName(kind);
        String expected = "every record a " + kind.word() + " covers has its effect in the target when the " + kind.word() + " is sent";
        return killedAhead != null ? Check.fail(name, "R11", expected, killedAhead)
                : Check.pass(name, "R11", expected, commits + " " + kind.word() + "(s) seen, " + covering + " covered records, none ahead");
    }

    /** The name of {@link #noneAhead}'s check: "no commit ahead of the database", "no acknowledgement ahead of the database". */
    static String noneAheadName(CommitCheck.Kind kind) {
        return "no " + kind.word() + " ahead of the database";
    }

    /** The commit the armed instance was killed at, with the records still without an effect after the kill. */
    synchronized Optional<Ahead> killedAt() {
        return Optional.ofNullable(killedAt);
    }

    synchronized Event killEvent() {
        return killEvent;
    }
}
