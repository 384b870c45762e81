package io.replaylab.oracle;

import java.util.List;

/** Two target snapshots compared: equal, or exactly which (identity, amount) rows each has that the other lacks. */
public record SnapshotDiff(boolean equal, long onlyBefore, long onlyAfter, List<String> onlyBeforeExamples, List<String> onlyAfterExamples) {
    public SnapshotDiff {
        onlyBeforeExamples = List.copyOf(onlyBeforeExamples);
        onlyAfterExamples = List.copyOf(onlyAfterExamples);
    }

    public String describe() {
        return equal ? "equal" : onlyBefore + " row(s) only before " + onlyBeforeExamples + ", " + onlyAfter + " only after " + onlyAfterExamples;
    }
}
