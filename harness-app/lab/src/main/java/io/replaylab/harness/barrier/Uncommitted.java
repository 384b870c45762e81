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
 * {@link #GRACE}. Such a consumer keeps its positions outside the group's offsets (in its own database,
 * as Kafka's "storing offsets outside Kafka" does, or nowhere), so a point that waits for its offset
 * commit would wait out the barrier timeout for nothing.
 */
record Uncommitted(String group, String topic, String inbox) {
    /** {@link Timeouts#COMMIT_TIMER}: a consumer that commits on its client's timer has committed by then. */
    static final Duration GRACE = Timeouts.COMMIT_TIMER;
    private static final Duration LOOK_EVERY = Duration.ofSeconds(2);

    /** A's group, topic and inbox namespace, as the arming names them. */
    static Uncommitted of(Technology.Arming a) {
        return new Uncommitted(a.group(), a.spec().values().get("topic"), a.spec().values().get("namespace"));
    }

    /** One wait's looks: the first once half of {@link #GRACE} has passed (a consumer that commits has by then), then every 2 s. */
    Looks looks(LabContext ctx) {
        return new Looks(ctx);
    }

    /** The state of one wait (not shared: each wait makes its own). */
    final class Looks {
        private final LabContext ctx;
        private long lastLook;
        private long appliedSince = -1;
        private long records;

        private Looks(LabContext ctx) {
            this.ctx = ctx;
            // each look reads the topic and the target: none while a consumer that commits is still on its way to its first commit
            this.lastLook = System.nanoTime() + GRACE.dividedBy(2).toNanos() - LOOK_EVERY.toNanos();
        }

        /** Why A will never commit an offset of its group, once it has been so for {@link #GRACE}; empty until then. */
        Optional<String> look() {
            long now = System.nanoTime();
            if (now - lastLook < LOOK_EVERY.toNanos()) {
                return Optional.empty();
            }
            lastLook = now;
            if (!appliedWithoutCommit()) {
                appliedSince = -1;
                return Optional.empty();
            }
            if (appliedSince < 0) {
                appliedSince = now;
            }
            if (now - appliedSince < GRACE.toNanos()) {
                return Optional.empty();
            }
            return Optional.of("A applied the effect of every record on " + topic + " (" + records + ") and sent no OffsetCommit of group " + group
                    + " in the " + GRACE.toSeconds() + " s after: its positions are not the group's offsets (it keeps them in its own "
                    + "database, or nowhere; or it commits them on a timer longer than that)");
        }

        private boolean appliedWithoutCommit() {
            try {
                if (ctx.kafka().witness().map(w -> !w.commits(group).isEmpty()).orElse(false)) {
                    return false;
                }
                OffsetSnapshot s = ctx.kafka().ops().describe(group);
                if (s.partitions().stream().anyMatch(PartitionOffsets::hasCommitted) || !ctx.target().targetReadable(inbox)) {
                    return false;
                }
                Comparison c = ctx.target().compare(topic, inbox, s);
                records = c.sourceRecords();
                return records > 0 && c.missing().count() == 0;
            } catch (RuntimeException unreadable) { // a describe or a read that failed says nothing of A: look again next time
                return false;
            }
        }
    }
}
