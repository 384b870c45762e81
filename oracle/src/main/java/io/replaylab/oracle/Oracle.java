package io.replaylab.oracle;

import java.util.Objects;
import java.util.Optional;

import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionRef;

/**
 * The independent judge of one source topic against one target database: reads the topic up to a
 * cut and the target's effects, and compares exact identities and amounts (SPEC R6, R11, R12, R16).
 * It trusts neither the consumer's logs nor its counters. Both sides are spilled to bucket files by
 * identity and joined one bucket at a time, so memory stays bounded whatever the topic's size.
 * Reads of the target alone are {@link Target}'s ({@link Target#snapshot snapshot},
 * {@link Target#effectsOf effectsOf}, {@link Target#checkQuery checkQuery}); reads of a topic alone
 * and a topic compared with an output topic are {@link TopicOracle}'s.
 *
 * <pre>{@code
 * SourceSpec source = SourceSpec.topic(bootstrap, "lab-x.source");
 * try (Target target = Target.open(TargetSpec.sqlite(Path.of("target.db"), "lab-x/g1"))) {
 *     Oracle oracle = Oracle.of(source.upTo(TopicOracle.of(source).cut()), target);
 *     Comparison c = oracle.compare(committedOffsets);
 *     RecordEffects held = oracle.effectsAt(PartitionRef.of("lab-x.source", 0), 41);
 * }
 * }</pre>
 *
 * An instance holds no connection of its own: the target's pool serves it, and each read opens and
 * closes its own consumer. It may be kept and used again (each {@link #compare} takes a new cut when
 * the source has none).
 */
public final class Oracle {
    private final SourceSpec source;
    private final Target target;

    private Oracle(SourceSpec source, Target target) {
        this.source = Objects.requireNonNull(source, "source");
        this.target = Objects.requireNonNull(target, "target");
    }

    /** The oracle of {@code source} (its cut, parser and timeout) against {@code target} (its pool, namespace and query). */
    public static Oracle of(SourceSpec source, Target target) {
        return new Oracle(source, target);
    }

    public SourceSpec source() {
        return source;
    }

    public Target target() {
        return target;
    }

    /** Compares source and target, without the frontier check. */
    public Comparison compare() {
        return compare(null);
    }

    /** Compares source and target; with {@code committed} (a describe of the group) it also checks the frontier (R11). */
    public Comparison compare(OffsetSnapshot committed) {
        return SourceJoin.run(source, committed, null, target.spec().namespace(), join -> TargetReader.readInto(target, join));
    }

    /**
     * Compares source and target for a share group: {@code committed} its description (start offsets), {@code archived}
     * the records it archived (read on the wire: no Admin API shows them); one without an effect is reported as
     * {@link Comparison#archived() archived} or {@link Comparison#rejected() rejected}, not missing.
     */
    public Comparison compare(OffsetSnapshot committed, java.util.Collection<ArchivedRecord> archived) {
        return SourceJoin.run(source, committed, Objects.requireNonNull(archived, "archived"), target.spec().namespace(),
                join -> TargetReader.readInto(target, join));
    }

    /**
     * The effects in the target of the source record at one offset: how a held consumer's DB commit
     * is confirmed before its offset commit (SPEC R8): the record it commits past must have exactly
     * one effect while the group's committed offset is still below it.
     *
     * @param partition a partition of the source topic
     */
    public RecordEffects effectsAt(PartitionRef partition, long offset) {
        Optional<RecordParser.Parsed> rec = new SourceReader(source).recordAt(sourcePartition(partition), offset).filter(RecordParser.Parsed::ok);
        return new RecordEffects(partition, offset, rec.map(RecordParser.Parsed::id).orElse(null),
                rec.map(r -> target.effectsOf(r.id())).orElse(0L));
    }

    /**
     * The effects of the last source record below {@code committedOffset} on a partition: the record a
     * commit of that offset covers last. Not simply {@code committedOffset - 1}: a transactional
     * producer's commit markers take offsets of their own, and an aborted record is no source record.
     * Empty when the partition has no record below it.
     *
     * @param partition a partition of the source topic
     */
    public Optional<RecordEffects> effectsBefore(PartitionRef partition, long committedOffset) {
        return new SourceReader(source).lastRecordBelow(sourcePartition(partition), committedOffset)
                .map(r -> new RecordEffects(partition, r.offset(), r.parsed().ok() ? r.parsed().id() : null,
                        r.parsed().ok() ? target.effectsOf(r.parsed().id()) : 0));
    }

    /** One source record's identity (null: absent or malformed) and how many effects the target holds of it. */
    public record RecordEffects(PartitionRef partition, long offset, String messageId, long effects) {
        public RecordEffects {
            Objects.requireNonNull(partition, "partition");
        }

        /** The record exists, parses, and has exactly one effect. */
        public boolean appliedOnce() {
            return messageId != null && effects == 1;
        }
    }

    private int sourcePartition(PartitionRef partition) {
        if (!partition.topic().equals(source.topic())) {
            throw new IllegalArgumentException("partition " + partition + " is not of the source topic " + source.topic());
        }
        return partition.partition();
    }

    @Override
    public String toString() {
        return "Oracle[" + source.topic() + " vs " + target + "]";
    }
}
