package io.replaylab.harness.barrier;

import java.time.Duration;
import java.util.Optional;

import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.Timeouts;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.oracle.Comparison;

/**
 * What shows that A will never commit an offset of its group: no committed offset and no OffsetCommit
 * of the group on the wire while every record on the topic has its effect in the target, and so for
 * {@link Timeouts#commitTimer()} (twice the subject's commit interval). Such a consumer keeps its
 * positions outside the group's offsets (in its own database, as Kafka's "storing offsets outside
 * Kafka" does, or nowhere), so a point that waits for its offset commit would wait out the barrier
 * timeout for nothing.
 */
record Uncommitted(String group, String topic, String inbox, boolean throughTheWire) {
    private static final Duration LOOK_EVERY = Duration.ofSeconds(2);

    /** A's group, topic and inbox namespace, as the arming names them. */
    static Uncommitted of(Technology.Arming a) {
        return new Uncommitted(a.group(), a.spec().values().get("topic"), a.spec().values().get("namespace"), false);
    }

    /** The same, for a point held on the wire: A's commits must pass the run's wire proxy ({@link Looks#roundTheWire}). */
    Uncommitted onTheWire() {
        return new Uncommitted(group, topic, inbox, true);
    }

    /** One wait's looks: the first after one commit interval (a consumer that commits has by then), then every 2 s at most. */
    Looks looks(LabContext ctx) {
        return new Looks(ctx);
    }

    /**
     * One reading of A's group and target: the group's offsets, and the topic compared with the target (null: the target could not
     * be read yet). A wait that reads them for its stall watch ({@link Stall}) hands its reading to its looks, which then read
     * nothing of their own.
     */
    record Seen(OffsetSnapshot offsets, Comparison compared) {
    }

    /** A reading now: null when the group could not be described (a describe that failed says nothing of A). */
    Seen read(LabContext ctx) {
        OffsetSnapshot s;
        try {
            s = ctx.kafka().ops().describe(group);
        } catch (RuntimeException unreadable) {
            return null;
        }
        try {
            return new Seen(s, ctx.target().targetReadable(inbox) ? ctx.target().compare(topic, inbox, s) : null);
        } catch (RuntimeException unreadable) { // its tables not made yet, say: nothing applied
            return new Seen(s, null);
        }
    }

    /** The state of one wait (not shared: each wait makes its own). */
    final class Looks {
        private final LabContext ctx;
        private final Duration grace;
        private final long lookEvery;
        private long lastLook;
        private long appliedSince = -1;
        private long records;

        private Looks(LabContext ctx) {
            this.ctx = ctx;
            this.grace = ctx.settings().timeouts().commitTimer();
            Duration interval = ctx.settings().timeouts().commitInterval();
            this.lookEvery = Math.min(LOOK_EVERY.toNanos(), interval.toNanos());
            // each look reads the topic and the target: none while a consumer that commits is still on its way to its first commit
            this.lastLook = System.nanoTime() + interval.toNanos() - lookEvery;
        }

        /** Why A will never commit an offset of its group, once it has been so for twice its commit interval; empty until then. */
        Optional<String> look() {
            long now = System.nanoTime();
            if (now - lastLook < lookEvery) {
                return Optional.empty();
            }
            lastLook = now;
            return look(committedOnTheWire() ? null : read(ctx));
        }

        /** As {@link #look()}, judging a reading another watcher of the same wait made ({@code seen}; null: none this time). */
        Optional<String> look(Seen seen) {
            if (seen == null) {
                return Optional.empty();
            }
            long now = System.nanoTime();
            if (!appliedWithoutCommit(seen)) {
                appliedSince = -1;
                return Optional.empty();
            }
            if (appliedSince < 0) {
                appliedSince = now;
            }
            if (now - appliedSince < grace.toNanos()) {
                return Optional.empty();
            }
            return Optional.of("A applied the effect of every record on " + topic + " (" + records + ") and sent no OffsetCommit of group " + group
                    + " in the " + Timeouts.seconds(grace) + " after: its positions are not the group's offsets (it keeps them in its own "
                    + "database, or nowhere; or it commits them on a timer longer than the commit interval, LabSettings.commitInterval)");
        }

        /**
         * For a point held on the wire: why A's commits do not pass the run's wire proxy, when its group has committed offsets that no
         * OffsetCommit through it made (A was given some other address than {@code {bootstrap}}); empty otherwise.
         */
        Optional<String> roundTheWire(Seen seen) {
            if (!throughTheWire || seen == null || ctx.kafka().wire().isEmpty() || committedOnTheWire()) {
                return Optional.empty();
            }
            return Held.committed(seen.offsets())
                    .map(committed -> ctx.kafka().wire().get().wentRound("A's group " + group + " has committed offsets (" + committed + ")"));
        }

        private boolean committedOnTheWire() {
            return ctx.kafka().witness().map(w -> !w.commits(group).isEmpty()).orElse(false);
        }

        private boolean appliedWithoutCommit(Seen seen) {
            if (committedOnTheWire() || seen.offsets().partitions().stream().anyMatch(PartitionOffsets::hasCommitted) || seen.compared() == null) {
                return false;
            }
            records = seen.compared().sourceRecords();
            return records > 0 && seen.compared().missing().count() == 0;
        }
    }
}
