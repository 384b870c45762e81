package io.replaylab.barrier;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One named barrier point, one-shot: the first matching arrival is held until the controller
 * releases it (or the safety hold timeout does). Every move is reported to the listener.
 *
 * <p>This is the controller's view: {@link #awaitArrival}/{@link #tryAwaitArrival}, {@link #release()},
 * {@link #expire()}, {@link #awaitOutcome}, {@link #state()}. What holds a call (a decorator, the
 * debugger, the wire proxy) works through the barrier's {@link Injector}. Every way to get a
 * barrier takes its arguments in one order: the point's name, where it is, the listener, the options
 * ({@code Barrier.arm(name, listener, options)}, {@code DebuggerBarrier#arm(name, method, mode, listener, options)},
 * {@code WireProxy#arm(name, group, listener, options)}).
 *
 * <pre>{@code
 * Barrier b = Barrier.arm("before-commit", listener, BarrierOptions.ofDefaults());
 * // ... the consumer thread calls commitSync and is held there ...
 * Arrival a = b.awaitArrival(Duration.ofSeconds(30));
 * b.release();
 * CallOutcome o = b.awaitOutcome(Duration.ofSeconds(10)).orElseThrow();
 * }</pre>
 */
public final class Barrier {
    private final String point;
    private final BarrierOptions options;
    private final BarrierListener listener;
    private final List<Runnable> onRelease = new ArrayList<>();
    private BarrierState state = BarrierState.ARMED;
    private Arrival arrival;
    private long heldAtNanos;
    private final long armedAtNanos = System.nanoTime();
    private CallOutcome outcome;

    private Barrier(String point, BarrierOptions options, BarrierListener listener) {
        this.point = Objects.requireNonNull(point, "point");
        this.options = Objects.requireNonNull(options, "options");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Arms a barrier point for an in-process injector ({@code BarrierConsumer}, {@code BarrierDataSource}). */
    public static Barrier arm(String point, BarrierListener listener, BarrierOptions options) {
        Barrier b = new Barrier(point, options, listener);
        listener.onTransition(new BarrierTransition(point, null, BarrierState.ARMED, "controller", null, Instant.now(), System.nanoTime(), 0, 0));
        return b;
    }

    public String point() {
        return point;
    }

    public synchronized BarrierState state() {
        return state;
    }

    public synchronized Optional<Arrival> arrival() {
        return Optional.ofNullable(arrival);
    }

    public synchronized Optional<CallOutcome> outcome() {
        return Optional.ofNullable(outcome);
    }

    // ---- controller side

    /**
     * Waits until a call is held here. On timeout the barrier is EXPIRED and
     * {@link BarrierTimeoutException} names the point and the timeout. An interrupt leaves the
     * barrier ARMED and throws {@link InterruptedException}.
     */
    public Arrival awaitArrival(Duration timeout) throws InterruptedException {
        Optional<Arrival> a = tryAwaitArrival(timeout);
        if (a.isPresent()) {
            return a.get();
        }
        synchronized (this) {
            if (state == BarrierState.ARMED) {
                move(BarrierState.EXPIRED, "await-timeout");
            }
            if (arrival != null) {
                return arrival;
            }
        }
        throw new BarrierTimeoutException(point, timeout);
    }

    /** Waits up to {@code timeout} for a held call; empty if none came (the barrier stays ARMED). */
    public synchronized Optional<Arrival> tryAwaitArrival(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (arrival == null && state == BarrierState.ARMED) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return Optional.ofNullable(arrival);
    }

    /** Lets the held call continue. Only legal when HELD. */
    public void release() {
        release("controller");
    }

    /** Gives up a barrier nobody reached. Only legal when ARMED. */
    public synchronized void expire() {
        move(BarrierState.EXPIRED, "controller");
    }

    /** Waits for the released call's outcome (accepted or rejected), if the injector can observe it. */
    public synchronized Optional<CallOutcome> awaitOutcome(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (outcome == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return Optional.ofNullable(outcome);
    }

    // ---- injector side: package-private, reached through Injector

    /** Armed, and {@code a} matches its condition: what {@link #reach} would hold. */
    synchronized boolean wouldReach(Arrival a) {
        return state == BarrierState.ARMED && options.when().test(a.context());
    }

    /**
     * A call reached the point. If it matches, the barrier moves to HELD and true is returned
     * (the injector must then hold the call); otherwise the call passes.
     */
    synchronized boolean reach(Arrival a) {
        if (!wouldReach(a)) {
            return false;
        }
        arrival = a;
        heldAtNanos = System.nanoTime();
        move(BarrierState.HELD, a.thread());
        notifyAll();
        return true;
    }

    /**
     * Blocks the calling (held) thread until released. After the safety hold timeout it releases
     * itself, recorded as {@code hold-timeout}. An interrupt releases too (recorded as {@code interrupt})
     * and re-asserts the interrupt flag, so the call is never left stuck.
     */
    synchronized void holdUntilReleased() {
        long deadline = heldAtNanos + options.holdTimeout().toNanos();
        try {
            while (state == BarrierState.HELD) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    release("hold-timeout");
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            if (state == BarrierState.HELD) {
                release("interrupt");
            }
            Thread.currentThread().interrupt();
        }
    }

    /** Runs {@code action} when the barrier is released (at once if it already is). For external holds (the debugger). */
    void onRelease(Runnable action) {
        boolean now;
        synchronized (this) {
            now = state == BarrierState.RELEASED;
            if (!now) {
                onRelease.add(action);
            }
        }
        if (now) {
            action.run();
        }
    }

    /** Records what the released call did; the listener hears it before any waiter sees it. */
    void recordOutcome(CallOutcome o) {
        synchronized (this) {
            if (outcome != null) {
                return;
            }
        }
        listener.onOutcome(o);
        synchronized (this) {
            if (outcome == null) {
                outcome = o;
                notifyAll();
            }
        }
    }

    /** Releases a HELD barrier, naming who did it. */
    void release(String by) {
        List<Runnable> actions;
        synchronized (this) {
            move(BarrierState.RELEASED, by);
            actions = List.copyOf(onRelease);
            onRelease.clear();
            notifyAll();
        }
        actions.forEach(Runnable::run);
    }

    private void move(BarrierState to, String by) {
        if (!state.next().contains(to)) {
            throw new IllegalBarrierMoveException(point, state, to);
        }
        BarrierState from = state;
        state = to;
        long now = System.nanoTime();
        long held = from == BarrierState.HELD ? TimeUnit.NANOSECONDS.toMillis(now - heldAtNanos) : 0;
        long waited = from == BarrierState.ARMED ? TimeUnit.NANOSECONDS.toMillis(now - armedAtNanos) : 0;
        listener.onTransition(new BarrierTransition(point, from, to, by, arrival, Instant.now(), now, held, waited));
        notifyAll();
    }

    @Override
    public synchronized String toString() {
        return "Barrier[" + point + " " + state + "]";
    }
}
