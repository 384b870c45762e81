package io.replaylab.harness.subject;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.errors.WakeupException;

/**
 * SIGTERM for a reference subject: the shutdown hook wakes the consumer, lets the loop finish the
 * record in hand and leave the group (up to 10 s), then exits with the loop's own code (0 on a
 * clean stop). A normal end of the loop is not a signal and the hook does nothing.
 */
final class GracefulStop {
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile boolean requested;
    private volatile int exitCode;
    private volatile Runnable wakeup;

    static GracefulStop install() {
        GracefulStop s = new GracefulStop();
        Runtime.getRuntime().addShutdownHook(new Thread(s::onSignal, "subject-stop"));
        return s;
    }

    private void onSignal() {
        if (done.getCount() == 0) {
            return;
        }
        requested = true;
        Runnable w = wakeup;
        if (w != null) {
            w.run();
        }
        try {
            boolean finished = done.await(10, TimeUnit.SECONDS);
            Runtime.getRuntime().halt(finished ? exitCode : 1);
        } catch (InterruptedException ignored) {
            Thread.currentThread().interrupt();
        }
    }

    /** How a signal wakes the consumer (its {@code wakeup}, a consumer's or a share consumer's). */
    void watch(Runnable wakeup) {
        this.wakeup = wakeup;
    }

    /**
     * The watched consumer's next records ({@code poll}: its poll, a consumer's or a share consumer's); none once a stop
     * signal woke it, and then {@link #requested()} is already true, so the loop leaves.
     */
    <K, V> ConsumerRecords<K, V> poll(java.util.function.Function<Duration, ConsumerRecords<K, V>> poll) {
        try {
            return poll.apply(Duration.ofMillis(200));
        } catch (WakeupException stopping) {
            return ConsumerRecords.empty();
        }
    }

    /** Whether a stop signal came: the loop finishes the record in hand and leaves. */
    boolean requested() {
        return requested;
    }

    /** The loop has ended with this exit code. */
    int finished(int code) {
        exitCode = code;
        done.countDown();
        return code;
    }
}
