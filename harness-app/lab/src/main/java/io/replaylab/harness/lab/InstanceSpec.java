package io.replaylab.harness.lab;

import java.util.Map;
import java.util.Objects;

/**
 * One instance to start: its name (the evidence's and its logs'), the program's template and the
 * values that fill its placeholders. A consumer of the run's subject comes from
 * {@link LabSubjects#consumer}; any other program (a transform, a second subject) from {@link #of}.
 *
 * @param debuggable started suspended under a debugger agent, until a barrier resumes it
 */
public record InstanceSpec(String name, Subject subject, Map<String, String> values, boolean debuggable) {
    public InstanceSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(subject, "subject");
        values = Map.copyOf(values);
    }

    /** Instance {@code name} of {@code subject}, its placeholders filled from {@code values}. */
    public static InstanceSpec of(String name, Subject subject, Map<String, String> values) {
        return new InstanceSpec(name, subject, values, false);
    }

    /** The same instance, started suspended under a debugger agent (a barrier resumes it once armed). */
    public InstanceSpec underDebugger() {
        return new InstanceSpec(name, subject, values, true);
    }
}
