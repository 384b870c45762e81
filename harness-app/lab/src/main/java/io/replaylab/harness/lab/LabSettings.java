package io.replaylab.harness.lab;

import io.replaylab.evidence.process.Platform;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.MethodPoint;
import io.replaylab.harness.experiment.Experiments;
import org.apache.kafka.clients.consumer.GroupProtocol;

/**
 * Everything a lab run needs, with the lab's defaults (short, local timeouts). Built only with
 * {@link #custom()}: every setter checks its argument, and {@link Builder#build()} what depends on
 * several. Messages name the builder's setters ({@code LabSettings.records}); a CLI translates
 * them into its own flags.
 *
 * <pre>{@code
 * LabSettings s = LabSettings.custom()
 *         .subject(Subject.javaMain(MyConsumer.class, "{bootstrap}", "{topic}", "{group}", "{db}", "{namespace}", "{instance}"))
 *         .experiments(Experiments.replay(), Experiments.rebalance())
 *         .workDir(tmp)
 *         .build();
 * }</pre>
 */
public final class LabSettings {
    /**
     * Experiments (and matrix cells) at once by default: all three default experiments, and the nine
     * {@code schedules} cells in two waves. Measured on 2 cores (README, "Side by side"): a
     * {@code schedules} run took 36.4 s five cells at a time against 43.8 s three at a time; each
     * experiment keeps at most two subject JVMs alive at a time.
     */
    public static final int DEFAULT_PARALLEL = 5;

    private final String bootstrap;
    private final boolean allowRemote;
    private final List<Experiment> experiments;
    private final int records;
    private final int partitions;
    private final GroupProtocol groupProtocol;
    private final HoldMode holdMode;
    private final Path workDir;
    private final boolean keep;
    private final Subject subject;
    private final String targetQuery;
    private final Duration handoffTimeout;
    private final Duration barrierTimeout;
    private final Duration drainTimeout;
    private final int maxPollIntervalMs;
    private final int sessionTimeoutMs;
    private final BarrierKind barrier;
    private final String targetJdbcUrl;
    private final String targetUser;
    private final String targetPassword;
    private final Subject transformSubject;
    private final Duration stopGrace;
    private final MethodPoint dbCommitPoint;
    private final int parallel;
    private final boolean witness;
    private final Platform platform;
    private final RecordSource source;

    private LabSettings(Builder b) {
        this.source = b.source;
        this.parallel = b.parallel;
        this.witness = b.witness;
        this.platform = b.platform;
        this.bootstrap = b.bootstrap;
        this.allowRemote = b.allowRemote;
        this.experiments = b.experiments;
        this.records = b.records;
        this.partitions = b.partitions;
        this.groupProtocol = b.groupProtocol;
        this.holdMode = b.holdMode;
        this.workDir = b.workDir;
        this.keep = b.keep;
        this.subject = b.subject;
        this.targetQuery = b.targetQuery;
        this.handoffTimeout = b.handoffTimeout;
        this.barrierTimeout = b.barrierTimeout;
        this.drainTimeout = b.drainTimeout;
        this.maxPollIntervalMs = b.maxPollIntervalMs;
        this.sessionTimeoutMs = b.sessionTimeoutMs;
        this.barrier = b.barrier;
        this.targetJdbcUrl = b.targetJdbcUrl;
        this.targetUser = b.targetUser;
        this.targetPassword = b.targetPassword;
        this.transformSubject = b.transformSubject;
        this.stopGrace = b.stopGrace;
        this.dbCommitPoint = b.dbCommitPoint;
    }

    /** Null: start a local broker for the run. */
    public String bootstrap() {
        return bootstrap;
    }

    /** Whether a non-loopback broker or database may be used. */
    public boolean allowRemote() {
        return allowRemote;
    }

    /** What the run takes, in this order. */
    public List<Experiment> experiments() {
        return experiments;
    }

    /** What fills each source topic and how the oracle reads it (default {@link RecordSource#reference()}). */
    public RecordSource source() {
        return source;
    }

    /** Synthetic payments per experiment (the count a producer command is given as {@code {count}}). */
    public int records() {
        return records;
    }

