package io.replaylab.harness;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.replaylab.evidence.Evidence;
import io.replaylab.evidence.AtomicFiles;
import io.replaylab.kafka.ExecuteResetOptions;
import io.replaylab.kafka.GroupMember;
import io.replaylab.harness.subject.ClientOptions;
import io.replaylab.kafka.GroupType;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.kafka.PartitionOffsets;
import io.replaylab.kafka.PlanRow;
import io.replaylab.kafka.ResetPlan;
import io.replaylab.kafka.ResetPlans;
import io.replaylab.kafka.ResetResult;
import io.replaylab.kafka.ResetScope;
import io.replaylab.kafka.ResetTarget;
import io.replaylab.kafka.ResetTargets;
import io.replaylab.kafka.SavedPlan;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replay-lab offsets describe|reset|restore}: flags follow {@code kafka-consumer-groups}. */
@Command(name = "offsets", mixinStandardHelpOptions = true,
        description = "Describe a group's offsets, plan and execute guarded resets, restore saved plans.",
        subcommands = {OffsetsCommand.Describe.class, OffsetsCommand.Reset.class, OffsetsCommand.Restore.class})
final class OffsetsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static final class Connection {
        @Option(names = "--bootstrap-server", required = true, paramLabel = "B", description = "host:port of the Kafka broker")
        String bootstrap;

        @Option(names = "--timeout", defaultValue = "PT15S", paramLabel = "DURATION",
                description = "how long to wait for the broker (ISO-8601, default PT15S); exit 5 when it does not answer")
        Duration timeout;

        @Option(names = "--json", description = "print JSON instead of text")
        boolean json;

        @Mixin
        ClientOptions client;

