package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.replaylab.evidence.Status;
import io.replaylab.kafka.GroupState;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import org.junit.jupiter.api.Test;

/**
 * The join on its own, against a plain in-memory reference: many buckets, several join threads,
 * table collisions, non-ASCII identities, every discrepancy kind at once. The broker-backed
 * known-answer tests live in {@link OracleTest}.
 */
class BucketJoinTest {
    record Src(String id, int partition, long offset, String amount) {
    }

    @Test
    void agreesWithANaiveInMemoryJoinOnEveryKindAndExample() throws Exception {
        Random rnd = new Random(7);
        List<Src> source = new ArrayList<>();
        Map<Integer, Long> nextOffset = new HashMap<>();
        for (int i = 0; i < 300_000; i++) {
            int p = rnd.nextInt(6);
            long off = nextOffset.merge(p, 1L, Long::sum) - 1;
            String id = (i % 1000 == 0 ? "zahlung-ä€-" : "pay-") + (rnd.nextInt(50) == 0 ? rnd.nextInt(i + 1) : i); // some identities twice
            source.add(new Src(id, p, off, Long.toString(rnd.nextInt(20_000) - 5_000)));
        }
        List<String[]> target = new ArrayList<>();
        Map<String, String> firstAmount = new HashMap<>();
        for (Src s : source) {
            firstAmount.putIfAbsent(s.id(), s.amount());
        }
        for (Map.Entry<String, String> e : firstAmount.entrySet()) {
            int roll = rnd.nextInt(1000);
            if (roll < 5) {
                continue; // missing
            }
            String amount = roll < 8 ? e.getValue() + "1" : e.getValue(); // mismatched
            target.add(new String[] {e.getKey(), amount});
            if (roll >= 990) {
                target.add(new String[] {e.getKey(), amount}); // a second effect
            }
        }
        for (int g = 0; g < 300; g++) {
            target.add(new String[] {"ghost-" + rnd.nextInt(200), "1"}); // unexpected, some of them twice
        }
        java.util.Collections.shuffle(target, rnd);
        Map<Integer, Long> committed = Map.of(0, nextOffset.get(0), 3, nextOffset.get(3) / 2);

        Comparison got;
        try (BucketJoin join = new BucketJoin(2_000_000)) { // more buckets than the records need: joins run on several threads
            for (Src s : source) {
                join.source(s.partition(), s.offset(), s.id(), Long.parseLong(s.amount()));
            }
            join.malformed(2, 17, "not JSON");
            for (String[] t : target) {
                join.target(utf8(t[0]), Long.parseLong(t[1]));
            }
            got = join.judge(new Cut("t", Instant.now(), Map.of()), "ns", snapshot(committed));
        }

        Naive want = new Naive(source, target, committed);
        assertThat(got.counts()).isEqualTo(want.counts());
        assertThat(got.missing().examples()).isEqualTo(want.missingExamples);
        assertThat(got.duplicated().examples()).isEqualTo(want.duplicatedExamples);
        assertThat(got.unexpected().examples()).isEqualTo(want.unexpectedExamples);
        assertThat(got.mismatched().examples()).isEqualTo(want.mismatchedExamples);
        assertThat(got.sourceDuplicates().examples()).isEqualTo(want.sourceDupExamples);
        assertThat(got.holes().examples()).isEqualTo(want.holeExamples);
        assertThat(got.malformed().examples()).containsExactly("p2@17: not JSON");
        assertThat(got.status()).isEqualTo(Status.FAIL);
        assertThat(got.reason()).isEqualTo(want.counts.get("missing") + " missing, " + want.counts.get("duplicated") + " duplicated, "
                + want.counts.get("unexpected") + " unexpected, " + want.counts.get("mismatched") + " mismatched, " + want.counts.get("holes") + " holes");
        assertThat(want.counts().values()).allMatch(n -> n > 0); // the data really holds every kind
    }

