package io.replaylab.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.ToLongFunction;

import io.replaylab.evidence.BadInputException;
import io.replaylab.evidence.Setting;

/** The reset targets of {@code kafka-consumer-groups}, plus restoring saved offsets. */
public final class ResetTargets {
    /** The targets as refusals name them. */
    public static final Setting TO_OFFSET = Setting.of("ResetTargets", "toOffset");
    public static final Setting TO_EARLIEST = Setting.of("ResetTargets", "toEarliest");
    public static final Setting TO_LATEST = Setting.of("ResetTargets", "toLatest");
    public static final Setting SHIFT_BY = Setting.of("ResetTargets", "shiftBy");
    public static final Setting BY_DURATION = Setting.of("ResetTargets", "byDuration");

    private ResetTargets() {
    }

    public static ResetTarget toEarliest() {
        return simple("to-earliest", PartitionOffsets::logStart);
    }

    public static ResetTarget toLatest() {
        return simple("to-latest", PartitionOffsets::logEnd);
    }

    /** The committed offset; a partition without one gets the log end, as Kafka's tool does. */
    public static ResetTarget toCurrent() {
        return simple("to-current", p -> p.hasCommitted() ? p.committed() : p.logEnd());
    }

    public static ResetTarget toOffset(long offset) {
        if (offset < 0) {
            throw new BadInputException(TO_OFFSET + " must be >= 0, was " + offset, TO_OFFSET);
        }
        return simple("to-offset " + offset, p -> offset);
    }

    /** Moves each committed offset by {@code delta}; a partition with no committed offset cannot be shifted. */
    public static ResetTarget shiftBy(long delta) {
        return simple("shift-by " + delta, p -> {
            if (!p.hasCommitted()) {
                throw new BadInputException("cannot shift (" + SHIFT_BY + ") " + p.ref() + ": the group has no committed offset there; "
                        + "use " + TO_EARLIEST + ", " + TO_LATEST + " or " + TO_OFFSET + " for it", SHIFT_BY, TO_EARLIEST, TO_LATEST, TO_OFFSET);
            }
            return p.committed() + delta;
        });
    }

    /** The first offset at or after {@code time}; the log end when no record is that new. */
    public static ResetTarget toDatetime(Instant time) {
        Objects.requireNonNull(time, "time");
        return byTime("to-datetime " + time, lookup -> time);
    }

    /** The first offset at or after now minus {@code duration}. */
    public static ResetTarget byDuration(Duration duration) {
        if (duration.isNegative()) {
            throw new BadInputException(BY_DURATION + " must not be negative, was " + duration, BY_DURATION);
        }
        return byTime("by-duration " + duration, lookup -> lookup.now().minus(duration));
    }

    /** Exactly these offsets (from a CSV file or a saved plan); {@link PartitionOffsets#NONE} removes the committed offset. */
    public static ResetTarget toOffsets(String description, Map<PartitionRef, Long> offsets) {
        Map<PartitionRef, Long> copy = new TreeMap<>();
        offsets.forEach((k, v) -> copy.put(k, v == PartitionOffsets.NONE ? ResetTarget.REMOVE : v));
        if (copy.isEmpty()) {
            throw new IllegalArgumentException(description + " names no partition");
        }
        return new Rule(description, (current, lookup) -> copy, Optional.of(copy.keySet()));
    }

    private static ResetTarget simple(String description, ToLongFunction<PartitionOffsets> f) {
        return new Rule(description, (current, lookup) -> {
            Map<PartitionRef, Long> out = new TreeMap<>();
            current.forEach(p -> out.put(p.ref(), f.applyAsLong(p)));
            return out;
        }, Optional.empty());
    }

    private static ResetTarget byTime(String description, java.util.function.Function<OffsetLookup, Instant> when) {
        return new Rule(description, (current, lookup) -> {
            Map<PartitionRef, Long> found = lookup.offsetsForTime(current.stream().map(PartitionOffsets::ref).toList(), when.apply(lookup));
            Map<PartitionRef, Long> out = new TreeMap<>();
            for (PartitionOffsets p : current) {
                long o = found.getOrDefault(p.ref(), -1L);
                out.put(p.ref(), o < 0 ? p.logEnd() : o);
            }
            return out;
        }, Optional.empty());
    }

    /** A target as its description, its rule for the desired offsets, and the partitions it names (if it names them). */
    private record Rule(String describe, BiFunction<List<PartitionOffsets>, OffsetLookup, Map<PartitionRef, Long>> rule,
            Optional<Set<PartitionRef>> ownPartitions) implements ResetTarget {
        @Override
        public Map<PartitionRef, Long> desired(List<PartitionOffsets> current, OffsetLookup lookup) {
            return rule.apply(current, lookup);
        }
    }
}
