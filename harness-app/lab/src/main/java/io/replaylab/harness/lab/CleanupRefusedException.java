package io.replaylab.harness.lab;

import java.util.List;

import io.replaylab.evidence.Setting;

/** {@link Leftovers#remove} would touch what is not the dead run's own, or the run is alive: nothing was removed. */
public final class CleanupRefusedException extends RuntimeException implements Setting.Named {
    private final List<Setting> settings;

    public CleanupRefusedException(String message, Setting... settings) {
        super(message);
        this.settings = List.of(settings);
    }

    @Override
    public List<Setting> settings() {
        return settings;
    }
}
