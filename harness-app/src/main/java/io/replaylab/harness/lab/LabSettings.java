package io.replaylab.harness.lab;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.replaylab.barrier.jdi.HoldMode;
import io.replaylab.barrier.jdi.MethodPoint;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.experiment.Experiments;
import io.replaylab.harness.experiment.ScheduleCell;
import org.apache.kafka.clients.consumer.GroupProtocol;

/**
 * Everything a lab run needs, with the lab's defaults (short, local timeouts). Build with
 * {@link #custom()}; every setter checks its argument.
 *
 * @param experiments what the run takes, in this order
 * @param bootstrap null: start a local broker for the run
 * @param subject null: the reference subject
 * @param targetQuery null: the reference schema's query
 * @param targetJdbcUrl null: a SQLite file in the run directory; else a PostgreSQL URL (the run makes a schema of its own there)
 * @param targetPassword never shown by {@link #toString()}
 * @param barrier null: chosen from the subject (see {@link #barrierChoice()})
 * @param stopGrace how long a subject may take to finish its record and leave after SIGTERM, before SIGKILL
 * @param transformSubject null: the reference transform subject (the eos experiment's consume-transform-produce program)
 * @param scheduleCells the cells the schedules experiment runs (default: all nine)
 * @param dbCommitPoint where the debugger holds the subject before its DB commit (default: {@link MethodPoint#jdbcCommit()})
 */
