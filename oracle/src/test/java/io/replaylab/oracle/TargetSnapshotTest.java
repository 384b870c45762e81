package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snapshot difference as multisets: any row order a database may use, duplicates counted, memory bounded. */
class TargetSnapshotTest {
    @TempDir
    Path dir;

    private TargetSnapshot snapshot(String name, List<String> lines, String digest) throws Exception {
        Path f = dir.resolve(name);
        Files.write(f, lines, StandardCharsets.UTF_8);
        return new TargetSnapshot(f, lines.size(), (digest + "0".repeat(64)).substring(0, 64)); // a stand-in sha256
    }

    @Test
    void rowsInADatabasesOwnOrderAreComparedExactly() throws Exception {
        // numeric amount order (9 before 10) and code-point order (U+FF71 before an emoji): neither is Java's String order
        TargetSnapshot before = snapshot("before.tsv", List.of("a\t9", "a\t10", "id-ｱ\t1", "id-😀\t1", "z\t5", "z\t5"), "d1");
        TargetSnapshot after = snapshot("after.tsv", List.of("a\t10", "id-ｱ\t1", "id-😀\t1", "z\t5", "new\t3"), "d2");

        SnapshotDiff d = before.diff(after);

        assertThat(d.equal()).isFalse();
        assertThat(d.onlyBefore()).isEqualTo(2); // a=9 and the second z=5
        assertThat(d.onlyAfter()).isEqualTo(1);
        assertThat(d.onlyBeforeExamples()).containsExactly("a=9", "z=5");
        assertThat(d.onlyAfterExamples()).containsExactly("new=3");
        assertThat(before.equalityCheck(after).actual()).contains("2 row(s) only before [a=9, z=5], 1 only after [new=3]");
    }

    @Test
    void theSameRowsInAnotherOrderAreEqualAndEqualDigestsSettleItAtOnce() throws Exception {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < 250_000; i++) { // several buckets
            rows.add("pay-" + i + "\t" + (i % 1000 - 500));
        }
        List<String> shuffled = new ArrayList<>(rows);
        Collections.shuffle(shuffled, new Random(3));
        shuffled.set(17, "pay-x\t1"); // one row replaced
        TargetSnapshot a = snapshot("a.tsv", rows, "da");

        assertThat(a.diff(snapshot("b.tsv", shuffled, "db")).describe()).startsWith("1 row(s) only before").endsWith("1 only after [pay-x=1]");
        Collections.shuffle(rows, new Random(4));
        assertThat(a.diff(snapshot("c.tsv", rows, "dc")).equal()).isTrue();
        assertThat(a.diff(snapshot("d.tsv", List.of("unrelated\t1"), "da")).equal()).isFalse(); // same digest, other count: not trusted
        assertThat(a.diff(new TargetSnapshot(dir.resolve("missing.tsv"), a.rows(), a.digest())).equal()).isTrue(); // equal digest and count: no read
    }
}