    /** Partitions of each source topic. */
    public int partitions() {
        return partitions;
    }

    /** The consumer group protocol the subjects use. */
    public GroupProtocol groupProtocol() {
        return groupProtocol;
    }

    /** How the debugger barrier holds (one thread or the whole JVM). */
    public HoldMode holdMode() {
        return holdMode;
    }

    /** Where run directories go. */
    public Path workDir() {
        return workDir;
    }

    /** Keep the run's topics, groups and target schema. */
    public boolean keep() {
        return keep;
    }

    /** The consumer under test; null: experiments that need one are NOT_RUN. */
    public Subject subject() {
        return subject;
    }

    /** Null: the reference schema's query. */
    public String targetQuery() {
        return targetQuery;
    }

    /** How long a partition may take to move. */
    public Duration handoffTimeout() {
        return handoffTimeout;
    }

    /** How long a barrier waits for its point. */
    public Duration barrierTimeout() {
        return barrierTimeout;
    }

    /** How long a group may take to drain. */
    public Duration drainTimeout() {
        return drainTimeout;
    }

    /** {max.poll.interval.ms} for the subject. */
    public int maxPollIntervalMs() {
        return maxPollIntervalMs;
    }

    /** {session.timeout.ms} for the subject (classic protocol). */
    public int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    /** Null: chosen from the subject (see barrierChoice()). */
    public BarrierKind barrier() {
        return barrier;
    }

    /** Null: a SQLite file in the run directory; else a PostgreSQL URL. */
    public String targetJdbcUrl() {
        return targetJdbcUrl;
    }

    /** The target database's user, or null. */
    public String targetUser() {
        return targetUser;
    }

    /** Never shown by toString(). */
    public String targetPassword() {
        return targetPassword;
    }

    /** The eos experiment's consume-transform-produce program; null: eos is NOT_RUN. */
    public Subject transformSubject() {
        return transformSubject;
    }

    /** How long a subject may take to leave after SIGTERM, before SIGKILL. */
    public Duration stopGrace() {
        return stopGrace;
    }

    /** Where the debugger holds a JVM subject before its DB commit. */
    public MethodPoint dbCommitPoint() {
        return dbCommitPoint;
    }

    /** How many experiments, and how many cells of a matrix, run at once (1: one after another). */
    public int parallel() {
        return parallel;
    }

    /**
     * Whether subjects talk to the broker through the wire proxy as a witness of every OffsetCommit
     * and its answer, whatever the barrier (default true). Off, they connect straight to the broker
     * and the evidence cannot say who rejected a commit; the wire barrier needs the proxy, so under
     * it the witness stays.
     */
    public boolean witness() {
        return witness;
    }

    /**
     * What the machine offers beyond the JDK ({@link Platform#host()} unless set): without
     * {@code /proc} or signals a freeze is NOT_RUN "not available on …", without a shell there is
     * no watchdog, without {@code setsid} no process group per subject.
     */
    public Platform platform() {
        return platform;
    }

    @Override
    public String toString() {
        return "LabSettings[bootstrap=" + bootstrap + ", experiments=" + experiments.stream().map(Experiment::name).toList() + ", records=" + records
                + ", partitions=" + partitions + ", groupProtocol=" + groupProtocol + ", holdMode=" + holdMode + ", barrier=" + barrier
                + ", subject=" + subject + ", source=" + source
                + ", target=" + (targetJdbcUrl == null ? "SQLite in the run directory" : io.replaylab.oracle.TargetSpec.jdbc(targetJdbcUrl, "-").displayUrl())
                + (targetUser != null ? " as " + targetUser : "") + (targetPassword != null ? " (password given)" : "") + "]";
    }

    public static Builder custom() {
        return new Builder();
    }

    /**
     * The barrier this run uses: the one asked for, else the debugger for a subject that is a JVM,
     * the wire barrier for any other program (a debugger needs a JVM; the wire barrier reaches every
     * Kafka client).
     */
    public BarrierKind.Choice barrierChoice() {
        if (barrier != null) {
            return new BarrierKind.Choice(barrier, BarrierKind.ASKED_FOR);
        }
        if (subject == null) {
            return new BarrierKind.Choice(BarrierKind.DEBUGGER, "no subject was given");
        }
        if (subject.jvm()) {
            return new BarrierKind.Choice(BarrierKind.DEBUGGER, "the subject is a JVM");
        }
        return new BarrierKind.Choice(BarrierKind.WIRE, "the subject's program '" + subject.program() + "' is not java: the JVM debugger cannot hold it");
    }