    @Test
    void identitiesLongerThanTheSpillBuffersStillJoinExactly() throws Exception {
        String longId = "x".repeat(60_000);
        String longer = "y".repeat(65_535);
        try (BucketJoin join = new BucketJoin(10)) {
            for (int i = 0; i < 5_000; i++) { // short records around the long ones, so they straddle buffer ends
                join.source(0, i, "p-" + i, 1);
                join.target(utf8("p-" + i), 1);
                if (i == 2_500) {
                    join.source(0, 100_000, longId, 5);
                    join.source(0, 100_001, longer, Long.MIN_VALUE);
                    join.target(utf8(longId), 6);
                    join.target(utf8(longer), Long.MIN_VALUE);
                    join.target(utf8(longer), Long.MIN_VALUE);
                }
            }
            Comparison c = join.judge(new Cut("t", Instant.now(), Map.of()), "ns", null);
            assertThat(c.mismatched().count()).isEqualTo(1);
            assertThat(c.mismatched().examples()).containsExactly(longId + " source 5 target 6");
            assertThat(c.duplicated().examples()).containsExactly(longer + " x2");
            assertThat(c.counts()).containsEntry("source", 5_002L).containsEntry("effects", 5_003L).containsEntry("missing", 0L)
                    .containsEntry("unexpected", 0L);
        }
        try (BucketJoin join = new BucketJoin(10)) {
            assertThatThrownBy(() -> join.source(0, 0, "z".repeat(65_536), 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("message id of 65536 bytes is longer than the oracle's limit of 65535");
        }
    }

    @Test
    void integerAndDecimalAmountsCompareByTheirExactDigits() throws Exception {
        try (BucketJoin join = new BucketJoin(10)) {
            long[] amounts = {0, 7, -7, 10, -100, 1234567890123L, Long.MAX_VALUE, Long.MIN_VALUE};
            for (int i = 0; i < amounts.length; i++) {
                join.source(0, i, "a" + i, amounts[i]);
                if (i % 2 == 0) {
                    join.target(utf8("a" + i), Long.toString(amounts[i])); // the decimal path
                } else {
                    join.target(utf8("a" + i), amounts[i]); // the integer path
                }
            }
            join.source(0, 99, "half", 1);
            join.target(utf8("half"), "1.5");
            Comparison c = join.judge(new Cut("t", Instant.now(), Map.of()), "ns", null);
            assertThat(c.mismatched().examples()).containsExactly("half source 1 target 1.5");
            assertThat(c.counts()).containsEntry("mismatched", 1L).containsEntry("missing", 0L).containsEntry("duplicated", 0L);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void holesInMorePartitionsThanExamplesAreAllCountedAndTheFirstFiveShownInPartitionOrder() throws Exception {
        Map<Integer, Long> committed = new HashMap<>();
        try (BucketJoin join = new BucketJoin(20)) {
            for (int p = 0; p < 7; p++) {
                join.source(p, 0, "p" + p + "-0", 1);
                join.source(p, 1, "p" + p + "-1", 1);
                join.target(utf8("p" + p + "-1"), 1); // offset 0 has no effect, below the committed 2
                committed.put(p, 2L);
            }
            Comparison c = join.judge(new Cut("t", Instant.now(), Map.of()), "ns", snapshot(committed));
            assertThat(c.holes().count()).isEqualTo(7);
            assertThat(c.holes().examples()).hasSize(Finding.EXAMPLES).first().isEqualTo("t-0 committed 2 but offset 0 (p0-0) has no effect");
            assertThat(c.holes().examples().get(4)).startsWith("t-4 ");
            assertThat(c.missing().count()).isEqualTo(7);
        }
    }

    @Test
    void anEmptySourceAndTargetPass() throws Exception {
        try (BucketJoin join = new BucketJoin(0)) {
            Comparison c = join.judge(new Cut("t", Instant.now(), Map.of()), "ns", null);
            assertThat(c.status()).isEqualTo(Status.PASS);
            assertThat(c.reason()).isEqualTo("0 source records, 0 effects: every identity and amount matches");
            assertThat(c.holes()).isNull();
        }
    }

    @Test
    void malformedRecordsAloneAreListedInAPassingReason() throws Exception {
        try (BucketJoin join = new BucketJoin(10)) {
            join.source(0, 0, "a", 5);
            join.malformed(0, 1, "not JSON");
            join.target(utf8("a"), 5);
            Comparison c = join.judge(new Cut("t", Instant.now(), Map.of()), "ns", snapshot(Map.of(0, 2L)));
            assertThat(c.status()).isEqualTo(Status.PASS);
            assertThat(c.reason()).isEqualTo("1 source records, 1 effects: every identity and amount matches; 1 malformed source record(s) listed");
            assertThat(c.holes().count()).as("a committed offset past a malformed record is no hole").isZero();
        }
    }

    private static OffsetSnapshot snapshot(Map<Integer, Long> committed) {
        List<PartitionOffsets> parts = committed.entrySet().stream()
                .map(e -> new PartitionOffsets("t", e.getKey(), e.getValue(), null, 0, e.getValue() * 2, null)).toList();
        return new OffsetSnapshot(Instant.now(), "127.0.0.1:9092", "g", GroupState.EMPTY, "classic", null, List.of(), parts);
    }

    /** The obvious join: everything in hash maps. */
    private static final class Naive {
        final Map<String, Long> counts = new java.util.LinkedHashMap<>();
        final List<String> missingExamples;
        final List<String> duplicatedExamples;
        final List<String> unexpectedExamples;
        final List<String> mismatchedExamples;
        final List<String> sourceDupExamples;
        final List<String> holeExamples;

        Naive(List<Src> source, List<String[]> target, Map<Integer, Long> committed) {
            Map<String, Src> first = new HashMap<>();
            Map<String, Integer> copies = new HashMap<>();
            for (Src s : source) {
                first.putIfAbsent(s.id(), s);
                copies.merge(s.id(), 1, Integer::sum);
            }
            Map<String, Integer> effects = new HashMap<>();
            Map<String, Integer> ghosts = new TreeMap<>();
            TreeMap<String, String> mismatched = new TreeMap<>();
            long mismatchedCount = 0;
            for (String[] t : target) {
                Src s = first.get(t[0]);
                if (s == null) {
                    ghosts.merge(t[0], 1, Integer::sum);
                    continue;
                }
                effects.merge(t[0], 1, Integer::sum);
                if (!s.amount().equals(t[1])) {
                    mismatchedCount++;
                    mismatched.put(t[0], t[0] + " source " + s.amount() + " target " + t[1]);
                }
            }
            List<Src> missing = first.values().stream().filter(s -> !effects.containsKey(s.id()))
                    .sorted(java.util.Comparator.comparingInt(Src::partition).thenComparingLong(Src::offset)).toList();
            TreeMap<String, Integer> dup = new TreeMap<>();
            effects.forEach((id, n) -> {
                if (n > 1) {
                    dup.put(id, n);
                }
            });
            TreeMap<String, Integer> srcDup = new TreeMap<>();
            copies.forEach((id, n) -> {
                if (n > 1) {
                    srcDup.put(id, n);
                }
            });
            List<Src> holes = missing.stream().filter(s -> committed.containsKey(s.partition()) && s.offset() < committed.get(s.partition())).toList();
            Map<Integer, Src> firstHole = new TreeMap<>();
            holes.forEach(h -> firstHole.putIfAbsent(h.partition(), h));
            counts.put("source", (long) source.size());
            counts.put("effects", (long) target.size());
            counts.put("missing", (long) missing.size());
            counts.put("duplicated", (long) dup.size());
            counts.put("unexpected", (long) ghosts.size());
            counts.put("mismatched", mismatchedCount);
            counts.put("malformed", 1L);
            counts.put("source-duplicates", (long) srcDup.size());
            counts.put("holes", (long) holes.size());
            missingExamples = missing.stream().limit(Finding.EXAMPLES)
                    .map(s -> s.id() + " (p" + s.partition() + "@" + s.offset() + ", amount " + s.amount() + ")").toList();
            duplicatedExamples = dup.entrySet().stream().limit(Finding.EXAMPLES).map(e -> e.getKey() + " x" + e.getValue()).toList();
            unexpectedExamples = ghosts.keySet().stream().limit(Finding.EXAMPLES).toList();
            mismatchedExamples = mismatched.values().stream().limit(Finding.EXAMPLES).toList();
            sourceDupExamples = srcDup.entrySet().stream().limit(Finding.EXAMPLES).map(e -> e.getKey() + " at " + e.getValue() + " offsets").toList();
            holeExamples = firstHole.values().stream()
                    .map(h -> "t-" + h.partition() + " committed " + committed.get(h.partition()) + " but offset " + h.offset() + " (" + h.id()
                            + ") has no effect")
                    .collect(Collectors.toList());
        }

        Map<String, Long> counts() {
            return counts;
        }
    }
}
