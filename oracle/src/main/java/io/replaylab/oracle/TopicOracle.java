package io.replaylab.oracle;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionRef;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The oracle's reads of one topic without a target database: its cut, what it holds, how many
 * records each isolation sees, and the topic compared with an output topic, the target of a
 * consume-transform-produce program (exactly-once experiments). Every read uses the spec's parser
 * and timeout, with an independent consumer (no group, no commits).
 *
 * <pre>{@code
 * TopicOracle output = TopicOracle.of(SourceSpec.topic(bootstrap, "lab-x.output"));
 * Comparison c = TopicOracle.of(source).compare(output.spec(), committed);   // read_committed on both sides
 * List<String> open = output.notCommitted();                                 // ids only read_uncommitted sees
 * TopicCount seen = output.count(Isolation.READ_UNCOMMITTED, Set.of("lab-x-7"));
 * }</pre>
 */
public final class TopicOracle {
    private final SourceSpec spec;

    private TopicOracle(SourceSpec spec) {
        this.spec = Objects.requireNonNull(spec, "spec");
    }

    /** The reads of {@code topic} (its bootstrap, topic, parser, timeout; its cut where a read goes up to one). */
    public static TopicOracle of(SourceSpec topic) {
        return new TopicOracle(topic);
    }

    public SourceSpec spec() {
        return spec;
    }

    /** What a reader sees of open and aborted transactions: Kafka's isolation levels, in the oracle's words. */
    public enum Isolation {
        /** Only records of committed transactions (and non-transactional ones), up to the last stable offset. */
        READ_COMMITTED,
        /** Every record written, including those of open and aborted transactions. */
        READ_UNCOMMITTED
    }

    /** The topic's end offsets now; {@link OracleReadException} when the broker does not answer within the spec's timeout. */
    public Cut cut() {
        return new SourceReader(spec).cut();
    }

    /**
     * What a source topic holds, read with its spec's parser (read_committed, up to its end now): the
     * source set an experiment expects effects for, when a producer other than the lab's filled it.
     *
     * @param records every record read
     * @param parsed the records the parser read (the rest are malformed: quarantined, no effect expected)
     * @param distinctIds the identities among them (a producer that sent a payment twice has fewer ids than records)
     * @param sumOfAmounts the sum of the parsed records' amounts
     * @param endOffsets per partition of {@code topic}, the offset after its last record
     * @param malformedExamples up to five reasons, with their positions
     * @param firstRecord the first record as text (key, value, headers), at most 300 characters, or null for an empty topic
     */
    public record SourceSummary(String topic, long records, long parsed, long distinctIds, long sumOfAmounts, Map<Integer, Long> endOffsets,
            List<String> malformedExamples, String firstRecord) {
        public SourceSummary {
            endOffsets = Map.copyOf(endOffsets);
            malformedExamples = List.copyOf(malformedExamples);
        }
    }

    /**
     * Reads the whole topic with its parser: counts, sum, ends, and the first record to show (see
     * {@link SourceSummary}). Meant for an experiment's topic: its identities are held in memory.
     */
    public SourceSummary summarize() {
        long[] n = new long[3];
        Set<String> ids = new HashSet<>();
        Map<Integer, Long> end = new TreeMap<>();
        List<String> bad = new ArrayList<>();
        String[] first = new String[1];
        new SourceReader(spec).readAll(Isolation.READ_COMMITTED, (r, p) -> {
            n[0]++;
            end.merge(r.partition(), r.offset() + 1, Math::max);
            if (first[0] == null) {
                first[0] = SourceReader.describe(r);
            }
            if (p.ok()) {
                n[1]++;
                n[2] += p.amount();
                ids.add(p.id());
            } else if (bad.size() < 5) {
                bad.add("p" + r.partition() + "@" + r.offset() + ": " + p.malformedReason());
            }
        });
        return new SourceSummary(spec.topic(), n[0], n[1], ids.size(), n[2], end, bad, first[0]);
    }

