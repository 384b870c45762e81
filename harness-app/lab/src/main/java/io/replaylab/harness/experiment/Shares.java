package io.replaylab.harness.experiment;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Outcome;
import io.replaylab.harness.lab.LabContext;
import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.KafkaOpsException;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.evidence.process.Poll;

/** What the share-group experiments (KIP-932) have in common: their subject, their group's configs, its members leaving. */
final class Shares {
    /** An external broker's floor for a group's record lock, by default ({@code group.share.min.record.lock.duration.ms}). */
    static final Duration BROKER_DEFAULT_MIN_LOCK = Duration.ofSeconds(15);

    private Shares() {
    }

    /**
     * A share experiment's start: the run's environment, the share subject and the group type in the evidence; empty when
     * there is no share subject (the experiment is then {@link #noShareSubject()}).
     */
    static Optional<Subject> begin(LabContext ctx, LabNamespace ns, ExperimentRecorder e) {
        Experiments.environment(ctx, e, ns);
        Optional<Subject> share = ctx.settings().shareSubject();
        share.ifPresent(s -> e.environment("subject", s.description()).environment("group type", "share (KIP-932)"));
        return share;
    }

    static Outcome noShareSubject() {
        return Outcome.notRun("no share consumer to test: give the lab one (LabSettings.shareSubject, e.g. the reference subject's "
                + "ReferenceSubject.shareConsume())");
    }

    /**
     * The group starts at the earliest record (a share group starts at the latest, and the lab produces first) and its
     * records are locked for {@code lock}; a broker whose floor is higher gets its default floor, said in the evidence.
     */
    static Duration configureGroup(LabContext ctx, ExperimentRecorder e, String group, Duration lock) {
        try {
            ctx.kafka().ops().setGroupConfigs(group, Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms",
                    Long.toString(lock.toMillis())));
            e.environment("record lock", lock.toMillis() + " ms (the group's share.record.lock.duration.ms)");
            return lock;
        } catch (KafkaOpsException refused) {
            ctx.kafka().ops().setGroupConfigs(group, Map.of("share.auto.offset.reset", "earliest", "share.record.lock.duration.ms",
                    Long.toString(BROKER_DEFAULT_MIN_LOCK.toMillis())));
            e.environment("record lock", BROKER_DEFAULT_MIN_LOCK.toMillis() + " ms: the broker refused " + lock.toMillis() + " ms ("
                    + refused.getMessage() + "); its group.share.min.record.lock.duration.ms is above it");
            return BROKER_DEFAULT_MIN_LOCK;
        }
    }

    /** Waits until the share group has no member; its last description either way. */
    static OffsetSnapshot awaitNoMember(LabContext ctx, String group, Duration timeout) throws InterruptedException {
        return Poll.every(Duration.ofMillis(250)).upTo(timeout).until(() -> ctx.kafka().ops().describeShareGroup(group), s -> s.members().isEmpty());
    }
}
