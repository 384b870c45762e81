package io.replaylab.oracle;

import java.util.List;

/** One kind of discrepancy: how many, and the first few examples. */
public record Finding(String kind, long count, List<String> examples) {
    public static final int EXAMPLES = 5;

    public Finding {
        examples = List.copyOf(examples);
    }
}