    /**
     * Compares this topic, the source, with an output topic, the target of a consume-transform-produce
     * program: every source record must be in the output exactly once with the same identity and
     * amount, both read {@code read_committed} (an aborted or still-open transaction's records do not
     * count). The output's records are read with {@code output}'s parser and up to its own cut (taken
     * now when it has none: with read_committed that is the last stable offset). With {@code committed}
     * the frontier is checked too (R11). The same bounded-memory join as {@link Oracle#compare}.
     *
     * @param committed a describe of the group, or null for no frontier check
     */
    public Comparison compare(SourceSpec output, OffsetSnapshot committed) {
        SourceReader outputReader = new SourceReader(output);
        Cut outputCut = outputReader.cutOrNow();
        return SourceJoin.run(spec, committed, null, "topic " + output.topic() + " (read_committed)", join -> outputReader.readTo(outputCut, join,
                new SourceReader.RecordSink() {
                    @Override
                    public void ok(int partition, long offset, String id, long amount) throws IOException {
                        join.target(TargetReader.utf8(id), amount);
                    }

                    @Override
                    public void malformed(int partition, long offset, String reason) {
                        throw new IllegalArgumentException("the output record " + output.topic() + "-" + partition + "@" + offset
                                + " cannot be read as an effect: " + reason);
                    }
                }));
    }

    /** How many records of a topic a reader with {@code isolation} sees, in all and for the given identities. */
    public record TopicCount(Isolation isolation, long records, Map<String, Long> ofIds) {
    }

    /**
     * Reads the whole topic as a reader with {@code isolation} would ({@code READ_UNCOMMITTED} sees the
     * records of open and aborted transactions, {@code READ_COMMITTED} does not) and counts its
     * records, and those with each of {@code ids}. Records its parser cannot read count in the total only.
     */
    public TopicCount count(Isolation isolation, Set<String> ids) {
        Map<String, Long> of = new HashMap<>();
        ids.forEach(id -> of.put(id, 0L));
        long[] total = {0};
        new SourceReader(spec).readAll(isolation, (r, p) -> {
            total[0]++;
            if (p.ok() && of.containsKey(p.id())) {
                of.merge(p.id(), 1L, Long::sum);
            }
        });
        return new TopicCount(isolation, total[0], Map.copyOf(of));
    }

    /**
     * The identities of the topic's records that a {@code read_uncommitted} reader sees and a
     * {@code read_committed} one does not: records of transactions still open or aborted. Meant for
     * the small topics of an experiment (the positions of the committed records are held in memory).
     */
    public List<String> notCommitted() {
        SourceReader reader = new SourceReader(spec);
        Set<Long> committed = new HashSet<>();
        reader.readAll(Isolation.READ_COMMITTED, (r, p) -> committed.add(position(r)));
        List<String> out = new ArrayList<>();
        reader.readAll(Isolation.READ_UNCOMMITTED, (r, p) -> {
            if (!committed.contains(position(r))) {
                out.add(p.ok() ? p.id() : r.topic() + "-" + r.partition() + "@" + r.offset() + " (unreadable: " + p.malformedReason() + ")");
            }
        });
        return out;
    }

    /**
     * Per partition, the offset after its last record ({@code read_committed}): where a consumer that
     * commits each record's next offset ends. Below the log end when transaction markers (or aborted
     * records) come last; a partition with no record is absent.
     */
    public Map<Integer, Long> recordEnds() {
        Map<Integer, Long> ends = new java.util.TreeMap<>();
        new SourceReader(spec).readAll(Isolation.READ_COMMITTED, (r, p) -> ends.merge(r.partition(), r.offset() + 1, Math::max));
        return ends;
    }

    /** The identity at each offset, read now and again when asked beyond what was read (see {@link SourceIndex}). */
    public SourceIndex index() {
        return new SourceIndex(spec);
    }

    /** Where a record is: partition and offset; shown as {@code partition@offset} (the topic is the reader's). */
    public record Position(PartitionRef partition, long offset) {
        public Position {
            Objects.requireNonNull(partition, "partition");
        }

        @Override
        public String toString() {
            return partition.partition() + "@" + offset;
        }
    }

    /** Every position of a record with this identity in the topic ({@code read_committed}), in partition and offset order. */
    public List<Position> positionsOf(String id) {
        List<Position> out = new ArrayList<>();
        new SourceReader(spec).readAll(Isolation.READ_COMMITTED, (r, p) -> {
            if (p.ok() && p.id().equals(id)) {
                out.add(new Position(PartitionRef.of(r.topic(), r.partition()), r.offset()));
            }
        });
        out.sort(Comparator.comparing(Position::partition).thenComparingLong(Position::offset));
        return out;
    }

    private static long position(ConsumerRecord<byte[], byte[]> r) {
        return ((long) r.partition() << 48) | r.offset();
    }

    @Override
    public String toString() {
        return "TopicOracle[" + spec.topic() + "]";
    }
}
