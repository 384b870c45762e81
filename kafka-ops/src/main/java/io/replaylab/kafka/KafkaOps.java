package io.replaylab.kafka;

import java.time.Duration;

import io.replaylab.evidence.Setting;

/**
 * Offsets operations on one cluster, in Kafka's own words: describe a group, plan a reset (a dry
 * run is just a plan you print), execute it through guards, restore a saved plan.
 *
 * <pre>{@code
 * try (KafkaOps ops = KafkaOps.connect("127.0.0.1:9092")) {
 *     OffsetSnapshot before = ops.describe("lab-x.group");
 *     ResetPlan plan = ops.planReset("lab-x.group", ResetScope.allTopics(), ResetTargets.toEarliest());
 *     ResetResult done = ops.executeReset(plan, ExecuteResetOptions.custom()
 *             .allowPrefix("lab-x").planDir(Path.of("plans")).build());
 * }
 * }</pre>
 *
 * No Kafka client type appears in this API; failures are unchecked {@link KafkaOpsException}s.
 */
public interface KafkaOps extends AutoCloseable {
    /** The bootstrap servers a client of the lab's connects to, as refusals name them. */
    Setting BOOTSTRAP = Setting.of("KafkaOps", "connect").saidAs("bootstrap servers");

    Duration DEFAULT_TIMEOUT = Duration.ofSeconds(15);

    static KafkaOps connect(String bootstrapServers) {
        return connect(bootstrapServers, DEFAULT_TIMEOUT);
    }

    /** @param timeout how long any one operation may wait for the broker before {@link BrokerUnreachableException} */
    static KafkaOps connect(String bootstrapServers, Duration timeout) {
        return connect(bootstrapServers, timeout, ClientProperties.none());
    }

    /** @param client how to reach a cluster that needs SASL or TLS (Kafka's {@code --command-config}) */
    static KafkaOps connect(String bootstrapServers, Duration timeout, ClientProperties client) {
        return new AdminKafkaOps(bootstrapServers, timeout, client);
    }

    String bootstrapServers();

    /** A consumer group's state, members and per-partition offsets (SPEC R1); a group that does not exist is NOT_FOUND. */
    default OffsetSnapshot describe(String group) {
        return describe(group, GroupType.CONSUMER);
    }

    /**
     * A group's state, members and per-partition offsets (SPEC R1); a group that does not exist is NOT_FOUND. A share
     * group's snapshot is what {@code kafka-share-groups --describe} shows with {@code --members}, {@code --offsets} and
     * {@code --state}: members (member id, client id, host, assigned partitions) and per partition its start offset and
     * the broker's lag, with log start/end; its protocol is {@code share}.
     *
     * @throws IllegalArgumentException when {@code group} is a group of the other type
     */
    OffsetSnapshot describe(String group, GroupType type);

    /** Computes a reset of a consumer group without changing anything (SPEC R2): this is the dry run. */
    default ResetPlan planReset(String group, ResetScope scope, ResetTarget target) {
        return planReset(group, GroupType.CONSUMER, scope, target);
    }

    /**
     * Computes a reset without changing anything (SPEC R2): this is the dry run, of {@code kafka-consumer-groups} or
     * {@code kafka-share-groups --reset-offsets}. The targets of Kafka's tools apply ({@link ResetTargets}), clamped to
     * [log start, log end]. A share group's plan moves its start offsets; acknowledgement state is not part of a reset and
     * cannot be restored: the plan's {@link ResetPlan#caveat()} says so. {@link #executeReset} executes either through the
     * same guards (a share group must have no member), and {@link #planRestore} plans the way back.
     */
    ResetPlan planReset(String group, GroupType type, ResetScope scope, ResetTarget target);

    /**
     * Executes a plan only if every guard holds, reporting all failed guards at once (SPEC R3, R4):
     * the group is inactive right now (a share group: no member); the group and every topic start with an allowed prefix; the
     * bootstrap is loopback unless remote is allowed; the plan is fresh (committed offsets are still
     * the plan's previous ones; a share group's start offsets); the plan has been saved durably into the
     * plan dir. Then alters, describes again and reports per partition whether it landed. A share
     * group's plan alters start offsets ({@code alterShareGroupOffsets}); removing one is possible only
     * for every partition of a topic at once ({@code deleteShareGroupOffsets} takes topics).
     *
     * @throws ResetRefusedException when a guard fails (nothing altered)
     * @throws KafkaOpsException when the broker refuses the alteration (the saved plan says NOT_APPLIED)
     */
    ResetResult executeReset(ResetPlan plan, ExecuteResetOptions options);

