package io.replaylab.evidence;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** A known run with a clock that ticks 100 ms per reading, so its reports are reproducible. */
final class SampleRuns {
    private SampleRuns() {
    }

    static final class TickingClock extends Clock {
        private final AtomicLong ms = new AtomicLong(Instant.parse("2026-11-29T12:00:00Z").toEpochMilli());

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(ms.getAndAdd(100));
        }
    }

    /** One example of every payload type; the round-trip test fails when a new type has none. */
    static List<Payload> everyPayload() {
        return List.of(
                new Payload.OffsetsSnapshot("before reset", "g1", "Empty", 0,
                        List.of(new Payload.PartitionPosition("t", 0, 10, 0, 10, null))),
                new Payload.ResetPlanned("plan-1", "g1", "to-earliest", true, null, List.of(new Payload.PlannedOffset("t", 0, 10, 0, null))),
                new Payload.ResetRefused("g1", List.of("group is Stable with 1 member")),
                new Payload.BarrierArmed("commitSync", "thread", "KafkaConsumer#commitSync"),
                new Payload.BarrierReached("commitSync", "main", Map.of("offsets", "t-0=5"), List.of("KafkaConsumer.commitSync")),
                new Payload.BarrierReleased("commitSync", "controller", 9000),
                new Payload.BarrierExpired("commitSync", 30000),
                new Payload.DbCommitSeen("ns/g1", "ns-4", "t", 0, 4, "A"),
                new Payload.AssignmentChanged("B", "assigned", List.of("t-0", "t-1"), "3", "group description"),
                new Payload.CommitAccepted("A", Map.of("t-0", 5L)),
                new Payload.CommitRejected("A", Map.of("t-0", 5L), "org.apache.kafka.clients.consumer.CommitFailedException", "kicked out"),
                new Payload.CommitNotDelivered("A", Map.of("t-0", 5L), "the client closed the connection carrying its held OffsetCommit"),
                new Payload.CommitWitnessed("A", "g1", "m-1", 3, Map.of("t-0", 5L), true, "ANSWERED", Map.of("t-0", "ILLEGAL_GENERATION")),
                new Payload.ProcessStarted("A", 1234, List.of("java", "-jar", "x.jar")),
                new Payload.ProcessStopped("A", 1234, 0, "SIGTERM"),
                new Payload.OracleVerdict("PASS", Map.of("missing", 0L, "duplicated", 0L), "", java.time.Instant.parse("2026-01-02T03:04:05Z"),
                        Map.of("t-0", 5L, "t-1", 7L)),
                new Payload.Delivered("A", 0, 10, 0),
                new Payload.Note("replay started"),
                new Payload.Matrix("schedule", "point", List.of("before-offset-commit"), List.of("hold", "crash"),
                        List.of(new Payload.MatrixCell("before-offset-commit", "hold", "PASS", "schedules.before-offset-commit.hold", "held", null),
                                new Payload.MatrixCell("before-offset-commit", "crash", "NOT_SELECTED", null, "killed", "not asked for"))));
    }

    static int knownRunEventCount() {
        return 7;
    }

    /** Records a small but complete rebalance-like run into {@code dir} and returns the recorder (saved). */
    static RunRecorder knownRun(Path dir) {
        AtomicLong nanos = new AtomicLong();
        RunRecorder run = RunRecorder.start(dir, "run-golden", new TickingClock(), () -> nanos.addAndGet(1_000_000));
        ExperimentRecorder e = run.experiment("rebalance", "R7", "R8", "R9");
        e.environment("kafka-clients", "4.1.2").environment("bootstrap", "127.0.0.1:9092");
        Source harness = Source.of("harness", 100, "main");
        Source a = Source.of("consumer-A", 201, "main");
        Source b = Source.of("consumer-B", 202, "main");
        e.record(a, new Payload.AssignmentChanged("A", "assigned", List.of("t-0", "t-1"), "1", "assignment log"));
        e.record(harness, new Payload.BarrierArmed("commitSync", "thread", "KafkaConsumer#commitSync"));
        Event reached = e.record(a, new Payload.BarrierReached("commitSync", "main", Map.of("offsets", "t-0=1"), List.of()));
        e.record(harness, new Payload.DbCommitSeen("ns/g1", "ns-0", "t", 0, 0, "A"));
        e.record(b, new Payload.AssignmentChanged("B", "assigned", List.of("t-0", "t-1"), "2", "group description"));
        e.record(a, new Payload.BarrierReleased("commitSync", "controller", 700));
        Event rejected = e.record(a, new Payload.CommitRejected("A", Map.of("t-0", 1L),
                "org.apache.kafka.clients.consumer.CommitFailedException", "not part of an active group"));
        e.check(Check.pass("stale commit rejected", "R9", "REJECTED", "REJECTED"));
        e.check(Check.pass("one effect per message", "R12", "0 duplicated", "0 duplicated"));
        e.limitation(Limitations.SINGLE_BROKER_SINGLE_DB);
        e.artifact("logs/A.assignments.jsonl", "assignment log of A");
        e.finish(Outcome.judge(e.confirmFault("stale commit rejected after handoff (held at " + reached.seq() + ")", rejected), e.checks()));
        return run;
    }
}
