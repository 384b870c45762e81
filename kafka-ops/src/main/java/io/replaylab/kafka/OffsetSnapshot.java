package io.replaylab.kafka;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A group's offsets at one moment, what {@code kafka-consumer-groups --describe} shows (SPEC R1):
 * state, protocol, coordinator, members, and per partition the committed offset, log start/end,
 * lag and owner.
 *
 * For a share group ({@link KafkaOps#describe(String, GroupType)}) each partition's {@code committed} is the
 * share-partition start offset and the lag is the broker's, as {@code kafka-share-groups --describe} shows them.
 *
 * @param protocol {@code classic} or {@code consumer}; null for a consumer group that does not exist; {@code share}
 *        for a share group (also one that does not exist yet: it was asked for as a share group)
 */
public record OffsetSnapshot(Instant takenAt, String bootstrap, String group, GroupState state, String protocol,
        String coordinator, List<GroupMember> members, List<PartitionOffsets> partitions) {
    /** The {@link #protocol} of a share group. */
    public static final String SHARE = "share";

    public OffsetSnapshot {
        members = List.copyOf(members);
        partitions = partitions.stream().sorted((a, b) -> a.ref().compareTo(b.ref())).toList();
    }

    /** A share group (KIP-932: start offsets, no committed offsets), else a consumer group. */
    public GroupType groupType() {
        return SHARE.equals(protocol) ? GroupType.SHARE : GroupType.CONSUMER;
    }

    public Optional<PartitionOffsets> partition(PartitionRef ref) {
        return partitions.stream().filter(p -> p.ref().equals(ref)).findFirst();
    }

    public Map<PartitionRef, PartitionOffsets> byPartition() {
        return partitions.stream().collect(Collectors.toMap(PartitionOffsets::ref, Function.identity()));
    }

    public long totalLag() {
        return partitions.stream().mapToLong(PartitionOffsets::lag).sum();
    }

    /** As an evidence event payload. */
    public OffsetsEvent.OffsetsSnapshot toPayload(String label) {
        return new OffsetsEvent.OffsetsSnapshot(label, group, state.display(), members.size(), partitions.stream()
                .map(p -> new OffsetsEvent.PartitionPosition(p.topic(), p.partition(), p.committed(), p.logStart(), p.logEnd(), p.owner()))
                .toList());
    }
}