    /**
     * Plans the way back to a saved plan's previous offsets (a consumer group's committed offsets or a
     * share group's start offsets, as the saved plan was); execute it through the same guards. A share
     * group's restore brings back start offsets only, never acknowledgement state ({@link ResetPlan#caveat()}).
     */
    ResetPlan planRestore(SavedPlan saved);

    /**
     * Sets dynamic configs of a group (the broker's GROUP config resource), e.g. a share group's
     * {@code share.auto.offset.reset} and {@code share.record.lock.duration.ms}; the broker checks each
     * against its own bounds and refuses the whole change with its message.
     */
    void setGroupConfigs(String group, java.util.Map<String, String> configs);

    /**
     * A group's configs as the broker applies them (the GROUP config resource): those set on the group and the
     * broker's defaults for the rest, e.g. the {@code share.record.lock.duration.ms} its records are locked for now.
     */
    java.util.Map<String, String> groupConfigs(String group);

    /** The cluster's id: the same broker (or cluster) answers with the same id, another with another. */
    String clusterId();

    /**
     * Deletes the namespace's own topics and groups (consumer, share and streams groups, each by its
     * type), and nothing else (SPEC R17): only names the namespace {@link LabNamespace#owns owns}.
     * Returns what was deleted, and each group that cannot be deleted yet (a member that died without
     * leaving) with why.
     */
    NamespaceDeletion deleteNamespace(LabNamespace namespace);

    /**
     * Creates a topic of the lab's own (replication 1, as the lab's broker has one node) and waits
     * until every partition has a leader. Only inside {@code namespace} (R17): a name outside it is
     * refused with {@link IllegalArgumentException}; a topic that exists already is left as it is.
     */
    default void createTopic(LabNamespace namespace, String topic, int partitions) {
        createTopic(namespace, topic, partitions, 1, java.util.Map.of());
    }

    /**
     * As {@link #createTopic(LabNamespace, String, int)}, on a cluster: {@code replicationFactor}
     * replicas per partition and topic configs (e.g. {@code min.insync.replicas}). A replication
     * factor above the number of brokers is refused by the broker, by name.
     */
    void createTopic(LabNamespace namespace, String topic, int partitions, int replicationFactor, java.util.Map<String, String> configs);

    /**
     * Waits until {@code topic} is writable: every partition has a leader that hosts it (answers
     * ListOffsets). A just-created partition whose leader does not have it yet refuses an idempotent
     * producer's first batch NOT_LEADER, and the batches behind it stay refused OUT_OF_ORDER_SEQUENCE.
     * {@link #createTopic} waits for this itself; this is for a topic created some other way.
     */
    void awaitWritable(String topic);

    /**
     * Waits until the group's committed offsets reach the log end of every partition of {@code topic}
     * (the group has consumed everything there is now); {@code progress} sees each snapshot taken.
     *
     * @return the snapshot that showed it, or empty on timeout
     */
    java.util.Optional<OffsetSnapshot> awaitDrained(String group, String topic, Duration timeout,
            java.util.function.Consumer<OffsetSnapshot> progress) throws InterruptedException;

    /** Waits until the group is inactive (Empty, Dead or gone); returns the last snapshot either way. */
    OffsetSnapshot awaitInactive(String group, Duration timeout) throws InterruptedException;

    /**
     * Waits until a member whose id is not in {@code previousOwners} owns one of {@code partitions} in
     * the group's description: a rebalance moved it (the handoff of the rebalance experiment).
     * {@code eachLook} sees every description taken, e.g. to record each assignment change, before
     * that description is judged; {@code previousOwners} is read at each look, so {@code eachLook}
     * may add to it a member that counts as a previous owner (the same client joined again).
     *
     * @return the description that showed the new owner, or empty on timeout
     */
    java.util.Optional<OffsetSnapshot> awaitOwnerChange(String group, java.util.Set<PartitionRef> partitions, java.util.Set<String> previousOwners,
            Duration timeout, java.util.function.Consumer<OffsetSnapshot> eachLook) throws InterruptedException;

    /** Admin requests sent so far by this instance (for benchmarks). */
    long requestCount();

    @Override
    void close();
}
