package io.replaylab.kafka.broker;

/** The local broker could not be started or stopped; the message says why and what to do. */
public final class LocalKafkaException extends RuntimeException {
    public LocalKafkaException(String message) {
        super(message);
    }

    public LocalKafkaException(String message, Throwable cause) {
        super(message, cause);
    }
}
