package io.replaylab.barrier.jdi;

import java.util.Objects;

/** A method (every overload) whose entry is a barrier point. */
public record MethodPoint(String className, String methodName) {
    public MethodPoint {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(methodName, "methodName");
    }

    /** Every overload of {@code KafkaConsumer#commitSync}: after the DB commit, before the offset commit leaves. */
    public static MethodPoint kafkaCommitSync() {
        return new MethodPoint("org.apache.kafka.clients.consumer.KafkaConsumer", "commitSync");
    }

    @Override
    public String toString() {
        return className + "#" + methodName;
    }
}
