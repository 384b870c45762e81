package io.replaylab.evidence;

import java.util.List;

/** Input a library refuses, naming the settings its message is about ({@link Setting.Named}): a front end names them its own way. */
public class BadInputException extends IllegalArgumentException implements Setting.Named {
    private final List<Setting> settings;

    public BadInputException(String message, Setting... settings) {
        super(message);
        this.settings = List.of(settings);
    }

    public BadInputException(String message, Throwable cause, Setting... settings) {
        super(message, cause);
        this.settings = List.of(settings);
    }

    @Override
    public List<Setting> settings() {
        return settings;
    }
}
