package io.replaylab.evidence;

import java.util.Objects;

/**
 * One check of an experiment: what was expected, what was found, and the verdict.
 *
 * @param requirement the SPEC requirement it proves, e.g. {@code R6}
 */
public record Check(String name, String requirement, String expected, String actual, Status status) {
    public Check {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(requirement, "requirement");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(actual, "actual");
        Objects.requireNonNull(status, "status");
    }

    public static Check pass(String name, String requirement, String expected, String actual) {
        return new Check(name, requirement, expected, actual, Status.PASS);
    }

    public static Check fail(String name, String requirement, String expected, String actual) {
        return new Check(name, requirement, expected, actual, Status.FAIL);
    }

    /** The check could not be evaluated (its input is missing). */
    public static Check notRun(String name, String requirement, String expected, String why) {
        return new Check(name, requirement, expected, why, Status.NOT_RUN);
    }

    /** PASS when {@code holds}, FAIL otherwise. */
    public static Check of(String name, String requirement, String expected, String actual, boolean holds) {
        return new Check(name, requirement, expected, actual, holds ? Status.PASS : Status.FAIL);
    }
}
