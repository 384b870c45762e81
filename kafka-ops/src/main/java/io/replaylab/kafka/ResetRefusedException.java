package io.replaylab.kafka;

import java.util.List;

/** A reset that at least one guard refused; nothing was altered. Lists every failed guard. */
public final class ResetRefusedException extends KafkaOpsException {
    private final String group;
    private final List<String> failedGuards;

    public ResetRefusedException(String group, List<String> failedGuards) {
        super("reset of group '" + group + "' refused, nothing was changed:\n  - " + String.join("\n  - ", failedGuards));
        this.group = group;
        this.failedGuards = List.copyOf(failedGuards);
    }

    public String group() {
        return group;
    }

    public List<String> failedGuards() {
        return failedGuards;
    }
}
