package io.replaylab.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import io.replaylab.evidence.BadInputException;
import io.replaylab.evidence.process.Poll;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link KafkaOps} over one Admin client. Each operation makes a fixed number of batched requests. */
final class AdminKafkaOps implements KafkaOps {
    private static final Logger log = LoggerFactory.getLogger(AdminKafkaOps.class);

    private final String bootstrap;
    private final Duration timeout;
    private final ClientProperties client;
    private final Admin admin;
    /** Plans and executes resets over this client. */
    final OffsetReset reset = new OffsetReset(this);
    AdminKafkaOps(String bootstrap, Duration timeout, ClientProperties client) {
        this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.client = Objects.requireNonNull(client, "client");
        Properties p = client.properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 10_000));
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "replay-lab-ops");
        try {
            this.admin = Admin.create(p);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new BadInputException("bad " + KafkaOps.BOOTSTRAP + " '" + bootstrap + "' or " + ClientProperties.SETTING + " " + client + ": "
                    + e.getMessage(), e, KafkaOps.BOOTSTRAP, ClientProperties.SETTING);
        }
    }

    @Override
    public String bootstrapServers() {
        return bootstrap;
    }

    @Override
    public OffsetSnapshot describe(String group, io.replaylab.kafka.GroupType type) {
        return snapshot(group, type, Set.of());
    }

    /** The group's offsets as a plan knows them: its own partitions and {@code extra}, each with its log bounds. */
    OffsetSnapshot snapshot(String group, io.replaylab.kafka.GroupType type, Set<PartitionRef> extra) {
        return type == io.replaylab.kafka.GroupType.SHARE ? describeShare(group, extra) : describe(group, extra);
    }

    /** Sets and removes the group's offsets (a consumer group's committed ones, a share group's start offsets). */
    void alter(String group, io.replaylab.kafka.GroupType type, Map<TopicPartition, OffsetAndMetadata> alter, Set<TopicPartition> delete) {
        if (type == io.replaylab.kafka.GroupType.SHARE) {
            alterShare(group, alter, delete);
        } else {
            alterConsumer(group, alter, delete);
        }
    }

    @Override
    public ResetPlan planReset(String group, io.replaylab.kafka.GroupType type, ResetScope scope, ResetTarget target) {
        return reset.plan(group, type, scope, target);
    }

    @Override
    public ResetPlan planRestore(SavedPlan saved) {
        ResetPlan p = saved.plan();
        return planReset(p.group(), p.groupType(), ResetScope.allTopics(), ResetTargets.toOffsets("restore " + p.planId(), p.previousOffsets()));
    }

    @Override
    public ResetResult executeReset(ResetPlan plan, ExecuteResetOptions options) {
        return reset.execute(plan, options);
    }

    /** Describes the group over its committed partitions, its assigned partitions and {@code extra}. */
    private OffsetSnapshot describe(String group, Set<PartitionRef> extra) {
        Instant taken = Instant.now();
        GroupState state;
        String protocol = null;
        String coordinator = null;
        List<GroupMember> members = new ArrayList<>();
        Map<PartitionRef, String> owners = new HashMap<>();
        try {
            ConsumerGroupDescription d = get(admin.describeConsumerGroups(List.of(group)).describedGroups().get(group), "describe group " + group);
            state = map(d.groupState());
            protocol = d.type() == GroupType.CONSUMER ? "consumer" : d.type() == GroupType.CLASSIC ? "classic" : d.type().toString();
            coordinator = d.coordinator() == null ? null : d.coordinator().host() + ":" + d.coordinator().port() + " (" + d.coordinator().id() + ")";
            for (MemberDescription m : d.members()) {
                List<PartitionRef> parts = m.assignment().topicPartitions().stream().map(tp -> new PartitionRef(tp.topic(), tp.partition())).toList();
                parts.forEach(pr -> owners.put(pr, m.consumerId()));
                members.add(new GroupMember(m.consumerId(), m.groupInstanceId().orElse(null), m.clientId(), m.host(),
                        m.memberEpoch().orElse(null), parts));
            }
            if (state == GroupState.DEAD && members.isEmpty()) {
                state = GroupState.NOT_FOUND;
            }
        } catch (NotFound e) {
            state = GroupState.NOT_FOUND;
        }
        Map<TopicPartition, OffsetAndMetadata> committed = state == GroupState.NOT_FOUND ? Map.of()
                : get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(), "list offsets of group " + group);
        Set<PartitionRef> all = new LinkedHashSet<>(extra);
        committed.forEach((tp, om) -> {
            if (om != null) {
                all.add(new PartitionRef(tp.topic(), tp.partition()));
            }
        });
        all.addAll(owners.keySet());
        List<PartitionOffsets> rows = rows(all, (r, b) -> {
            OffsetAndMetadata om = committed.get(new TopicPartition(r.topic(), r.partition()));
            return new PartitionOffsets(r.topic(), r.partition(), om == null ? PartitionOffsets.NONE : om.offset(),
                    om == null ? null : om.leaderEpoch().orElse(null), b[0], b[1], owners.get(r));
        });
        return new OffsetSnapshot(taken, bootstrap, group, state, protocol, coordinator, members, rows);
    }

    @Override
    public void setGroupConfigs(String group, Map<String, String> configs) {
        List<AlterConfigOp> ops = configs.entrySet().stream().map(c -> new AlterConfigOp(
                new ConfigEntry(c.getKey(), c.getValue()), AlterConfigOp.OpType.SET)).toList();
        get(admin.incrementalAlterConfigs(Map.of(new ConfigResource(
                ConfigResource.Type.GROUP, group), ops)).all(), "set configs " + configs + " of group " + group);
    }

    @Override
    public Map<String, String> groupConfigs(String group) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        Config config = get(admin.describeConfigs(List.of(resource)).all(), "describe configs of group " + group).get(resource);
        Map<String, String> out = new java.util.TreeMap<>();
        config.entries().stream().filter(c -> c.value() != null).forEach(c -> out.put(c.name(), c.value()));
        return out;
    }

    /**
     * Describes a share group over the partitions it has start offsets for (share-partition state, made at a member's
     * first fetch or by an alter), its members' assigned partitions and {@code extra}.
     */
    private OffsetSnapshot describeShare(String group, Set<PartitionRef> extra) {
        Instant taken = Instant.now();
        GroupState state;
        String coordinator = null;
        List<GroupMember> members = new ArrayList<>();
        Set<PartitionRef> assigned = new LinkedHashSet<>();
        try {
            ShareGroupDescription d = get(admin.describeShareGroups(List.of(group)).describedGroups().get(group), "describe share group " + group);
            state = map(d.groupState());
            coordinator = d.coordinator() == null ? null : d.coordinator().host() + ":" + d.coordinator().port() + " (" + d.coordinator().id() + ")";
            for (ShareMemberDescription m : d.members()) {
                List<PartitionRef> parts = m.assignment().topicPartitions().stream().map(tp -> new PartitionRef(tp.topic(), tp.partition())).toList();
                assigned.addAll(parts);
                members.add(new GroupMember(m.consumerId(), null, m.clientId(), m.host(), m.memberEpoch(), parts));
            }
            if (state == GroupState.DEAD && members.isEmpty()) {
                state = GroupState.NOT_FOUND;
            }
        } catch (NotFound e) {
            refuseOtherType(group, GroupType.SHARE);
            state = GroupState.NOT_FOUND;
        }
        Map<TopicPartition, SharePartitionOffsetInfo> start = state == GroupState.NOT_FOUND ? Map.of()
                : get(admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(group),
                        "list start offsets of share group " + group);
        Set<PartitionRef> all = new LinkedHashSet<>(extra);
        start.forEach((tp, info) -> {
            if (info != null) {
                all.add(new PartitionRef(tp.topic(), tp.partition()));
            }
        });
        all.addAll(assigned);
        List<PartitionOffsets> rows = rows(all, (r, b) -> {
            SharePartitionOffsetInfo info = start.get(new TopicPartition(r.topic(), r.partition()));
            // no single owner: a share group's members share partitions; the members' assignments say who fetches where
            return new PartitionOffsets(r.topic(), r.partition(), info == null ? PartitionOffsets.NONE : info.startOffset(),
                    info == null ? null : info.leaderEpoch().orElse(null), b[0], b[1], null, info == null ? null : info.lag().orElse(null));
        });
        return new OffsetSnapshot(taken, bootstrap, group, state, OffsetSnapshot.SHARE, coordinator, members, rows);
    }

    /** One row per partition of {@code all}, in its order, each made from the partition and its log's {start, end} ({-1, -1}: unknown). */
    private List<PartitionOffsets> rows(Set<PartitionRef> all, java.util.function.BiFunction<PartitionRef, long[], PartitionOffsets> row) {
        Map<PartitionRef, long[]> bounds = logBounds(all);
        return all.stream().map(r -> row.apply(r, bounds.getOrDefault(r, new long[] {-1, -1}))).toList();
    }

    /** A group the broker does not know as {@code expected} may exist as another type: say so rather than call it not found. */
    private void refuseOtherType(String group, GroupType expected) {
        get(admin.listGroups().all(), "list groups").stream().filter(g -> g.groupId().equals(group)).findFirst()
                .flatMap(GroupListing::type).filter(t -> t != expected).ifPresent(t -> {
                    throw new IllegalArgumentException("group '" + group + "' is a " + t.toString().toLowerCase(java.util.Locale.ROOT) + " group, not a "
                            + expected.toString().toLowerCase(java.util.Locale.ROOT) + " group" + (expected == GroupType.SHARE
                                    ? ": describe and reset it as a consumer group (GroupType.CONSUMER)"
                                    : ": describe and reset it as a share group (GroupType.SHARE)"));
                });
    }

    private void alterConsumer(String group, Map<TopicPartition, OffsetAndMetadata> alter, Set<TopicPartition> delete) {
        if (!alter.isEmpty()) {
            get(admin.alterConsumerGroupOffsets(group, alter).all(), "alter offsets of group " + group);
        }
        if (!delete.isEmpty()) {
            get(admin.deleteConsumerGroupOffsets(group, delete).all(), "delete offsets of group " + group);
        }
    }

    /** Log start and end of each partition: two batched ListOffsets calls. */
    private Map<PartitionRef, long[]> logBounds(Collection<PartitionRef> parts) {
        if (parts.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (PartitionRef r : parts) {
            earliest.put(new TopicPartition(r.topic(), r.partition()), OffsetSpec.earliest());
            latest.put(new TopicPartition(r.topic(), r.partition()), OffsetSpec.latest());
        }
        ListOffsetsResult e = admin.listOffsets(earliest);
        ListOffsetsResult l = admin.listOffsets(latest);
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> es = get(e.all(), "list log start offsets");
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ls = get(l.all(), "list log end offsets");
        Map<PartitionRef, long[]> out = new HashMap<>();
        es.forEach((tp, info) -> out.put(new PartitionRef(tp.topic(), tp.partition()), new long[] {info.offset(), ls.get(tp).offset()}));
        return out;
    }

    @Override
    public java.util.Optional<OffsetSnapshot> awaitDrained(String group, String topic, Duration timeout,
            java.util.function.Consumer<OffsetSnapshot> progress) throws InterruptedException {
        Set<PartitionRef> parts = partitionsOf(new ResetScope.Topics(List.of(new ResetScope.TopicSelection(topic, List.of()))));
        // lag 0: committed at the log end, or an empty partition with nothing to commit
        return watch(group, parts, Duration.ofMillis(250), timeout, progress,
                s -> s.partitions().stream().filter(p -> parts.contains(p.ref())).allMatch(p -> p.lag() == 0));
    }

    @Override
    public java.util.Optional<OffsetSnapshot> awaitOwnerChange(String group, Set<PartitionRef> partitions, Set<String> previousOwners, Duration timeout,
            java.util.function.Consumer<OffsetSnapshot> eachLook) throws InterruptedException {
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("no partition to watch in group " + group);
        }
        return watch(group, partitions, Duration.ofMillis(200), timeout, eachLook, s -> s.members().stream()
                .anyMatch(m -> !previousOwners.contains(m.memberId()) && m.assignment().stream().anyMatch(partitions::contains)));
    }

    /** Describes the group over {@code parts} every {@code every}, each look told, until {@code done} holds (then the last look) or the timeout. */
    private java.util.Optional<OffsetSnapshot> watch(String group, Set<PartitionRef> parts, Duration every, Duration timeout,
            java.util.function.Consumer<OffsetSnapshot> eachLook, java.util.function.Predicate<OffsetSnapshot> done) throws InterruptedException {
        OffsetSnapshot last = Poll.every(every).upTo(timeout).until(() -> {
            OffsetSnapshot s = describe(group, parts);
            eachLook.accept(s);
            return s;
        }, done);
        return java.util.Optional.of(last).filter(done);
    }

    @Override
    public OffsetSnapshot awaitInactive(String group, Duration timeout) throws InterruptedException {
        return Poll.every(Duration.ofMillis(250)).upTo(timeout).until(() -> describe(group), s -> s.state().isInactive());
    }

    @Override
    public String clusterId() {
        return get(admin.describeCluster().clusterId(), "describe the cluster");
    }

    @Override
    public NamespaceDeletion deleteNamespace(LabNamespace namespace) {
        List<String> deleted = new ArrayList<>();
        Map<String, String> kept = new TreeMap<>();
        // each group by its type: the consumer-group delete refuses a share or streams group (GROUP_ID_NOT_FOUND)
        Map<GroupType, List<String>> groups = get(admin.listGroups().all(), "list groups").stream().filter(g -> namespace.owns(g.groupId()))
                .collect(Collectors.groupingBy(g -> g.type().orElse(GroupType.UNKNOWN), () -> new java.util.EnumMap<>(GroupType.class),
                        Collectors.mapping(GroupListing::groupId, Collectors.toList())));
        Map<String, org.apache.kafka.common.KafkaFuture<Void>> results = new TreeMap<>();
        groups.forEach((type, ids) -> results.putAll(switch (type) {
            case SHARE -> admin.deleteShareGroups(ids).deletedGroups();
            case STREAMS -> admin.deleteStreamsGroups(ids).deletedGroups();
            default -> admin.deleteConsumerGroups(ids).deletedGroups();
        }));
        results.forEach((g, result) -> {
            try {
                get(result, "delete group " + g);
                deleted.add(g);
            } catch (KafkaOpsException e) {
                // e.g. a member that died without leaving is still in the group until its session times out
                kept.put(g, e.getMessage());
            }
        });
        List<String> topics = get(admin.listTopics().names(), "list topics").stream().filter(namespace::owns).sorted().toList();
        if (!topics.isEmpty()) {
            get(admin.deleteTopics(topics).all(), "delete topics " + topics);
        }
        NamespaceDeletion done = new NamespaceDeletion(deleted, topics, kept);
        log.info("deleted namespace {}: {}", namespace, done.lines());
        return done;
    }

    @Override
    public void createTopic(LabNamespace namespace, String topic, int partitions, int replicationFactor, Map<String, String> configs) {
        if (!namespace.owns(topic)) {
            throw new IllegalArgumentException("topic " + topic + " is outside the namespace " + namespace.prefix() + ": the lab creates only its own");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("a topic needs at least one partition, was " + partitions);
        }
        try {
            if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
                throw new IllegalArgumentException("a replication factor is at least 1, was " + replicationFactor);
            }
            get(admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, partitions, (short) replicationFactor).configs(configs)))
                    .all(), "create topic " + topic);
        } catch (KafkaOpsException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                throw e;
            }
        }
        awaitWritable(topic);
    }

    @Override
    public void awaitWritable(String topic) {
        // the last description seen: null while the metadata has not reached the broker's cache
        java.util.concurrent.atomic.AtomicReference<TopicDescription> seen = new java.util.concurrent.atomic.AtomicReference<>();
        boolean writable;
        try {
            writable = Poll.every(Duration.ofMillis(50)).upTo(timeout).until(() -> {
                try {
                    seen.set(get(admin.describeTopics(List.of(topic)).allTopicNames(), "describe topic " + topic).get(topic));
                } catch (NotFound notYet) {
                    seen.set(null);
                    return false;
                }
                TopicDescription d = seen.get();
                if (d.partitions().stream().anyMatch(p -> p.leader() == null || p.leader().isEmpty())) {
                    return false;
                }
                // and every leader has the partition (it answers ListOffsets; the Admin client retries until it does): a first
                // idempotent batch refused NOT_LEADER would leave the batches behind it refused OUT_OF_ORDER_SEQUENCE for good
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                d.partitions().forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
                try {
                    admin.listOffsets(latest).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    return true;
                } catch (ExecutionException | TimeoutException notYet) {
                    return false; // UNKNOWN_TOPIC_OR_PARTITION or NOT_LEADER until the leader has it: ask again
                }
            });
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new KafkaOpsException("interrupted while waiting for the leaders of " + topic, ie);
        }
        if (!writable) {
            throw new KafkaOpsException(seen.get() == null ? "topic " + topic + " does not exist (the broker did not know it for " + timeout.toSeconds() + " s)"
                    : "topic " + topic + " has a partition without a leader (or one that does not host it yet) after " + timeout.toSeconds() + " s");
        }
    }

    @Override
    public long requestCount() {
        return (long) admin.metrics().entrySet().stream().filter(e -> e.getKey().name().equals("request-total")
                && e.getKey().group().equals("admin-client-metrics")).mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }

    Set<PartitionRef> partitionsOf(ResetScope.Topics t) {
        Map<String, Set<Integer>> existing = existingPartitions(t.topics().stream().map(ResetScope.TopicSelection::topic).collect(Collectors.toSet()));
        Set<PartitionRef> out = new LinkedHashSet<>();
        for (ResetScope.TopicSelection s : t.topics()) {
            Set<Integer> parts = existing.get(s.topic());
            if (s.partitions().isEmpty()) {
                parts.stream().sorted().forEach(p -> out.add(new PartitionRef(s.topic(), p)));
            } else {
                for (int p : s.partitions()) {
                    if (!parts.contains(p)) {
                        throw new IllegalArgumentException("partition " + p + " of topic '" + s.topic() + "' does not exist (it has partitions 0.."
                                + (parts.size() - 1) + ")");
                    }
                    out.add(new PartitionRef(s.topic(), p));
                }
            }
        }
        return out;
    }

    Map<String, Set<Integer>> existingPartitions(Set<String> topics) {
        Map<String, TopicDescription> d;
        try {
            d = get(admin.describeTopics(topics).allTopicNames(), "describe topics " + topics);
        } catch (NotFound e) {
            throw new IllegalArgumentException("topic not found: " + topics + " (" + e.getMessage() + ")");
        }
        Map<String, Set<Integer>> out = new TreeMap<>();
        d.forEach((name, td) -> out.put(name, td.partitions().stream().map(p -> p.partition()).collect(Collectors.toSet())));
        return out;
    }

    /**
     * A share group's start offsets are altered per partition, but removed per topic ({@code deleteShareGroupOffsets} takes
     * topics): removes only where the plan removes every partition of the topic the group has a start offset for.
     */
    private void alterShare(String group, Map<TopicPartition, OffsetAndMetadata> alter, Set<TopicPartition> delete) {
        if (!alter.isEmpty()) {
            Map<TopicPartition, Long> start = new HashMap<>();
            alter.forEach((tp, om) -> start.put(tp, om.offset()));
            get(admin.alterShareGroupOffsets(group, start).all(), "alter start offsets of share group " + group);
        }
        if (!delete.isEmpty()) {
            Set<String> topics = delete.stream().map(TopicPartition::topic).collect(Collectors.toCollection(java.util.TreeSet::new));
            get(admin.deleteShareGroupOffsets(group, topics).all(), "delete start offsets of share group " + group + " on " + topics);
        }
    }

    private static GroupState map(org.apache.kafka.common.GroupState s) {
        if (s == null) {
            return GroupState.UNKNOWN;
        }
        return switch (s) {
            case EMPTY -> GroupState.EMPTY;
            case STABLE -> GroupState.STABLE;
            case PREPARING_REBALANCE -> GroupState.PREPARING_REBALANCE;
            case COMPLETING_REBALANCE -> GroupState.COMPLETING_REBALANCE;
            case ASSIGNING -> GroupState.ASSIGNING;
            case RECONCILING -> GroupState.RECONCILING;
            case NOT_READY -> GroupState.NOT_READY;
            case DEAD -> GroupState.DEAD;
            default -> GroupState.UNKNOWN;
        };
    }

    /** Waits for a Kafka future; maps timeouts and errors to our exceptions. */
    private <T> T get(org.apache.kafka.common.KafkaFuture<T> f, String what) {
        try {
            return f.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaOpsException("interrupted while waiting to " + what, e);
        } catch (TimeoutException e) {
            throw unreachable(what, e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof GroupIdNotFoundException || c instanceof UnknownTopicOrPartitionException) {
                throw new NotFound(c.getMessage());
            }
            if (c instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw unreachable(what, c);
            }
            if (c instanceof org.apache.kafka.common.errors.AuthenticationException || c instanceof org.apache.kafka.common.errors.AuthorizationException) {
                // the login or its rights, not the broker: what the caller gave (or did not give) decides it
                throw new BadInputException("the broker at " + bootstrap + " refused the lab's client (" + what + "): " + c.getMessage()
                        + "; check " + ClientProperties.SETTING, c, ClientProperties.SETTING);
            }
            throw new KafkaOpsException("cannot " + what + ": " + c.getClass().getSimpleName() + ": " + c.getMessage(), c);
        }
    }

    private BrokerUnreachableException unreachable(String what, Throwable cause) {
        return new BrokerUnreachableException("the broker at " + bootstrap + " did not answer within " + timeout.toSeconds()
                + " s (" + what + "); is it running and reachable?"
                // a listener that wants SASL or TLS drops a plaintext client without a word: it looks like no broker
                + (client.isEmpty() ? " A broker that needs SASL or TLS looks like this too to a client without " + ClientProperties.SETTING + "." : ""),
                cause, ClientProperties.SETTING);
    }

    /** The group or topic does not exist. */
    private static final class NotFound extends RuntimeException {
        NotFound(String message) {
            super(message);
        }
    }

    /** Offsets for a time, through this client. */
    final class Lookup implements OffsetLookup {
        @Override
        public Map<PartitionRef, Long> offsetsForTime(Collection<PartitionRef> partitions, Instant time) {
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            partitions.forEach(p -> q.put(new TopicPartition(p.topic(), p.partition()), OffsetSpec.forTimestamp(time.toEpochMilli())));
            Map<PartitionRef, Long> out = new HashMap<>();
            get(admin.listOffsets(q).all(), "look up offsets for " + time).forEach((tp, info) ->
                    out.put(new PartitionRef(tp.topic(), tp.partition()), info.offset()));
            return out;
        }

        @Override
        public Instant now() {
            return Instant.now();
        }
    }
}
