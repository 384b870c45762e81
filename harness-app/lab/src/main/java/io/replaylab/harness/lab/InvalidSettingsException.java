package io.replaylab.harness.lab;

import java.util.List;
import java.util.Objects;

import io.replaylab.evidence.Setting;

/**
 * Settings a lab cannot run with, every problem named by the setting it is about: a CLI maps each
 * {@link SettingProblem#setting()} to its own flag (it never reads the message for that), and reports
 * them all at once. The message reads {@code LabSettings.records must be 1..10000000, was 0}.
 */
public final class InvalidSettingsException extends IllegalArgumentException implements Setting.Named {
    private final List<SettingProblem> problems;

    /**
     * One problem: the {@link LabSettings.Builder} setter it is about, and what is wrong, without the setter's name;
     * {@code named}: other settings the message names (e.g. {@link LabSettings#ALLOW_REMOTE}).
     */
    public record SettingProblem(String setting, String message, List<Setting> named) {
        public SettingProblem {
            Objects.requireNonNull(setting, "setting");
            Objects.requireNonNull(message, "message");
            named = List.copyOf(named);
        }

        public SettingProblem(String setting, String message) {
            this(setting, message, List.of());
        }

        @Override
        public String toString() {
            return "LabSettings." + setting + " " + message;
        }
    }

    public InvalidSettingsException(List<SettingProblem> problems) {
        super(String.join("; ", problems.stream().map(SettingProblem::toString).toList()));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("an InvalidSettingsException names at least one problem");
        }
        this.problems = List.copyOf(problems);
    }

    /** One problem of one setting. */
    static InvalidSettingsException of(String setting, String message) {
        return new InvalidSettingsException(List.of(new SettingProblem(setting, message)));
    }

    public List<SettingProblem> problems() {
        return problems;
    }

    @Override
    public List<Setting> settings() {
        return problems.stream().flatMap(p -> p.named().stream()).distinct().toList();
    }
}
