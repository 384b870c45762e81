package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Experiments recorded from threads of their own while the run is saved: {@code save()} finishes
 * every open experiment under the run's lock while a recording thread holds its experiment's lock
 * and appends to the journal. Both orders must be safe (they once were not: a deadlock).
 */
class SaveWhileRecordingTest {
    @TempDir
    Path dir;

    @Test
    void savingARunWhileItsExperimentsRecordFromOtherThreadsNeverDeadlocksAndLosesNoRecordedEvent() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (int round = 0; round < 40; round++) {
                try (RunRecorder run = RunRecorder.start(dir.resolve("r" + round), "run-" + round)) {
                    ExperimentRecorder a = run.experiment("a");
                    ExperimentRecorder b = run.experiment("b");
                    CountDownLatch recording = new CountDownLatch(2);
                    AtomicLong recorded = new AtomicLong();
                    Thread[] threads = {recorder(a, recording, recorded), recorder(b, recording, recorded)};
                    for (Thread t : threads) {
                        t.start();
                    }
                    recording.await();
                    SavedProtocol saved = run.save();
                    for (Thread t : threads) {
                        t.join();
                    }
                    long inEvidence = saved.evidence().experiments().stream().mapToLong(x -> x.events().size()).sum();
                    assertThat(inEvidence).as("every event recorded before the experiments were finished").isEqualTo(recorded.get());
                    assertThat(saved.evidence().experiments()).allSatisfy(x -> assertThat(x.outcome().reason())
                            .isEqualTo("experiment ended without an outcome"));
                }
            }
        });
    }

    /** Records notes until its experiment is finished by the save. */
    private static Thread recorder(ExperimentRecorder e, CountDownLatch recording, AtomicLong recorded) {
        return new Thread(() -> {
            recording.countDown();
            try {
                while (true) {
                    e.record(Source.here("test"), new Payload.Note("busy"));
                    recorded.incrementAndGet();
                }
            } catch (IllegalStateException finished) {
                // the save finished the experiment: nothing more can be recorded
            }
        });
    }
}
