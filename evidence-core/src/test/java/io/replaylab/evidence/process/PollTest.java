package io.replaylab.evidence.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PollTest {
    private static final Duration EVERY = Duration.ofMillis(10);

    @Test
    void aGoodLookEndsTheWaitAndIsReturned() throws InterruptedException {
        AtomicInteger looks = new AtomicInteger();
        long t0 = System.nanoTime();
        int last = Poll.every(Duration.ofSeconds(5)).upTo(Duration.ofSeconds(30)).until(looks::incrementAndGet, n -> n >= 1);
        assertThat(last).isEqualTo(1);
        assertThat(looks).hasValue(1);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        assertThat(Poll.every(EVERY).upTo(Duration.ofSeconds(30)).until(() -> looks.incrementAndGet() == 4)).isTrue();
        assertThat(looks).hasValue(4);
    }

    @Test
    void whenTheTimeIsUpTheLastLookIsReturnedAfterTheWholeTime() throws InterruptedException {
        AtomicInteger looks = new AtomicInteger();
        long t0 = System.nanoTime();
        int last = Poll.every(EVERY).upTo(Duration.ofMillis(300)).until(looks::incrementAndGet, n -> false);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(last).isEqualTo(looks.get()).isGreaterThan(2);
        assertThat(Poll.every(EVERY).upTo(Duration.ofMillis(50)).until(() -> false)).isFalse();
    }

    @Test
    void noTimeMeansOneLookAndATimeShorterThanTheIntervalStillLooksAgain() throws InterruptedException {
        AtomicInteger looks = new AtomicInteger();
        assertThat(Poll.every(EVERY).upTo(Duration.ZERO).until(looks::incrementAndGet, n -> false)).isEqualTo(1);
        assertThat(Poll.every(Duration.ofSeconds(10)).upTo(Duration.ofMillis(100)).until(looks::incrementAndGet, n -> false)).isGreaterThan(2);
        assertThat(Poll.every(Duration.ZERO).upTo(Duration.ofMillis(50)).until(() -> looks.incrementAndGet() > 5)).isTrue();
        assertThatThrownBy(() -> Poll.every(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
    }

    @Test
    void aLookOrAJudgementThatThrowsEndsTheWaitWithItsOwnException() {
        AtomicInteger looks = new AtomicInteger();
        IllegalStateException exited = new IllegalStateException("the program exited");
        assertThatThrownBy(() -> Poll.every(EVERY).upTo(Duration.ofSeconds(30)).until(() -> {
            if (looks.incrementAndGet() == 2) {
                throw exited;
            }
            return false;
        })).isSameAs(exited);
        assertThat(looks).hasValue(2);
        looks.set(0);
        IllegalStateException unreadable = new IllegalStateException("cannot judge this look");
        assertThatThrownBy(() -> Poll.every(EVERY).upTo(Duration.ofSeconds(30)).until(looks::incrementAndGet, n -> {
            throw unreadable;
        })).as("a judgement that throws is no yes").isSameAs(unreadable);
        assertThat(looks).hasValue(1);
        InterruptedException stopped = new InterruptedException("stopped");
        assertThatThrownBy(() -> Poll.every(EVERY).upTo(Duration.ofSeconds(30)).until(() -> {
            throw stopped;
        })).isSameAs(stopped);
    }

    @Test
    void anInterruptWhileWaitingIsAnInterruptedExceptionWithTheFlagCleared() throws InterruptedException {
        Thread main = Thread.currentThread();
        Thread interrupter = new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            main.interrupt();
        });
        interrupter.start();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> Poll.every(Duration.ofMillis(20)).upTo(Duration.ofSeconds(30)).until(() -> false))
                .isInstanceOf(InterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        interrupter.join();
    }
}
