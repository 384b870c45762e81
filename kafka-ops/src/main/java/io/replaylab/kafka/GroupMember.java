package io.replaylab.kafka;

import java.util.List;

/** A live member of a group and the partitions it owns now. */
public record GroupMember(String memberId, String instanceId, String clientId, String host, Integer memberEpoch,
        List<PartitionRef> assignment) {
    public GroupMember {
        assignment = assignment.stream().sorted().toList();
    }
}
