package io.replaylab.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

import io.replaylab.evidence.BadInputException;
import io.replaylab.evidence.Setting;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reset planned and executed over one cluster: the plan from the group's offsets and the target,
 * every guard before anything changes, the plan saved first, the alter, and where each partition
 * landed. The cluster calls are {@link AdminKafkaOps}'s.
 */
final class OffsetReset {
    private static final Logger log = LoggerFactory.getLogger(OffsetReset.class);

    private final AdminKafkaOps ops;
    /** Runs after every guard passed and the plan was saved, just before the alter: a test widens the race window here. */
    Runnable beforeAlter = () -> {
    };
    /** Runs right after the alter, before the landing is verified: a test moves an offset here to reach PARTIAL. */
    Runnable afterAlter = () -> {
    };


    OffsetReset(AdminKafkaOps ops) {
        this.ops = ops;
    }

    /**
     * How a reset speaks of one kind of group's offsets: a consumer group's committed offsets, a share
     * group's start offsets. Planning and executing are the same for both; this is where they differ.
     *
     * @param word      what an offset is called: "committed offset", "start offset"
     * @param stoodAt   how a stale plan's row says where the partition stood: " was committed at ", " had start offset "
     * @param noOffsets why a plan has no rows: of the group, in the scope described (null: unscoped)
     * @param refusals  why this plan cannot be executed on this kind of group as it stands now (none for a consumer group)
     */
    private record Words(String word, String stoodAt, BiFunction<String, String, String> noOffsets,
            BiFunction<ResetPlan, OffsetSnapshot, List<String>> refusals) {
        private static final Words CONSUMER = new Words("committed offset", " was committed at ",
                (group, in) -> "group '" + group + "' has no committed offsets" + (in != null ? " in " + in : "; name the topics to reset ("
                        + ResetScope.TOPICS + ")"),
                (plan, now) -> List.of());

        private static final Words SHARE = new Words("start offset", " had start offset ",
                (group, in) -> "share group '" + group + "' has no start offsets (no member has fetched yet); name the topics to reset ("
                        + ResetScope.TOPICS + ")",
                OffsetReset::partialTopicRemovals);

        static Words of(GroupType type) {
            return type == GroupType.SHARE ? SHARE : CONSUMER;
        }
    }

    ResetPlan plan(String group, GroupType type, ResetScope scope, ResetTarget target) {
        Objects.requireNonNull(type, "type");
        Words kind = Words.of(type);
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(target, "target");
        Set<PartitionRef> inScope = target.ownPartitions().map(s -> (Set<PartitionRef>) new LinkedHashSet<>(s))
                .orElseGet(() -> scope instanceof ResetScope.Topics t ? ops.partitionsOf(t) : null);
        if (inScope != null) {
            Set<String> topics = inScope.stream().map(PartitionRef::topic).collect(Collectors.toSet());
            Map<String, Set<Integer>> existing = ops.existingPartitions(topics);
            for (PartitionRef r : inScope) {
                if (!existing.getOrDefault(r.topic(), Set.of()).contains(r.partition())) {
                    throw new IllegalArgumentException("partition " + r + " does not exist (topic " + r.topic() + " has "
                            + existing.getOrDefault(r.topic(), Set.of()).size() + " partition(s))");
                }
            }
        }
        OffsetSnapshot before = ops.snapshot(group, type, inScope == null ? Set.of() : inScope);
        // unscoped: the partitions the group has offsets for (a consumer group's description lists only those; a share group's may list more)
        List<PartitionOffsets> rows = inScope == null ? before.partitions().stream().filter(p -> type != GroupType.SHARE || p.hasCommitted()).toList()
                : before.partitions().stream().filter(p -> inScope.contains(p.ref())).toList();
        if (rows.isEmpty()) {
            throw new BadInputException(kind.noOffsets().apply(group, inScope != null ? scope.describe() : null), ResetScope.TOPICS);
        }
        Map<PartitionRef, Long> desired = target.desired(rows, ops.new Lookup());
        List<PlanRow> plan = new ArrayList<>();
        for (PartitionOffsets p : rows) {
            Long want = desired.get(p.ref());
            if (want == null) {
                continue;
            }
            long next = want;
            String note = null;
            if (want == ResetTarget.REMOVE) {
                next = PartitionOffsets.NONE;
                note = "removes the " + kind.word() + " (there was none before)";
            } else if (want < p.logStart()) {
                next = p.logStart();
                note = "clamped up from " + want + " to log start " + p.logStart();
            } else if (want > p.logEnd()) {
                next = p.logEnd();
                note = "clamped down from " + want + " to log end " + p.logEnd();
            }
            plan.add(new PlanRow(p.topic(), p.partition(), p.committed(), next, note));
        }
        String id = "reset-" + safe(group) + "-" + Instant.now().toString().replaceAll("[:.]", "") + "-" + UUID.randomUUID().toString().substring(0, 6);
        return new ResetPlan(id, Instant.now(), ops.bootstrapServers(), group, scope.describe(), target.describe(), plan, before);
    }

