package io.replaylab.evidence;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
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

    /** One example of every payload type of evidence-core; the round-trip test fails when a new type has none. */
    static List<Payload> everyPayload() {
        return List.of(
                new Payload.ProcessStarted("A", 1234, List.of("java", "-jar", "x.jar")),
                new Payload.ProcessStopped("A", 1234, 0, "SIGTERM"),
                new Payload.Delivered("A", 0, 10, 0),
                new Payload.Note("replay started"),
                new Payload.Matrix("schedule", "point", List.of("before-offset-commit"), List.of("hold", "crash"),
                        List.of(new Payload.MatrixCell("before-offset-commit", "hold", "PASS", "schedules.before-offset-commit.hold", "held", null),
                                new Payload.MatrixCell("before-offset-commit", "crash", "NOT_SELECTED", null, "killed", "not asked for"))));
    }

    static final String LIMITATION = "One worker pair and one store: this says nothing about a store that is replicated.";

    static int knownRunEventCount() {
        return 7;
    }

    /** Records a small but complete handoff-like run of another lab's kinds ({@link SampleLab}) into {@code dir} and returns the recorder (saved). */
    static RunRecorder knownRun(Path dir) {
        AtomicLong nanos = new AtomicLong();
        RunRecorder run = RunRecorder.start(dir, "run-golden", new TickingClock(), () -> nanos.addAndGet(1_000_000));
        ExperimentRecorder e = run.experiment("rebalance", "R7", "R8", "R9");
        e.environment("kafka-clients", "4.1.2").environment("bootstrap", "127.0.0.1:9092");
        Source harness = Source.of("harness", 100, "main");
        Source a = Source.of("consumer-A", 201, "main");
        Source b = Source.of("consumer-B", 202, "main");
        e.record(a, new SampleLab.Took("A", List.of("item-0", "item-1"), "assignment log"));
        e.record(harness, new Payload.Note("pause armed at write"));
        Event reached = e.record(a, new SampleLab.Paused("write", "main"));
        e.record(harness, new Payload.Note("the store holds item-0"));
        e.record(b, new SampleLab.Took("B", List.of("item-0", "item-1"), "group description"));
        e.record(a, new SampleLab.Resumed("write", 700));
        Event rejected = e.record(a, new SampleLab.Refused("A", "not the owner any more"));
        e.check(Check.pass("stale write refused", "R9", "REFUSED", "REFUSED"));
        e.check(Check.pass("one effect per message", "R12", "0 duplicated", "0 duplicated"));
        e.limitation(LIMITATION);
        e.artifact("logs/A.assignments.jsonl", "assignment log of A");
        e.finish(Outcome.judge(e.confirmFault("stale write refused after handoff (paused at " + reached.seq() + ")", rejected), e.checks()));
        return run;
    }
}
