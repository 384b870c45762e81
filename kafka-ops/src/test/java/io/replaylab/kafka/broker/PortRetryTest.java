package io.replaylab.kafka.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

/**
 * The one more start a node gets when a port the lab picked was taken before the node bound it (seen in CI with four test
 * JVMs starting brokers): the decision alone, without a broker (the race cannot be produced on purpose).
 */
class PortRetryTest {
    private static Supplier<String> failingTimes(int failures, String message, AtomicInteger starts) {
        return () -> {
            if (starts.incrementAndGet() <= failures) {
                throw new LocalKafkaException("the broker exited with code 1 before it was ready. " + message);
            }
            return "started";
        };
    }

    @Test
    void aPortTakenBeforeTheNodeBoundItGetsOneMoreStartOnNewPortsAndOnlyOne() {
        AtomicInteger starts = new AtomicInteger();
        AtomicInteger forgotten = new AtomicInteger();
        assertThat(KafkaNode.startTakingNewPortsOnce(true, failingTimes(1, "A port is already in use (broker 1, controller 2). ", starts),
                forgotten::incrementAndGet)).isEqualTo("started");
        assertThat(starts).hasValue(2);
        assertThat(forgotten).hasValue(1);

        AtomicInteger again = new AtomicInteger();
        assertThatThrownBy(() -> KafkaNode.startTakingNewPortsOnce(true, failingTimes(2, "A port is already in use (b). ", again), () -> { }))
                .isInstanceOf(LocalKafkaException.class).hasMessageContaining("A port is already in use");
        assertThat(again).as("a second taken port is the error").hasValue(2);
    }

    @Test
    void aPortTheCallerChoseOrAnotherFailureIsTheErrorAtOnce() {
        AtomicInteger chosen = new AtomicInteger();
        assertThatThrownBy(() -> KafkaNode.startTakingNewPortsOnce(false, failingTimes(1, "A port is already in use (9092). ", chosen), () -> { }))
                .hasMessageContaining("A port is already in use");
        assertThat(chosen).hasValue(1);

        AtomicInteger other = new AtomicInteger();
        assertThatThrownBy(() -> KafkaNode.startTakingNewPortsOnce(true, failingTimes(1, "The Java runtime is too old. ", other), () -> { }))
                .hasMessageContaining("too old");
        assertThat(other).hasValue(1);
    }
}
