package io.replaylab.harness.barrier;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

import io.replaylab.barrier.wire.MemberTimeouts;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.LabKafka;
import io.replaylab.kafka.OffsetSnapshot;

/**
 * A's progress while the lab waits for it at a point: its group's committed offsets, its effects in the target, a member that
 * joins. Judged by A's own timeouts once it joined through the wire proxy: a consumer that hangs before the point (its poll loop
 * stuck on its first record, say) made no progress for longer than its poll interval and session timeout allow, with effects
 * missing, and that is what it did (FAIL), not a point the lab could not reach. One that goes on working without reaching the
 * point is still NOT_RUN at the barrier timeout. One wait's state: each wait makes its own.
 */
final class Stall {
    private static final Duration LOOK_EVERY = Duration.ofSeconds(2);

    private final LabContext ctx;
    private final Uncommitted where;
    private final LabContext.Instance a;
    private final String point;
    private final Set<String> members = new HashSet<>();
    private final long started = System.nanoTime();
    private long lastLook;
    private long committed = -1;
    private long missing = Long.MAX_VALUE;
    private long lastProgress = started;
    private long lastWork = started;
    private Instant lastProgressAt = Instant.now();
    private boolean joined;
    private boolean judged;

    Stall(LabContext ctx, Uncommitted where, LabContext.Instance a, String point) {
        this.ctx = ctx;
        this.where = where;
        this.a = a;
        this.point = point;
    }

    /**
     * One look, at most every 2 s: the reading it made (for the same wait's {@link Uncommitted.Looks}), or null when it made none.
     *
     * @throws io.replaylab.harness.lab.SubjectFailedException A made no progress, effects missing, for longer than its timeouts allow
     */
    Uncommitted.Seen look() {
        long now = System.nanoTime();
        if (now - lastLook < LOOK_EVERY.toNanos()) {
            return null;
        }
        lastLook = now;
        Uncommitted.Seen seen = where.read(ctx);
        if (seen == null) {
            return null;
        }
        OffsetSnapshot s = seen.offsets();
        long c = LabKafka.committedSum(s, where.topic());
        if (c > committed) {
            committed = c;
            worked();
        }
        boolean newMember = false;
        for (MemberTimeouts t : ctx.kafka().witness().map(w -> w.timeouts(where.group())).orElse(java.util.List.of())) {
            newMember |= members.add(t.memberId());
            joined |= !t.seen().isBefore(a.started()); // a member of the process now running: its own timeouts
        }
        if (newMember) {
            progressed(); // its chance starts when it joins
        }
        long m = seen.compared() == null ? Long.MAX_VALUE : seen.compared().missing().count();
        if (m < missing) {
            missing = m;
            worked();
        }
        LabKafka.Patience p = ctx.kafka().patience(where.group());
        judged = joined && p.judged();
        if (judged && m > 0 && now - lastProgress >= p.window().toNanos()) {
            String left = ctx.kafka().missingEffects(where.topic(), where.inbox(), s).orElse("effects missing");
            throw ctx.kafka().stalled(where.group(), where.topic(), "before reaching " + point, left, s, p, lastProgressAt);
        }
        return seen;
    }

    /** The longest a wait with a stall watch may take: the barrier timeout, and then at most the longest patience. */
    static Duration longest(LabContext ctx) {
        return LabKafka.LONGEST_PATIENCE.plus(ctx.settings().timeouts().barrier());
    }

    /**
     * Whether the wait is over: the barrier timeout passed, and A is not being waited out (its timeouts known, effects missing,
     * it applied and committed nothing at the last looks); an A with every effect applied has nothing left to stall on.
     */
    boolean over() {
        long now = System.nanoTime();
        boolean waitingOut = judged && missing > 0 && now - lastWork >= LOOK_EVERY.multipliedBy(2).toNanos();
        return now - started >= ctx.settings().timeouts().barrier().toNanos() && !waitingOut;
    }

    /** A new effect or commit: work done, and progress. */
    private void worked() {
        lastWork = System.nanoTime();
        progressed();
    }

    private void progressed() {
        lastProgress = System.nanoTime();
        lastProgressAt = Instant.now();
    }
}
