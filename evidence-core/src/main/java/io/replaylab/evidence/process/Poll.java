package io.replaylab.evidence.process;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.RetryPolicy;
import dev.failsafe.RetryPolicyBuilder;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Looks again and again until a look is good enough or the time is up: the one way replay-lab waits
 * for something that nobody signals (a group's state, a broker's metadata, a process's output).
 * Built on Failsafe's retry policy. Where something does signal (a barrier's arrival, a fault's
 * firing), wait on that instead, or use it as a blocking look with {@code every} zero.
 *
 * <pre>{@code
 * OffsetSnapshot s = Poll.every(Duration.ofMillis(250)).upTo(timeout).until(() -> ops.describe(group), x -> x.state().isInactive());
 * }</pre>
 *
 * A look that throws ends the wait at once with its exception (a process that exited, a stopped run):
 * only a look that is not good enough is looked at again.
 */
public final class Poll {
    /** One look; may block (then {@code every} can be zero) and may end the wait by throwing. */
    @FunctionalInterface
    public interface Look<T> {
        T look() throws InterruptedException;
    }

    /** A look that says yes or no. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws InterruptedException;
    }

    private final Duration every;
    private final Duration upTo;

    private Poll(Duration every, Duration upTo) {
        this.every = every;
        this.upTo = upTo;
    }

    /** Looks with {@code every} between two looks (zero for a look that blocks by itself). */
    public static Poll every(Duration every) {
        if (Objects.requireNonNull(every, "every").isNegative()) {
            throw new IllegalArgumentException("the time between two looks must not be negative: " + every);
        }
        return new Poll(every, Duration.ZERO);
    }

    /** For at most {@code timeout} after the first look; zero or less: one look only. */
    public Poll upTo(Duration timeout) {
        return new Poll(every, Objects.requireNonNull(timeout, "timeout"));
    }

    /** The last look: the first one {@code done} accepts, or the one at the end of the time. */
    public <T> T until(Look<T> look, Predicate<? super T> done) throws InterruptedException {
        if (upTo.isNegative() || upTo.isZero()) {
            return look.look();
        }
        // Failsafe wants the time between looks below the whole time
        Duration delay = every.compareTo(upTo) < 0 ? every : upTo.dividedBy(2);
        // done is asked inside the look: Failsafe would take a predicate that throws for a yes
        RetryPolicyBuilder<Looked<T>> notYet = RetryPolicy.<Looked<T>>builder()
                .handleResultIf(l -> !l.good())
                .abortOn(Throwable.class)
                .withMaxRetries(-1);
        if (!delay.isZero()) {
            notYet.withDelay(delay); // Failsafe's default is none; it refuses a zero one
        }
        notYet.withMaxDuration(upTo);
        try {
            return Failsafe.with(notYet.build()).get(() -> {
                T t = look.look();
                return new Looked<>(t, done.test(t));
            }).value();
        } catch (FailsafeException e) {
            if (e.getCause() instanceof InterruptedException interrupted) {
                Thread.interrupted(); // Failsafe set the flag again: the exception is the news now
                throw interrupted;
            }
            throw e;
        }
    }

    private record Looked<T>(T value, boolean good) {
    }

    /** Whether {@code condition} came to hold within the time. */
    public boolean until(Condition condition) throws InterruptedException {
        return until(condition::holds, Boolean::booleanValue);
    }
}
