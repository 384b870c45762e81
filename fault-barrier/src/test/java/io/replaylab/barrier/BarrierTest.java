package io.replaylab.barrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class BarrierTest {
    private final List<BarrierTransition> moves = new CopyOnWriteArrayList<>();
    private final BarrierListener listener = moves::add;

    private Thread caller(Barrier b, Map<String, String> ctx, List<String> log) {
        Thread t = new Thread(() -> {
            try {
                Injector.around(b, ctx, List.of(), () -> {
                    log.add("call");
                    return null;
                });
            } catch (Throwable e) {
                log.add("error " + e);
            }
        }, "worker");
        t.start();
        return t;
    }

    @Test
    void arrivalIsHeldUntilReleasedThenTheCallRunsAndItsOutcomeIsRecorded() throws Exception {
        Barrier b = Barrier.arm("p", listener, BarrierOptions.ofDefaults());
        List<String> log = new CopyOnWriteArrayList<>();
        Thread t = caller(b, Map.of("offsets", "t-0=5"), log);

        Arrival a = b.awaitArrival(Duration.ofSeconds(5));
        assertThat(a.thread()).isEqualTo("worker");
        assertThat(a.context()).containsEntry("offsets", "t-0=5");
        assertThat(b.state()).isEqualTo(BarrierState.HELD);
        Thread.sleep(200);
        assertThat(log).as("held: the call has not run").isEmpty();

        b.release();
        t.join(5000);

        assertThat(log).containsExactly("call");
        assertThat(b.state()).isEqualTo(BarrierState.RELEASED);
        assertThat(b.awaitOutcome(Duration.ofSeconds(1))).get().extracting(CallOutcome::verdict).isEqualTo(CallOutcome.Verdict.ACCEPTED);
        assertThat(moves).extracting(BarrierTransition::to)
                .containsExactly(BarrierState.ARMED, BarrierState.HELD, BarrierState.RELEASED);
        assertThat(moves.get(2).heldMillis()).isGreaterThanOrEqualTo(200);
        assertThat(moves.get(2).by()).isEqualTo("controller");
    }

    @Test
    void aThrowingCallIsRecordedAsRejectedWithItsException() throws Exception {
        Barrier b = Barrier.arm("p", listener, BarrierOptions.ofDefaults());
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                Injector.around(b, Map.of(), List.of(), () -> {
                    throw new java.lang.reflect.InvocationTargetException(new IllegalStateException("kicked out"));
                });
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        b.awaitArrival(Duration.ofSeconds(5));
        b.release();
        t.join(5000);

        assertThat(thrown.get()).isInstanceOf(IllegalStateException.class).hasMessage("kicked out");
        CallOutcome o = b.awaitOutcome(Duration.ofSeconds(1)).orElseThrow();
        assertThat(o.verdict() == CallOutcome.Verdict.ACCEPTED).isFalse();
        assertThat(o.exceptionClass()).isEqualTo(IllegalStateException.class.getName());
        assertThat(o.message()).isEqualTo("kicked out");
    }

    @Test
    void aBarrierNeverReachedExpiresAndTheTimeoutNamesThePoint() throws Exception {
        Barrier b = Barrier.arm("offset-commit", listener, BarrierOptions.ofDefaults());

        assertThat(b.tryAwaitArrival(Duration.ofMillis(100))).isEmpty();
        assertThat(b.state()).as("try leaves it armed").isEqualTo(BarrierState.ARMED);

        assertThatThrownBy(() -> b.awaitArrival(Duration.ofMillis(150)))
                .isInstanceOf(BarrierTimeoutException.class)
                .hasMessageContaining("'offset-commit'").hasMessageContaining("150 ms").hasMessageContaining("EXPIRED");
        assertThat(b.state()).isEqualTo(BarrierState.EXPIRED);
        assertThat(moves).extracting(BarrierTransition::by).containsExactly("controller", "await-timeout");
    }

    @Test
    void theSafetyHoldTimeoutReleasesAndSaysSo() throws Exception {
        Barrier b = Barrier.arm("p", listener, BarrierOptions.ofDefaults().holdTimeout(Duration.ofMillis(300)));
        List<String> log = new CopyOnWriteArrayList<>();
        Thread t = caller(b, Map.of(), log);
        b.awaitArrival(Duration.ofSeconds(5));
        t.join(5000);

        assertThat(log).containsExactly("call");
        assertThat(b.state()).isEqualTo(BarrierState.RELEASED);
        assertThat(moves.get(moves.size() - 1).by()).isEqualTo("hold-timeout");
    }

    @Test
    void interruptingTheHeldThreadReleasesItAndKeepsTheInterruptFlag() throws Exception {
        Barrier b = Barrier.arm("p", listener, BarrierOptions.ofDefaults());
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                Injector.around(b, Map.of(), List.of(), () -> null);
            } catch (Throwable ignored) {
                // not expected
            }
            flag.set(Thread.currentThread().isInterrupted());
        });
        t.start();
        b.awaitArrival(Duration.ofSeconds(5));
        t.interrupt();
        t.join(5000);

        assertThat(flag.get()).isTrue();
        assertThat(moves.get(moves.size() - 1).by()).isEqualTo("interrupt");
    }

    @Test
    void anInterruptedControllerLeavesTheBarrierArmed() throws Exception {
        Barrier b = Barrier.arm("p", listener, BarrierOptions.ofDefaults());
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> b.awaitArrival(Duration.ofSeconds(5))).isInstanceOf(InterruptedException.class);
        assertThat(b.state()).isEqualTo(BarrierState.ARMED);
    }

    @Test
    void aPredicateThatDoesNotMatchLetsCallsPass() throws Exception {
        Barrier b = Barrier.arm("p", listener, BarrierOptions.ofDefaults().when(ctx -> "t-1=9".equals(ctx.get("offsets"))));
        List<String> log = new CopyOnWriteArrayList<>();
        caller(b, Map.of("offsets", "t-0=5"), log).join(5000);
        assertThat(log).containsExactly("call");
        assertThat(b.state()).isEqualTo(BarrierState.ARMED);

        Thread t = caller(b, Map.of("offsets", "t-1=9"), log);
        assertThat(b.awaitArrival(Duration.ofSeconds(5)).context()).containsEntry("offsets", "t-1=9");
        b.release();
        t.join(5000);
        assertThat(log).containsExactly("call", "call");
    }

    @Test
    void illegalMovesThrow() throws Exception {
        Barrier b = Barrier.arm("p", listener, BarrierOptions.ofDefaults());
        assertThatThrownBy(b::release).isInstanceOf(IllegalBarrierMoveException.class).hasMessageContaining("from ARMED to RELEASED");
        b.expire();
        assertThatThrownBy(b::expire).isInstanceOf(IllegalBarrierMoveException.class);
        assertThat(b.reach(Arrival.here("p", Map.of()))).as("an expired barrier lets calls pass").isFalse();
        assertThat(BarrierState.HELD.next()).containsExactly(BarrierState.RELEASED);
    }
}