    ResetResult execute(ResetPlan plan, ExecuteResetOptions options) {
        String bootstrap = ops.bootstrapServers();
        List<String> failed = new ArrayList<>();
        List<Setting> named = new ArrayList<>();
        if (options.allowedPrefixes().isEmpty()) {
            failed.add("no allowed namespace prefix was given: pass the lab's synthetic prefix (" + ExecuteResetOptions.ALLOW_PREFIX + ")");
            named.add(ExecuteResetOptions.ALLOW_PREFIX);
        } else {
            if (!matches(plan.group(), options.allowedPrefixes())) {
                failed.add("group '" + plan.group() + "' is outside the allowed prefixes " + options.allowedPrefixes());
            }
            plan.rows().stream().map(PlanRow::topic).distinct().filter(t -> !matches(t, options.allowedPrefixes()))
                    .forEach(t -> failed.add("topic '" + t + "' is outside the allowed prefixes " + options.allowedPrefixes()));
        }
        if (!options.allowRemote()) {
            Set<String> hosts = new LinkedHashSet<>(Bootstraps.nonLoopbackHosts(bootstrap));
            hosts.addAll(Bootstraps.nonLoopbackHosts(plan.bootstrap()));
            hosts.forEach(h -> failed.add("bootstrap host '" + h + "' is not loopback; a lab reset is local "
                    + "(" + ExecuteResetOptions.ALLOW_REMOTE + " if you really mean that cluster)"));
            if (!hosts.isEmpty()) {
                named.add(ExecuteResetOptions.ALLOW_REMOTE);
            }
        }
        if (!bootstrap.equals(plan.bootstrap())) {
            failed.add("the plan was made against " + plan.bootstrap() + ", not " + bootstrap);
        }
        Words kind = Words.of(plan.groupType());
        OffsetSnapshot now = ops.snapshot(plan.group(), plan.groupType(), Set.copyOf(plan.rows().stream().map(PlanRow::ref).toList()));
        if (!now.state().isInactive()) {
            failed.add(activeMessage(now));
        }
        Map<PartitionRef, PartitionOffsets> current = now.byPartition();
        for (PlanRow r : plan.rows()) {
            PartitionOffsets c = current.get(r.ref());
            long committedNow = c == null ? PartitionOffsets.NONE : c.committed();
            if (committedNow != r.previous()) {
                failed.add("the plan is stale: " + r.ref() + kind.stoodAt() + show(r.previous())
                        + " when planned and is " + show(committedNow) + " now; plan again");
            }
        }
        failed.addAll(kind.refusals().apply(plan, now));
        Path planDir = options.planDir();
        if (planDir == null) {
            failed.add("no plan directory was given: the plan and previous offsets must be saved before anything changes (" + ExecuteResetOptions.PLAN_DIR + ")");
            named.add(ExecuteResetOptions.PLAN_DIR);
        } else {
            String problem = probeWritable(planDir);
            if (problem != null) {
                failed.add("cannot save the plan into " + planDir + ": " + problem);
            }
        }
        if (!failed.isEmpty()) {
            throw new ResetRefusedException(plan.group(), failed, named);
        }
        SavedPlan saved;
        try {
            saved = ResetPlans.save(new SavedPlan(SavedPlan.SCHEMA_VERSION, SavedPlan.Status.SAVED,
                    "saved before altering; previous offsets are in the rows", Instant.now(), plan, ResetPlans.fileIn(planDir, plan)));
        } catch (RuntimeException e) {
            throw new ResetRefusedException(plan.group(), List.of("cannot save the plan into " + planDir + ": " + e.getMessage()));
        }
        log.info("reset {} of group {} saved to {}; altering {} partition(s)", plan.planId(), plan.group(), saved.file(), plan.rows().size());
        Map<TopicPartition, OffsetAndMetadata> alter = new HashMap<>();
        Set<TopicPartition> delete = new HashSet<>();
        for (PlanRow r : plan.rows()) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            if (r.next() == PartitionOffsets.NONE) {
                delete.add(tp);
            } else {
                alter.put(tp, new OffsetAndMetadata(r.next()));
            }
        }
        try {
            beforeAlter.run();
            ops.alter(plan.group(), plan.groupType(), alter, delete);
        } catch (KafkaOpsException e) {
            OffsetSnapshot after = safeDescribe(plan);
            String why = "the broker refused the reset of group '" + plan.group() + "'" + (after == null ? "" : " (" + activeMessage(after) + ")")
                    + ": " + e.getMessage();
            ResetPlans.save(saved.withStatus(SavedPlan.Status.NOT_APPLIED, why));
            throw new KafkaOpsException(why + "; the saved plan " + saved.file() + " records that it did not apply", e);
        }
        afterAlter.run();
        OffsetSnapshot after = ops.snapshot(plan.group(), plan.groupType(), Set.copyOf(plan.rows().stream().map(PlanRow::ref).toList()));
        Map<PartitionRef, PartitionOffsets> landed = after.byPartition();
        List<ResetResult.PartitionResult> results = plan.rows().stream().map(r -> {
            PartitionOffsets a = landed.get(r.ref());
            return new ResetResult.PartitionResult(r.topic(), r.partition(), r.next(), a == null ? PartitionOffsets.NONE : a.committed());
        }).toList();
        boolean all = results.stream().allMatch(ResetResult.PartitionResult::landed);
        String detail = all ? "applied; every partition verified" : "applied, but not every partition landed: "
                + results.stream().filter(x -> !x.landed()).map(x -> x.topic() + "-" + x.partition() + " is " + x.actual() + " not " + x.planned())
                        .collect(Collectors.joining(", "));
        detail += plan.caveat().map(c -> "; " + c).orElse("");
        saved = ResetPlans.save(saved.withStatus(all ? SavedPlan.Status.APPLIED : SavedPlan.Status.PARTIAL, detail));
        return new ResetResult(plan, saved, results, after);
    }

    /** A share group's guard (its start offsets are removed per topic): a plan that removes some but not all of a topic's start offsets cannot be executed. */
    private static List<String> partialTopicRemovals(ResetPlan plan, OffsetSnapshot now) {
        Set<PartitionRef> removed = plan.rows().stream().filter(r -> r.next() == PartitionOffsets.NONE).map(PlanRow::ref).collect(Collectors.toSet());
        List<String> out = new ArrayList<>();
        removed.stream().map(PartitionRef::topic).distinct().sorted().forEach(topic -> {
            List<String> kept = now.partitions().stream().filter(p -> p.topic().equals(topic) && p.hasCommitted() && !removed.contains(p.ref()))
                    .map(p -> p.ref().toString()).toList();
            List<String> planned = plan.rows().stream().filter(r -> r.topic().equals(topic) && r.next() != PartitionOffsets.NONE)
                    .map(r -> r.ref().toString()).toList();
            if (!kept.isEmpty() || !planned.isEmpty()) {
                List<String> both = new ArrayList<>(kept);
                planned.stream().filter(x -> !both.contains(x)).forEach(both::add);
                out.add("share group '" + plan.group() + "': the plan removes some start offsets of topic '" + topic
                        + "' but not those of " + both + "; a share group's start offsets are removed only per topic (deleteShareGroupOffsets)");
            }
        });
        return out;
    }

    private OffsetSnapshot safeDescribe(ResetPlan plan) {
        try {
            return ops.describe(plan.group(), plan.groupType());
        } catch (RuntimeException e) {
            return null;
        }
    }

    static String activeMessage(OffsetSnapshot s) {
        if (s.groupType() == io.replaylab.kafka.GroupType.SHARE) {
            // a share group's members have no instance ids and many may share a client id: name each member
            String who = s.members().stream().map(m -> m.clientId() + "@" + m.host() + " (member " + m.memberId() + ")").collect(Collectors.joining(", "));
            return "share group '" + s.group() + "' is " + s.state().display() + " with " + s.members().size() + " member(s)"
                    + (who.isEmpty() ? "" : " [" + who + "]") + "; stop its share consumers before executing a reset (describing it as a share group shows them)";
        }
        String who = s.members().stream().map(m -> m.clientId() + "@" + m.host()).collect(Collectors.joining(", "));
        return "group '" + s.group() + "' is " + s.state().display() + " with " + s.members().size() + " member(s)"
                + (who.isEmpty() ? "" : " [" + who + "]") + "; stop its consumers before executing a reset (describe shows them)";
    }

    private static boolean matches(String name, List<String> prefixes) {
        return prefixes.stream().anyMatch(name::startsWith);
    }

    /** Whether the plan can be saved there, without creating anything (a refused reset leaves no trace). */
    private static String probeWritable(Path dir) {
        Path existing = dir.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return "no part of the path exists";
        }
        if (!Files.isDirectory(existing)) {
            return existing + " is not a directory";
        }
        if (!existing.equals(dir.toAbsolutePath())) {
            return Files.isWritable(existing) ? null : existing + " is not writable";
        }
        try {
            Files.delete(Files.createTempFile(dir, ".probe", ".tmp"));
            return null;
        } catch (IOException | UnsupportedOperationException e) {
            return e.getClass().getSimpleName() + " " + e.getMessage();
        }
    }

    private static String show(long offset) {
        return offset == PartitionOffsets.NONE ? "none" : Long.toString(offset);
    }

    private static String safe(String s) {
        return s.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