        KafkaOps connect() {
            return KafkaOps.connect(bootstrap, timeout, client.properties());
        }
    }

    /** Which group: a consumer group or a share group (picocli refuses both at once and names the one missing). */
    static final class GroupChoice {
        @Option(names = "--group", required = true, paramLabel = "G", description = "a consumer group")
        String group;

        @Option(names = "--share-group", required = true, paramLabel = "G", description = "a share group (its start offsets: KIP-932)")
        String shareGroup;

        String name() {
            return shareGroup != null ? shareGroup : group;
        }

        GroupType type() {
            return shareGroup != null ? GroupType.SHARE : GroupType.CONSUMER;
        }
    }

    /**
     * What describe and reset take: the broker, and the group (for reset: the one whose offsets, or start offsets, the plan moves;
     * it must have no member to execute).
     */
    abstract static class OnAGroup {
        @Spec
        CommandSpec spec;

        @Mixin
        Connection conn;

        @ArgGroup(exclusive = true, multiplicity = "1")
        GroupChoice which;
    }

    @Command(name = "describe", mixinStandardHelpOptions = true, description = "A group's state, members and per-partition offsets (SPEC R1).")
    static final class Describe extends OnAGroup implements Callable<Integer> {
        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (KafkaOps ops = conn.connect()) {
                OffsetSnapshot s = ops.describe(which.name(), which.type());
                if (conn.json) {
                    printJson(out, s);
                } else {
                    printSnapshot(out, s);
                }
            }
            return ReplayLab.OK;
        }
    }

    static void printSnapshot(PrintWriter out, OffsetSnapshot s) {
        out.printf("%s group '%s' is %s%s with %d member(s)%s.%n", s.groupType().title(), s.group(), s.state().display(),
                s.protocol() == null || s.groupType() == GroupType.SHARE ? "" : " (" + s.protocol() + ")", s.members().size(),
                s.coordinator() == null ? "" : "; coordinator " + s.coordinator());
        // a share group has a start offset per partition, not a committed one (the columns kafka-share-groups --describe prints)
        Table t = new Table("GROUP", "TOPIC", "PARTITION", s.groupType() == GroupType.SHARE ? "START-OFFSET" : "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID",
                "HOST", "CLIENT-ID", "LOG-START-OFFSET", "LEADER-EPOCH");
        for (PartitionOffsets p : s.partitions()) {
            GroupMember m = s.members().stream().filter(x -> x.memberId().equals(p.owner())).findFirst().orElse(null);
            t.row(s.group(), p.topic(), p.partition(), p.hasCommitted() ? p.committed() : "-", p.logEnd(), p.lag(),
                    m == null ? "-" : m.memberId(), m == null ? "-" : m.host(), m == null ? "-" : m.clientId(), p.logStart(),
                    p.leaderEpoch() == null ? "-" : p.leaderEpoch());
        }
        t.print(out);
    }

    @Command(name = "reset", mixinStandardHelpOptions = true,
            description = "Plan a reset (dry run, the default) or execute it through the guards (SPEC R2-R4).")
    static final class Reset extends OnAGroup implements Callable<Integer> {
        /** Which topics: picocli refuses both at once. */
        static final class Scope {
            @Option(names = "--topic", paramLabel = "T[:p,p]", required = true, description = "topic, optionally with partitions (repeatable)")
            List<String> topics = new ArrayList<>();

            @Option(names = "--all-topics", required = true, description = "every topic the group has committed offsets for")
            boolean allTopics;
        }

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Scope scope;

        /** Where to: exactly one, as kafka-consumer-groups takes it (picocli names the one missing or the two given). */
        static final class Target {
            @Option(names = "--to-earliest", required = true, description = "the log start")
            boolean toEarliest;

            @Option(names = "--to-latest", required = true, description = "the log end")
            boolean toLatest;

            @Option(names = "--to-current", required = true, description = "where the group is now (a no-op plan, for a saved snapshot)")
            boolean toCurrent;

            @Option(names = "--to-offset", paramLabel = "N", required = true, description = "this offset on every partition")
            Long toOffset;

            @Option(names = "--shift-by", paramLabel = "N", required = true, description = "the current offset plus N (negative: back)")
            Long shiftBy;

            @Option(names = "--to-datetime", paramLabel = "YYYY-MM-DDTHH:mm:SS.sss", required = true, description = "local time, or with an offset/Z")
            String toDatetime;

            @Option(names = "--by-duration", paramLabel = "DURATION", required = true, description = "this long before now, e.g. 2h, 1d or P1DT2H30M")
            Duration byDuration;

            @Option(names = "--from-file", paramLabel = "F", required = true, description = "CSV topic,partition,offset (kafka-consumer-groups format)")
            Path fromFile;
        }

        @ArgGroup(exclusive = true, multiplicity = "1")
        Target to;

        @Option(names = "--export", paramLabel = "F", description = "write the plan as CSV (kafka-consumer-groups --from-file format)")
        Path export;

        @Mixin
        Guards guards;

        @Override
        public Integer call() {
            boolean execute = guards.execute();
            ResetTarget target = target();
            ResetScope scope = scope();
            try (KafkaOps ops = conn.connect()) {
                ResetPlan plan = ops.planReset(which.name(), which.type(), scope, target);
                return finish(spec, ops, plan, conn.json, execute, export, guards.options());
            }
        }

        private ResetScope scope() {
            if (scope == null && to.fromFile == null) {
                throw new IllegalArgumentException("give --topic T[:p,p] (repeatable) or --all-topics");
            }
            return scope == null || scope.allTopics ? ResetScope.allTopics() : ResetScope.topics(scope.topics);
        }

        private ResetTarget target() {
            return to.toEarliest ? ResetTargets.toEarliest()
                    : to.toLatest ? ResetTargets.toLatest()
                    : to.toCurrent ? ResetTargets.toCurrent()
                    : to.toOffset != null ? ResetTargets.toOffset(to.toOffset)
                    : to.shiftBy != null ? ResetTargets.shiftBy(to.shiftBy)
                    : to.toDatetime != null ? ResetTargets.toDatetime(parseTime(to.toDatetime))
                    : to.byDuration != null ? ResetTargets.byDuration(to.byDuration)
                    : ResetTargets.toOffsets("from-file " + to.fromFile, ResetPlans.readCsv(to.fromFile));
        }

        static Instant parseTime(String s) {
            try {
                return OffsetDateTime.parse(s).toInstant();
            } catch (DateTimeParseException e) {
                try {
                    return LocalDateTime.parse(s).atZone(ZoneId.systemDefault()).toInstant();
                } catch (DateTimeParseException e2) {
                    throw new IllegalArgumentException("--to-datetime '" + s + "' is not YYYY-MM-DDTHH:mm:SS.sss (optionally with Z or +hh:mm)");
                }
            }
        }
    }

    @Command(name = "restore", mixinStandardHelpOptions = true, description = "Plan (and with --execute apply) the way back to a saved plan's previous offsets.")
    static final class Restore implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        Connection conn;

        @Option(names = "--plan", required = true, paramLabel = "F", description = "a saved plan (*.plan.json)")
        Path planFile;

        @Mixin
        Guards guards;

        @Override
        public Integer call() {
            boolean execute = guards.execute();
            SavedPlan saved = ResetPlans.load(planFile);
            try (KafkaOps ops = conn.connect()) {
                ResetPlan plan = ops.planRestore(saved);
                return finish(spec, ops, plan, conn.json, execute, null, guards.options());
            }
        }
    }

    /** Dry run or execute, and the guard options, of every command that can change offsets. */
    static final class Guards {
        /** Dry run or execute: picocli refuses both at once. */
        static final class Mode {
            @Option(names = "--dry-run", required = true, description = "show the plan only (the default)")
            boolean dryRun;

            @Option(names = "--execute", required = true, description = "apply the plan through the guards")
            boolean execute;
        }

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Mode mode;

        @Option(names = "--plan-dir", paramLabel = "D", defaultValue = "lab-runs/plans", description = "where plans are saved before executing (default lab-runs/plans)")
        Path planDir;

        @Option(names = "--allow-prefix", paramLabel = "P", description = "synthetic namespace prefix the group and topics must start with (repeatable; required for --execute)")
        List<String> allowPrefixes = new ArrayList<>();

        @Option(names = "--allow-remote", description = "allow a bootstrap that is not loopback")
        boolean allowRemote;

        boolean execute() {
            return mode != null && mode.execute;
        }

        ExecuteResetOptions options() {
            ExecuteResetOptions.Builder b = ExecuteResetOptions.custom().planDir(planDir).allowRemote(allowRemote);
            allowPrefixes.forEach(b::allowPrefix);
            return b.build();
        }
    }

    private static int finish(CommandSpec spec, KafkaOps ops, ResetPlan plan, boolean json, boolean execute, Path export,
            ExecuteResetOptions options) {
        PrintWriter out = spec.commandLine().getOut();
        if (export != null) {
            AtomicFiles.writeString(export, ResetPlans.toCsv(plan));
        }
        if (!execute) {
            if (json) {
                printJson(out, plan);
            } else {
                printPlan(out, plan);
                out.println("DRY RUN: nothing was changed. Add --execute to apply it through the guards"
                        + (export == null ? "." : "; CSV written to " + export + "."));
            }
            return ReplayLab.OK;
        }
        ResetResult result = ops.executeReset(plan, options);
        if (json) {
            printJson(out, result);
        } else {
            printPlan(out, plan);
            out.println("Plan and previous offsets saved to " + result.saved().file() + " (status " + result.saved().status() + ").");
            Table t = new Table("TOPIC", "PARTITION", "PLANNED", "NOW", "LANDED");
            result.partitions().forEach(p -> t.row(p.topic(), p.partition(), show(p.planned()), show(p.actual()), p.landed() ? "yes" : "NO"));
            t.print(out);
        }
        return result.allLanded() ? ReplayLab.OK : ReplayLab.FAIL;
    }

    private static void printPlan(PrintWriter out, ResetPlan plan) {
        out.printf("Plan %s: %s over %s of %sgroup '%s'.%n", plan.planId(), plan.target(), plan.scope(), plan.groupType() == GroupType.SHARE ? "share " : "",
                plan.group());
        Table t = new Table("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET", "PREVIOUS-OFFSET", "NOTE");
        for (PlanRow r : plan.rows()) {
            t.row(plan.group(), r.topic(), r.partition(), show(r.next()), show(r.previous()), r.note() == null ? "" : r.note());
        }
        t.print(out);
        plan.caveat().ifPresent(c -> out.println("Note: " + c + "."));
    }

    private static String show(long offset) {
        return offset == PartitionOffsets.NONE ? "-" : Long.toString(offset);
    }

    static void printJson(PrintWriter out, Object value) {
        out.println(Evidence.toJson(value));
    }
}
