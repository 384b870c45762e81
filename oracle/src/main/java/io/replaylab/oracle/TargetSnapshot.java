package io.replaylab.oracle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.replaylab.evidence.Check;

/**
 * The target's effects at one moment (SPEC R6): the ordered (identity, amount) rows, saved to a
 * file (one {@code id<TAB>amount} per line, so memory stays bounded), their count and SHA-256 digest.
 */
public record TargetSnapshot(Path file, long rows, String digest) {

    /** Equality, or the exact difference, streaming both files. */
    public SnapshotDiff diff(TargetSnapshot after) {
        long onlyBefore = 0;
        long onlyAfter = 0;
        List<String> exBefore = new ArrayList<>();
        List<String> exAfter = new ArrayList<>();
        try (BufferedReader a = Files.newBufferedReader(file, StandardCharsets.UTF_8);
             BufferedReader b = Files.newBufferedReader(after.file(), StandardCharsets.UTF_8)) {
            String x = a.readLine();
            String y = b.readLine();
            while (x != null || y != null) {
                int c = x == null ? 1 : y == null ? -1 : x.compareTo(y);
                if (c == 0) {
                    x = a.readLine();
                    y = b.readLine();
                } else if (c < 0) {
                    onlyBefore++;
                    if (exBefore.size() < Finding.EXAMPLES) {
                        exBefore.add(x.replace('\t', '='));
                    }
                    x = a.readLine();
                } else {
                    onlyAfter++;
                    if (exAfter.size() < Finding.EXAMPLES) {
                        exAfter.add(y.replace('\t', '='));
                    }
                    y = b.readLine();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot compare snapshots " + file + " and " + after.file(), e);
        }
        return new SnapshotDiff(onlyBefore == 0 && onlyAfter == 0, onlyBefore, onlyAfter, exBefore, exAfter);
    }

    /** As the R6 check: the exact inbox identities and amounts are equal before and after. */
    public Check equalityCheck(TargetSnapshot after) {
        SnapshotDiff d = diff(after);
        return Check.of("target identical before and after", "R6", rows + " rows, sha256 " + digest.substring(0, 12),
                after.rows() + " rows, sha256 " + after.digest().substring(0, 12) + (d.equal() ? "" : "; " + d.describe()), d.equal());
    }
}