public record LabSettings(String bootstrap, boolean allowRemote, List<Experiment> experiments, int records, int partitions,
        GroupProtocol groupProtocol, HoldMode holdMode, Path workDir, boolean keep, String subject, String targetQuery,
        Duration handoffTimeout, Duration barrierTimeout, Duration drainTimeout, int maxPollIntervalMs, int sessionTimeoutMs, BarrierKind barrier,
        String targetJdbcUrl, String targetUser, String targetPassword, String transformSubject, Duration stopGrace,
        List<ScheduleCell> scheduleCells, MethodPoint dbCommitPoint) {

    /** The reference experiments' names, in the order a run takes them. */
    public static final Set<String> ALL = Collections.unmodifiableSet(new LinkedHashSet<>(Experiments.REFERENCE.stream()
            .map(Experiment::name).toList()));

    public LabSettings {
        Objects.requireNonNull(experiments, "experiments");
        experiments = List.copyOf(experiments);
        scheduleCells = List.copyOf(scheduleCells);
        Objects.requireNonNull(dbCommitPoint, "dbCommitPoint");
        Objects.requireNonNull(workDir, "workDir");
    }

    @Override
    public String toString() {
        return "LabSettings[bootstrap=" + bootstrap + ", experiments=" + experiments.stream().map(Experiment::name).toList() + ", records=" + records + ", partitions=" + partitions
                + ", groupProtocol=" + groupProtocol + ", holdMode=" + holdMode + ", barrier=" + barrier + ", subject=" + subject
                + ", target=" + (targetJdbcUrl == null ? "SQLite in the run directory" : io.replaylab.oracle.TargetSpec.jdbc(targetJdbcUrl, "-").displayUrl())
                + (targetUser != null ? " as " + targetUser : "") + (targetPassword != null ? " (password given)" : "") + "]";
    }

    public static Builder custom() {
        return new Builder();
    }

    /** The eos experiment's program: {@code {output}} is its output topic. */
    public SubjectTemplate transformTemplate(int transactionTimeoutMs) {
        return transformSubject == null ? SubjectTemplate.referenceTransform(groupProtocol, maxPollIntervalMs, sessionTimeoutMs, transactionTimeoutMs)
                : SubjectTemplate.custom(transformSubject);
    }

    public SubjectTemplate subjectTemplate() {
        return subject == null ? SubjectTemplate.reference(groupProtocol, maxPollIntervalMs, sessionTimeoutMs) : SubjectTemplate.custom(subject);
    }

    /**
     * The barrier this run uses: the one asked for, else the debugger for the reference subject and
     * for a subject whose program is {@code java}, the wire barrier for any other program (a debugger
     * needs a JVM; the wire barrier reaches every Kafka client).
     */
    public BarrierKind.Choice barrierChoice() {
        if (barrier != null) {
            return new BarrierKind.Choice(barrier, "asked for with --barrier");
        }
        if (subject == null) {
            return new BarrierKind.Choice(BarrierKind.DEBUGGER, "the reference subject is a JVM");
        }
        String program = ChildProcess.commandLine(subject, Map.of()).get(0);
        String name = program.substring(program.lastIndexOf('/') + 1);
        if (name.equals("java")) {
            return new BarrierKind.Choice(BarrierKind.DEBUGGER, "the subject's program is java");
        }
        return new BarrierKind.Choice(BarrierKind.WIRE, "the subject's program '" + name + "' is not java: a debugger cannot hold it");
    }

    public static final class Builder {
        private String bootstrap;
        private boolean allowRemote;
        private Set<String> selected = ALL;
        private final List<Experiment> own = new ArrayList<>();
        private int records = 200;
        private int partitions = 3;
        private GroupProtocol groupProtocol = GroupProtocol.CLASSIC;
        private HoldMode holdMode = HoldMode.THREAD;
        private Path workDir = Path.of("lab-runs");
        private boolean keep;
        private String subject;
        private String targetQuery;
        private Duration handoffTimeout = Duration.ofMinutes(2);
        private Duration barrierTimeout = Duration.ofSeconds(60);
        private Duration drainTimeout = Duration.ofMinutes(3);
        private int maxPollIntervalMs = 5000;
        private int sessionTimeoutMs = 6000;
        private BarrierKind barrier;
        private String targetJdbcUrl;
        private String targetUser;
        private String targetPassword;
        private String transformSubject;
        private Duration stopGrace = Duration.ofSeconds(20);
        private List<ScheduleCell> scheduleCells = ScheduleCell.all();
        private MethodPoint dbCommitPoint = MethodPoint.jdbcCommit();

        private Builder() {
        }

        public Builder bootstrap(String b) {
            this.bootstrap = b;
            return this;
        }

        public Builder allowRemote(boolean a) {
            this.allowRemote = a;
            return this;
        }

        /**
         * Which of replay-lab's experiments run (default: the three of {@link #ALL}; eos runs only when
         * named); a lab's own ({@link #experiment}) always run, after these.
         */
        public Builder experiments(Set<String> names) {
            for (String n : names) {
                if (Experiments.named(n).isEmpty() && own.stream().noneMatch(x -> x.name().equals(n))) {
                    throw new IllegalArgumentException("unknown experiment '" + n + "': use " + String.join(", ", ALL) + ", "
                            + String.join(", ", Experiments.OPT_IN.stream().map(Experiment::name).toList()) + " or all");
                }
            }
            this.selected = Set.copyOf(names);
            return this;
        }

        /** Adds a lab's own experiment; it runs after the selected reference ones, in the order added. */
        public Builder experiment(Experiment experiment) {
            Objects.requireNonNull(experiment, "experiment");
            if (Experiments.named(experiment.name()).isPresent() || own.stream().anyMatch(x -> x.name().equals(experiment.name()))) {
                throw new IllegalArgumentException("an experiment named '" + experiment.name() + "' is already part of the run");
            }
            own.add(experiment);
            return this;
        }

        public Builder records(int n) {
            if (n < 1 || n > 10_000_000) {
                throw new IllegalArgumentException("--records must be 1..10000000, was " + n);
            }
            this.records = n;
            return this;
        }

        public Builder partitions(int p) {
            if (p < 2 || p > 1000) {
                throw new IllegalArgumentException("--partitions must be 2..1000 (the rebalance needs two), was " + p);
            }
            this.partitions = p;
            return this;
        }

        public Builder groupProtocol(GroupProtocol p) {
            this.groupProtocol = Objects.requireNonNull(p, "groupProtocol");
            return this;
        }

        public Builder holdMode(HoldMode m) {
            this.holdMode = Objects.requireNonNull(m, "holdMode");
            return this;
        }

        public Builder workDir(Path d) {
            this.workDir = Objects.requireNonNull(d, "workDir");
            return this;
        }

        public Builder keep(boolean k) {
            this.keep = k;
            return this;
        }

        public Builder subject(String template) {
            this.subject = template == null ? null : SubjectTemplate.custom(template).template();
            return this;
        }

        public Builder targetQuery(String q) {
            this.targetQuery = q;
            return this;
        }

        public Builder handoffTimeout(Duration d) {
            this.handoffTimeout = positive(d, "--handoff-timeout");
            return this;
        }

        public Builder barrierTimeout(Duration d) {
            this.barrierTimeout = positive(d, "--barrier-timeout");
            return this;
        }

        public Builder drainTimeout(Duration d) {
            this.drainTimeout = positive(d, "--drain-timeout");
            return this;
        }

        /** The reference subject's {@code max.poll.interval.ms} (a thread hold hands the partition over after it). */
        public Builder maxPollIntervalMs(int ms) {
            if (ms < 1000 || ms > 300_000) {
                throw new IllegalArgumentException("max poll interval must be 1000..300000 ms, was " + ms);
            }
            this.maxPollIntervalMs = ms;
            return this;
        }

        /** The reference subject's classic-protocol {@code session.timeout.ms} (a frozen process is dropped after it). */
        public Builder sessionTimeoutMs(int ms) {
            if (ms < 1000 || ms > 300_000) {
                throw new IllegalArgumentException("session timeout must be 1000..300000 ms, was " + ms);
            }
            this.sessionTimeoutMs = ms;
            return this;
        }

        /** {@code auto} (or null), {@code debugger} or {@code wire}. */
        public Builder barrier(String kind) {
            this.barrier = kind == null || kind.equals("auto") ? null : BarrierKind.parse(kind);
            return this;
        }

        /**
         * The target database: a {@code jdbc:postgresql:} URL (user and password may be in it, or
         * given here; either may be null). Null keeps the default, a SQLite file in the run directory.
         */
        public Builder target(String jdbcUrl, String user, String password) {
            this.targetJdbcUrl = jdbcUrl;
            this.targetUser = user;
            this.targetPassword = password;
            return this;
        }

        /**
         * A consume-transform-produce program for the eos experiment instead of the reference one:
         * placeholders {@code {bootstrap} {topic} {output} {group} {instance} {logdir}}; it must be a JVM
         * (the barrier is a debugger breakpoint at {@code KafkaProducer#commitTransaction}).
         */
        public Builder transformSubject(String template) {
            if (template != null) {
                SubjectTemplate.custom(template); // checked now, before anything starts
            }
            this.transformSubject = template;
            return this;
        }

        /** How long a subject gets after SIGTERM before SIGKILL (default 20 s; a stopped run gives 3 s whatever this says). */
        public Builder stopGrace(Duration d) {
            this.stopGrace = positive(d, "stop grace");
            return this;
        }

        /** The cells the schedules experiment runs, as {@code point:fault} (default: all nine); at least one. */
        public Builder scheduleCells(List<String> cells) {
            if (cells == null || cells.isEmpty()) {
                throw new IllegalArgumentException("--cells needs at least one point:fault, e.g. after-offset-commit:crash");
            }
            this.scheduleCells = cells.stream().map(ScheduleCell::parse).distinct().toList();
            return this;
        }

        /**
         * Where the debugger holds a JVM subject just before its DB transaction commits, as
         * {@code Class#method} (an interface means every implementation); default
         * {@code java.sql.Connection#commit}, the JDBC commit the subject actually calls.
         */
        public Builder dbCommitPoint(String point) {
            this.dbCommitPoint = point == null ? MethodPoint.jdbcCommit() : MethodPoint.parse(point);
            return this;
        }

        public LabSettings build() {
            if (targetJdbcUrl != null) {
                TargetDatabase.check(targetJdbcUrl, targetUser, targetPassword, allowRemote); // refused here, before anything starts
            }
            List<Experiment> experiments = new ArrayList<>();
            Experiments.REFERENCE.stream().filter(x -> selected.contains(x.name())).forEach(experiments::add);
            Experiments.OPT_IN.stream().filter(x -> selected.contains(x.name())).forEach(experiments::add);
            experiments.addAll(own);
            return new LabSettings(bootstrap, allowRemote, experiments, records, partitions, groupProtocol, holdMode, workDir, keep, subject,
                    targetQuery, handoffTimeout, barrierTimeout, drainTimeout, maxPollIntervalMs, sessionTimeoutMs, barrier,
                    targetJdbcUrl, targetUser, targetPassword, transformSubject, stopGrace, scheduleCells, dbCommitPoint);
        }

        private static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
            }
            return d;
        }
    }
}
