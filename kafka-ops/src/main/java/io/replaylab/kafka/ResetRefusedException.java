package io.replaylab.kafka;

import java.util.List;

import io.replaylab.evidence.Setting;

/** A reset that at least one guard refused; nothing was altered. Lists every failed guard, and the settings they name. */
public final class ResetRefusedException extends KafkaOpsException implements Setting.Named {
    private final String group;
    private final List<String> failedGuards;
    private final List<Setting> settings;

    public ResetRefusedException(String group, List<String> failedGuards) {
        this(group, failedGuards, List.of());
    }

    /** {@code settings}: those the guards' messages name (e.g. {@link ExecuteResetOptions#ALLOW_PREFIX}). */
    public ResetRefusedException(String group, List<String> failedGuards, List<Setting> settings) {
        super("reset of group '" + group + "' refused, nothing was changed:\n  - " + String.join("\n  - ", failedGuards));
        this.group = group;
        this.failedGuards = List.copyOf(failedGuards);
        this.settings = List.copyOf(settings);
    }

    @Override
    public List<Setting> settings() {
        return settings;
    }

    public String group() {
        return group;
    }

    public List<String> failedGuards() {
        return failedGuards;
    }
}
