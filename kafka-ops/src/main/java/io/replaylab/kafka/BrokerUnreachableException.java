package io.replaylab.kafka;

import java.util.List;

import io.replaylab.evidence.Setting;

/** The broker did not answer in time; the message may name the settings to look at ({@link Setting.Named}). */
public final class BrokerUnreachableException extends KafkaOpsException implements Setting.Named {
    private final List<Setting> settings;

    public BrokerUnreachableException(String message, Throwable cause, Setting... settings) {
        super(message, cause);
        this.settings = List.of(settings);
    }

    @Override
    public List<Setting> settings() {
        return settings;
    }
}
