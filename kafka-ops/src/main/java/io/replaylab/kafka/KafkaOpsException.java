package io.replaylab.kafka;

/** A Kafka operation failed; the message names the group or topic and what to do next. */
public class KafkaOpsException extends RuntimeException {
    public KafkaOpsException(String message) {
        super(message);
    }

    public KafkaOpsException(String message, Throwable cause) {
        super(message, cause);
    }
}
