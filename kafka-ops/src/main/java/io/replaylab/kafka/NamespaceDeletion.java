package io.replaylab.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What {@link KafkaOps#deleteNamespace} did: the groups and topics it deleted, and each group it
 * could not delete yet with the broker's reason (a member that died without leaving stays until its
 * session times out).
 */
public record NamespaceDeletion(List<String> groups, List<String> topics, Map<String, String> groupsNotDeleted) {
    public NamespaceDeletion {
        groups = List.copyOf(groups);
        topics = List.copyOf(topics);
        groupsNotDeleted = java.util.Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(groupsNotDeleted, "groupsNotDeleted")));
    }

    /** Whether the namespace had nothing left to delete. */
    public boolean nothingWasThere() {
        return groups.isEmpty() && topics.isEmpty() && groupsNotDeleted.isEmpty();
    }

    /** Each group and topic in words, e.g. {@code group g}, {@code group h NOT deleted: …}, {@code topic t}. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        groups.forEach(g -> out.add("group " + g));
        groupsNotDeleted.forEach((g, why) -> out.add("group " + g + " NOT deleted: " + why));
        topics.forEach(t -> out.add("topic " + t));
        return out;
    }
}
