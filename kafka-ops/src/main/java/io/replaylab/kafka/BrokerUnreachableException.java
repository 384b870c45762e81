package io.replaylab.kafka;

/** The broker did not answer in time. */
public final class BrokerUnreachableException extends KafkaOpsException {
    public BrokerUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