    public static final class Builder {
        private String bootstrap;
        private boolean allowRemote;
        private List<Experiment> experiments = Experiments.reference();
        private int records = 200;
        private int partitions = 3;
        private GroupProtocol groupProtocol = GroupProtocol.CLASSIC;
        private HoldMode holdMode = HoldMode.THREAD;
        private Path workDir = Path.of("lab-runs");
        private boolean keep;
        private Subject subject;
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
        private Subject transformSubject;
        private Duration stopGrace = Duration.ofSeconds(20);
        private MethodPoint dbCommitPoint = MethodPoint.jdbcCommit();
        private int parallel = DEFAULT_PARALLEL;
        private boolean witness = true;
        private Platform platform = Platform.host();
        private RecordSource source = RecordSource.reference();

        private Builder() {
        }

        /** What fills each source topic and how it is read back (see {@link RecordSource}). */
        public Builder source(RecordSource s) {
            this.source = Objects.requireNonNull(s, "source");
            return this;
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
         * The experiments the run takes, in this order (default: {@link Experiments#reference()}, i.e.
         * replay, rebalance, rebuild); a lab's own experiments are values like these.
         */
        public Builder experiments(Experiment... experiments) {
            return experiments(List.of(experiments));
        }

        /** As {@link #experiments(Experiment...)}. */
        public Builder experiments(List<Experiment> experiments) {
            if (experiments.isEmpty()) {
                throw InvalidSettingsException.of("experiments", "needs at least one experiment");
            }
            Set<String> names = new HashSet<>();
            for (Experiment x : experiments) {
                if (!names.add(Objects.requireNonNull(x, "experiment").name())) {
                    throw InvalidSettingsException.of("experiments", "names '" + x.name() + "' twice: an experiment named '" + x.name() + "' is already part of the run");
                }
            }
            this.experiments = List.copyOf(experiments);
            return this;
        }

        public Builder records(int n) {
            if (n < 1 || n > 10_000_000) {
                throw InvalidSettingsException.of("records", "must be 1..10000000, was " + n);
            }
            this.records = n;
            return this;
        }

        public Builder partitions(int p) {
            if (p < 2 || p > 1000) {
                throw InvalidSettingsException.of("partitions", "must be 2..1000 (the rebalance needs two), was " + p);
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

        /** The consumer under test (see {@link Subject}); without one, every experiment that starts a subject is NOT_RUN. */
        public Builder subject(Subject s) {
            this.subject = s;
            return this;
        }

        public Builder targetQuery(String q) {
            this.targetQuery = q;
            return this;
        }

        public Builder handoffTimeout(Duration d) {
            this.handoffTimeout = positive(d, "handoffTimeout");
            return this;
        }

        public Builder barrierTimeout(Duration d) {
            this.barrierTimeout = positive(d, "barrierTimeout");
            return this;
        }

        public Builder drainTimeout(Duration d) {
            this.drainTimeout = positive(d, "drainTimeout");
            return this;
        }

        /** {@code {max.poll.interval.ms}}: a thread hold hands the partition over after it. */
        public Builder maxPollIntervalMs(int ms) {
            if (ms < 1000 || ms > 300_000) {
                throw InvalidSettingsException.of("maxPollIntervalMs", "must be 1000..300000 ms, was " + ms);
            }
            this.maxPollIntervalMs = ms;
            return this;
        }

        /** {@code {session.timeout.ms}} (classic protocol): a frozen process is dropped after it. */
        public Builder sessionTimeoutMs(int ms) {
            if (ms < 1000 || ms > 300_000) {
                throw InvalidSettingsException.of("sessionTimeoutMs", "must be 1000..300000 ms, was " + ms);
            }
            this.sessionTimeoutMs = ms;
            return this;
        }

        /** The barrier; null chooses from the subject ({@link LabSettings#barrierChoice()}). */
        public Builder barrier(BarrierKind kind) {
            this.barrier = kind;
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
         * The eos experiment's consume-transform-produce program: placeholders {@code {bootstrap} {topic}
         * {output} {group} {instance} {logdir}}; it must be a JVM (the barrier is a debugger breakpoint at
         * {@code KafkaProducer#commitTransaction}).
         */
        public Builder transformSubject(Subject s) {
            this.transformSubject = s;
            return this;
        }

        /** How long a subject gets after SIGTERM before SIGKILL (default 20 s; a stopped run gives 3 s whatever this says). */
        public Builder stopGrace(Duration d) {
            this.stopGrace = positive(d, "stopGrace");
            return this;
        }

        /**
         * Where the debugger holds a JVM subject just before its DB transaction commits (default
         * {@code java.sql.Connection#commit}, the JDBC commit the subject actually calls).
         */
        public Builder dbCommitPoint(MethodPoint point) {
            this.dbCommitPoint = Objects.requireNonNull(point, "dbCommitPoint");
            return this;
        }

        /**
         * How many experiments run at once, each in its own namespace and target file, on the one
         * broker; the cells of a matrix too (default {@value LabSettings#DEFAULT_PARALLEL}: the three
         * default experiments at once, a matrix's cells five at a time; 1 runs them one after another, as before). An experiment
         * that {@linkplain Experiment#runsAlone() runs alone} (durability) always does.
         */
        public Builder parallel(int n) {
            if (n < 1 || n > 64) {
                throw InvalidSettingsException.of("parallel", "must be 1..64, was " + n);
            }
            this.parallel = n;
            return this;
        }

        /** See {@link LabSettings#witness()}: false runs subjects straight to the broker. */
        public Builder witness(boolean on) {
            this.witness = on;
            return this;
        }

        /** See {@link LabSettings#platform()}: e.g. {@link Platform#jdkOnly} to run as on a machine with nothing beyond the JDK. */
        public Builder platform(Platform p) {
            this.platform = java.util.Objects.requireNonNull(p, "platform");
            return this;
        }

        /**
         * The settings; what depends on several setters is checked here, and every problem found is
         * reported at once.
         *
         * @throws InvalidSettingsException naming each setting that is wrong
         */
        public LabSettings build() {
            List<InvalidSettingsException.SettingProblem> problems = new ArrayList<>();
            check(problems, "source", source::check); // a shape the mapping cannot read back is refused before anything starts
            if (targetQuery != null) {
                check(problems, "targetQuery", () -> io.replaylab.oracle.TargetSpec.sqlite(Path.of("target.db"), "-").query(targetQuery));
            }
            if (subject != null && !subject.uses("{group}")) {
                problems.add(new InvalidSettingsException.SettingProblem("subject", "must get {group} through its command or its environment "
                        + "(Subject.env): each experiment gives its instances a group of its own"));
            }
            if (transformSubject != null && !transformSubject.uses("{group}")) {
                problems.add(new InvalidSettingsException.SettingProblem("transformSubject", "must get {group} through its command or its "
                        + "environment (Subject.env)"));
            }
            if (targetJdbcUrl != null) {
                // refused here, before anything starts
                check(problems, "target", () -> TargetDatabase.check(targetJdbcUrl, targetUser, targetPassword, allowRemote));
            }
            if (!problems.isEmpty()) {
                throw new InvalidSettingsException(problems);
            }
            return new LabSettings(this);
        }

        /** A check of another class, its refusal as a problem of {@code setting}. */
        private static void check(List<InvalidSettingsException.SettingProblem> problems, String setting, Runnable check) {
            try {
                check.run();
            } catch (InvalidSettingsException e) {
                problems.addAll(e.problems());
            } catch (IllegalArgumentException e) {
                problems.add(new InvalidSettingsException.SettingProblem(setting, e.getMessage()));
            }
        }

        private static Duration positive(Duration d, String setting) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw InvalidSettingsException.of(setting, "must be a positive duration, was " + d);
            }
            return d;
        }
    }
}
