package io.replaylab.harness.lab;

import java.util.Objects;

import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.MethodPoint;

/**
 * How the run holds a subject at its injection point (part of {@link LabSettings}).
 *
 * @param choice        the barrier the run uses and why: the one asked for ({@code LabSettings.barrier}),
 *                      else chosen from the subject when the settings were built
 * @param holdMode      how the debugger barrier holds (one thread or the whole JVM)
 * @param dbCommitPoint where the debugger holds a JVM subject just before its DB transaction commits
 */
public record BarrierSettings(BarrierKind.Choice choice, HoldMode holdMode, MethodPoint dbCommitPoint) {
    public BarrierSettings {
        Objects.requireNonNull(choice, "choice");
        Objects.requireNonNull(holdMode, "holdMode");
        Objects.requireNonNull(dbCommitPoint, "dbCommitPoint");
    }
}
