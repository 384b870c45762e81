package io.replaylab.harness.lab;

import java.time.Duration;
import java.util.Optional;

/**
 * How long the lab waits, and the consumer timeouts it gives the subjects (part of {@link LabSettings};
 * the lab's defaults are short, for a local broker).
 *
 * @param handoff   how long a partition may take to move, when asked for; empty (the default): as long as the consumer's own
 *                  timeouts, read on the wire, say it takes, and {@link #DEFAULT_HANDOFF} when the wire did not show them
 * @param barrier   how long a barrier waits for A, working, to reach its point (one that makes no progress is judged by its own timeouts)
 * @param drain     how long a group may go without progress while draining when its members' timeouts were not seen on the wire
 *                  (seen, they decide: {@link LabKafka#patience}); also how long the user's producer may take
 * @param stopGrace how long a subject may take to leave after SIGTERM, before SIGKILL (a stopped run gives 3 s whatever this says)
 * @param maxPollIntervalMs {@code {max.poll.interval.ms}} for the subject: a thread hold hands the partition over after it
 * @param sessionTimeoutMs  {@code {session.timeout.ms}} for the subject (classic protocol): a frozen process is dropped after it
 * @param contentionWindow how long a sequence cell of {@code schedules} keeps A held after B took its partition over, so that B
 *                         works on A's records against A's open transaction (a busy error it would swallow), before A's next fault
 * @param commitInterval how often the subject commits offsets on its own timer, if it does (its client's auto-commit interval):
 *                       a consumer that applied every effect and committed nothing for {@link #commitTimer twice that} is taken
 *                       for one that keeps its positions itself, and the points that wait for an offset commit say so
 */
public record Timeouts(Optional<Duration> handoff, Duration barrier, Duration drain, Duration stopGrace, int maxPollIntervalMs, int sessionTimeoutMs,
        Duration contentionWindow, Duration commitInterval) {
    /** A few seconds: several of a short busy timeout, and well inside a poll interval, so a correct B only waits. */
    public static final Duration DEFAULT_CONTENTION_WINDOW = Duration.ofSeconds(3);

    /** The handoff wait when none was asked for and the consumer's timeouts were not seen on the wire (no proxy, or it went round it). */
    public static final Duration DEFAULT_HANDOFF = Duration.ofMinutes(2);

    /** The auto-commit interval of the Java client and of librdkafka ({@code auto.commit.interval.ms}, 5 s), and KafkaJS's default one. */
    public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofSeconds(5);

    public Timeouts {
        positive(contentionWindow, "contentionWindow");
        positive(commitInterval, "commitInterval");
        java.util.Objects.requireNonNull(handoff, "handoff").ifPresent(d -> positive(d, "handoffTimeout"));
        positive(barrier, "barrierTimeout");
        positive(drain, "drainTimeout");
        positive(stopGrace, "stopGrace");
        consumerMs(maxPollIntervalMs, "maxPollIntervalMs");
        consumerMs(sessionTimeoutMs, "sessionTimeoutMs");
    }

    /**
     * How long a consumer that applied every effect is given to commit an offset before the lab takes it for one that never does
     * (it keeps its positions in its own database): twice its {@link #commitInterval}, so that one whose timer is that long has
     * committed by then.
     */
    public Duration commitTimer() {
        return commitInterval.multipliedBy(2);
    }

    /** The handoff wait asked for, else {@link #DEFAULT_HANDOFF}: for a wait with no consumer's timeouts to read. */
    public Duration handoffOrDefault() {
        return handoff.orElse(DEFAULT_HANDOFF);
    }

    /**
     * Room for B to start, join and be assigned after A was dropped, on top of what A's timeouts take: a minute at least (a
     * loaded machine's JVM start and rejoin), a quarter more for long timeouts.
     */
    public static Duration margin(Duration needed) {
        return atLeast(needed.dividedBy(4), Duration.ofSeconds(60));
    }

    /**
     * Room for a member that left (or its restart) to be replaced and go on, on top of what a stalled group's timeouts take:
     * half a minute at least (the supervisor's back-off and a process start), a quarter more for long timeouts. Shorter than
     * {@link #margin}: a member that joins or restarts starts the wait again.
     */
    public static Duration rejoin(Duration needed) {
        return atLeast(needed.dividedBy(4), Duration.ofSeconds(30));
    }

    /** A wait as the evidence says it: {@code 105 s}, {@code 1.5 s}. */
    public static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
    }

    private static Duration atLeast(Duration d, Duration floor) {
        return d.compareTo(floor) > 0 ? d : floor;
    }

    /** The builder's checks, in its setters' words ({@code setting} is the setter), here so a value made by hand is held to them too. */
    static Duration positive(Duration d, String setting) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw InvalidSettingsException.of(setting, "must be a positive duration, was " + d);
        }
        return d;
    }

    static int consumerMs(int ms, String setting) {
        if (ms < 1000 || ms > 300_000) {
            throw InvalidSettingsException.of(setting, "must be 1000..300000 ms, was " + ms);
        }
        return ms;
    }
}
