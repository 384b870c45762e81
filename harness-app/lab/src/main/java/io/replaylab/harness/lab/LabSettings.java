package io.replaylab.harness.lab;

import io.replaylab.evidence.Setting;
import io.replaylab.evidence.process.Platform;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

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
 * <p>Read in parts: {@link #broker()}, {@link #target()}, {@link #timeouts()}, {@link #barrier()}, beside
 * the run's own settings; what may be absent (a bootstrap, a subject, a JDBC URL, a query) is an
 * {@code Optional}, never null.
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
    /** The settings other refusals name. */
    public static final Setting ALLOW_REMOTE = Setting.of("LabSettings", "allowRemote");
    /** No wire witness, and a barrier other than the wire's: what a broker the proxy cannot read (TLS) needs. */
    public static final Setting NO_WITNESS = Setting.of("LabSettings", "witness").to("false");
    public static final Setting BARRIER_DEBUGGER = Setting.of("LabSettings", "barrier").to("DEBUGGER");
    public static final Setting BOOTSTRAP_HOSTS = Setting.of("LabSettings", "bootstrap").saidAs("the bootstrap servers' host(s)");

    private final List<Experiment> experiments;
    private final RecordSource source;
    private final int records;
    private final Optional<Subject> subject;
    private final Optional<Subject> transformSubject;
    private final Optional<Subject> shareSubject;
    private final BrokerSettings broker;
    private final TargetSettings target;
    private final Timeouts timeouts;
    private final BarrierSettings barrier;
    private final boolean allowRemote;
    private final Path workDir;
    private final boolean keep;
    private final int parallel;
    private final Platform platform;

    private LabSettings(Builder b) {
        this.experiments = b.experiments;
        this.source = b.source;
        this.records = b.records;
        this.subject = Optional.ofNullable(b.subject);
        this.transformSubject = Optional.ofNullable(b.transformSubject);
        this.shareSubject = Optional.ofNullable(b.shareSubject);
        this.broker = b.broker();
        this.target = b.target();
        this.timeouts = new Timeouts(Optional.ofNullable(b.handoffTimeout), b.barrierTimeout, b.drainTimeout, b.stopGrace, b.maxPollIntervalMs, b.sessionTimeoutMs,
                b.contentionWindow, b.commitInterval);
        this.barrier = new BarrierSettings(b.barrierChoice(), b.holdMode, b.dbCommitPoint);
        this.allowRemote = b.allowRemote;
        this.workDir = b.workDir;
        this.keep = b.keep;
        this.parallel = b.parallel;
        this.platform = b.platform;
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

    /** The consumer under test; empty: every experiment that starts a subject is NOT_RUN. */
    public Optional<Subject> subject() {
        return subject;
    }

    /** The share experiments' share consumer (a member of a share group, KIP-932); empty: they are NOT_RUN. */
    public Optional<Subject> shareSubject() {
        return shareSubject;
    }

    /** The eos experiment's consume-transform-produce program; empty: eos is NOT_RUN. */
    public Optional<Subject> transformSubject() {
        return transformSubject;
    }

    /** The broker (a local one unless a bootstrap is given), the topics' partitions, the group protocol and the witness. */
    public BrokerSettings broker() {
        return broker;
    }

    /** The target database (SQLite in the run directory unless a JDBC URL is given) and its query. */
    public TargetSettings target() {
        return target;
    }

    /** How long the lab waits for what, and the consumer timeouts the subjects get. */
    public Timeouts timeouts() {
        return timeouts;
    }

    /** The barrier the run uses (asked for or chosen from the subject), how it holds and where a JVM's DB commit is. */
    public BarrierSettings barrier() {
        return barrier;
    }

    /** Whether a non-loopback broker or database may be used (both: it is about where the run reaches, not one part). */
    public boolean allowRemote() {
        return allowRemote;
    }

    /** Where run directories go. */
    public Path workDir() {
        return workDir;
    }

    /** Keep the run's topics, groups and target schema. */
    public boolean keep() {
        return keep;
    }

    /** How many experiments, and how many cells of a matrix, run at once (1: one after another). */
    public int parallel() {
        return parallel;
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
        return "LabSettings[bootstrap=" + broker.bootstrap().orElse("a local broker") + ", experiments=" + experiments.stream().map(Experiment::name).toList()
                + ", records=" + records + ", partitions=" + broker.partitions() + ", groupProtocol=" + broker.groupProtocol()
                + ", holdMode=" + barrier.holdMode() + ", barrier=" + barrier.choice().display()
                + ", subject=" + subject.map(Subject::toString).orElse("none") + ", source=" + source + ", target=" + target + "]";
    }

    public static Builder custom() {
        return new Builder();
    }

    /** The settings, each setter checking its value; {@link #build} reports every problem at once, each naming its setting. */
    public static final class Builder {
        private String bootstrap;
        private io.replaylab.kafka.ClientProperties client = io.replaylab.kafka.ClientProperties.none();
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
        /** Null: derived from the consumer's own timeouts. */
        private Duration handoffTimeout;
        private Duration barrierTimeout = Duration.ofSeconds(60);
        private Duration drainTimeout = Duration.ofMinutes(3);
        private Duration contentionWindow = Timeouts.DEFAULT_CONTENTION_WINDOW;
        private Duration commitInterval = Timeouts.DEFAULT_COMMIT_INTERVAL;
        private int maxPollIntervalMs = 5000;
        private int sessionTimeoutMs = 6000;
        private BarrierKind barrier;
        private String targetJdbcUrl;
        private String targetUser;
        private String targetPassword;
        private Subject transformSubject;
        private Subject shareSubject;
        private Duration stopGrace = Duration.ofSeconds(20);
        private MethodPoint dbCommitPoint = MethodPoint.jdbcCommit();
        private int parallel = DEFAULT_PARALLEL;
        private boolean witness = true;
        private Platform platform = Platform.host();
        private RecordSource source = RecordSource.reference();
        /** The refusals of the setters so far, by setting (a later valid value clears its own): {@link #build} reports them all. */
        private final Map<String, InvalidSettingsException.SettingProblem> refused = new LinkedHashMap<>();

        private Builder() {
        }

        /** {@code value} if it is valid for {@code setting}, else the setting stays as it was and the problem waits for {@link #build}. */
        private <T> T valid(String setting, T current, Supplier<T> checked) {
            try {
                T v = checked.get();
                refused.remove(setting);
                return v;
            } catch (InvalidSettingsException e) {
                e.problems().forEach(p -> refused.put(setting, p));
                return current;
            }
        }

        /** What fills each source topic and how it is read back (see {@link RecordSource}). */
        public Builder source(RecordSource s) {
            this.source = Objects.requireNonNull(s, "source");
            return this;
        }

        /** The cluster to use (see {@link BrokerSettings#bootstrap()}); null, the default: the run starts a local broker. */
        public Builder bootstrap(String b) {
            this.bootstrap = b;
            return this;
        }

        /** See {@link BrokerSettings#client()}: how the lab's clients and the reference subject reach a bootstrap that needs SASL or TLS. */
        public Builder client(io.replaylab.kafka.ClientProperties c) {
            this.client = Objects.requireNonNull(c, "client");
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
            this.experiments = valid("experiments", this.experiments, () -> {
                if (experiments.isEmpty()) {
                    throw InvalidSettingsException.of("experiments", "needs at least one experiment");
                }
                Set<String> names = new HashSet<>();
                for (Experiment x : experiments) {
                    if (!names.add(Objects.requireNonNull(x, "experiment").name())) {
                        throw InvalidSettingsException.of("experiments", "names '" + x.name() + "' twice: an experiment named '" + x.name()
                                + "' is already part of the run");
                    }
                }
                return List.copyOf(experiments);
            });
            return this;
        }

        public Builder records(int n) {
            this.records = valid("records", records, () -> {
                if (n < 1 || n > 10_000_000) {
                    throw InvalidSettingsException.of("records", "must be 1..10000000, was " + n);
                }
                return n;
            });
            return this;
        }

        public Builder partitions(int p) {
            this.partitions = valid("partitions", partitions, () -> BrokerSettings.checkPartitions(p));
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

        /** How the oracle reads the target (see {@link TargetSettings#query()}); null, the default: the reference schema's query. */
        public Builder targetQuery(String q) {
            this.targetQuery = q;
            return this;
        }

        /** A fixed handoff wait; by default the lab waits as long as the consumer's own timeouts, read on the wire, say a handoff takes. */
        public Builder handoffTimeout(Duration d) {
            this.handoffTimeout = valid("handoffTimeout", handoffTimeout, () -> Timeouts.positive(d, "handoffTimeout"));
            return this;
        }

        public Builder barrierTimeout(Duration d) {
            this.barrierTimeout = valid("barrierTimeout", barrierTimeout, () -> Timeouts.positive(d, "barrierTimeout"));
            return this;
        }

        public Builder drainTimeout(Duration d) {
            this.drainTimeout = valid("drainTimeout", drainTimeout, () -> Timeouts.positive(d, "drainTimeout"));
            return this;
        }

        /** How long a sequence cell keeps A held after B took over, before A's next fault ({@link Timeouts#contentionWindow()}). */
        public Builder contentionWindow(Duration d) {
            this.contentionWindow = valid("contentionWindow", contentionWindow, () -> Timeouts.positive(d, "contentionWindow"));
            return this;
        }

        /** How often the subject commits offsets on its own timer, if it does ({@link Timeouts#commitInterval()}; default 5 s). */
        public Builder commitInterval(Duration d) {
            this.commitInterval = valid("commitInterval", commitInterval, () -> Timeouts.positive(d, "commitInterval"));
            return this;
        }

        /** {@code {max.poll.interval.ms}}: a thread hold hands the partition over after it. */
        public Builder maxPollIntervalMs(int ms) {
            this.maxPollIntervalMs = valid("maxPollIntervalMs", maxPollIntervalMs, () -> Timeouts.consumerMs(ms, "maxPollIntervalMs"));
            return this;
        }

        /** {@code {session.timeout.ms}} (classic protocol): a frozen process is dropped after it. */
        public Builder sessionTimeoutMs(int ms) {
            this.sessionTimeoutMs = valid("sessionTimeoutMs", sessionTimeoutMs, () -> Timeouts.consumerMs(ms, "sessionTimeoutMs"));
            return this;
        }

        /** The barrier; null (the default) chooses from the subject ({@link BarrierSettings#choice()}). */
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

        /**
         * The share experiments' consumer: a member of a share group that projects into the same target,
         * with the placeholders of {@link #subject} ({@code {group}} is a share group's id); the lab sets the
         * group's {@code share.auto.offset.reset} and lock duration before it starts.
         */
        public Builder shareSubject(Subject s) {
            this.shareSubject = s;
            return this;
        }

        /** How long a subject gets after SIGTERM before SIGKILL (default 20 s; a stopped run gives 3 s whatever this says). */
        public Builder stopGrace(Duration d) {
            this.stopGrace = valid("stopGrace", stopGrace, () -> Timeouts.positive(d, "stopGrace"));
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
            this.parallel = valid("parallel", parallel, () -> {
                if (n < 1 || n > 64) {
                    throw InvalidSettingsException.of("parallel", "must be 1..64, was " + n);
                }
                return n;
            });
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
         * The settings: every problem the setters found (a setter keeps its setting's last valid value and
         * notes the problem), and what depends on several setters, reported at once.
         *
         * @throws InvalidSettingsException naming each setting that is wrong
         */
        public LabSettings build() {
            List<InvalidSettingsException.SettingProblem> problems = new ArrayList<>(refused.values());
            check(problems, "source", source::check); // a shape the mapping cannot read back is refused before anything starts
            if (targetQuery != null) {
                check(problems, "targetQuery", () -> io.replaylab.oracle.TargetSpec.sqlite(Path.of("target.db"), "-").query(targetQuery));
            }
            if (subject != null && !subject.uses("{group}")) {
                problems.add(new InvalidSettingsException.SettingProblem("subject", "must get {group} through its command or its environment "
                        + "(" + Subject.ENV + "): each experiment gives its instances a group of its own", List.of(Subject.ENV)));
            }
            if (shareSubject != null && !shareSubject.uses("{group}")) {
                problems.add(new InvalidSettingsException.SettingProblem("shareSubject", "must get {group} through its command or its "
                        + "environment (" + Subject.ENV + ")", List.of(Subject.ENV)));
            }
            if (transformSubject != null && !transformSubject.uses("{group}")) {
                problems.add(new InvalidSettingsException.SettingProblem("transformSubject", "must get {group} through its command or its "
                        + "environment (" + Subject.ENV + ")", List.of(Subject.ENV)));
            }
            String protocol = client.asMap().getOrDefault("security.protocol", "PLAINTEXT").toUpperCase(java.util.Locale.ROOT);
            if (protocol.endsWith("SSL") && (witness || barrierChoice().kind() == BarrierKind.WIRE)) {
                // the proxy reads and rewrites every frame: TLS would leave it nothing to read
                problems.add(new InvalidSettingsException.SettingProblem("client", "use security.protocol=" + protocol + ", which the wire proxy "
                        + "cannot read: take " + NO_WITNESS + " and " + BARRIER_DEBUGGER + " (a JVM subject), or a SASL_PLAINTEXT listener",
                        List.of(NO_WITNESS, BARRIER_DEBUGGER)));
            }
            if (bootstrap == null && !client.isEmpty()) {
                problems.add(new InvalidSettingsException.SettingProblem("client", "are for a broker given by its bootstrap; the broker the run "
                        + "starts itself takes none (given: " + client + ")"));
            }
            TargetSettings target = target();
            for (Subject s : java.util.Arrays.asList(subject, shareSubject, transformSubject)) {
                java.util.List<String> pg = s == null ? List.of() : Subject.PG_PLACEHOLDERS.stream().filter(s::uses).toList();
                if (target.isSqlite() && !pg.isEmpty()) {
                    problems.add(new InvalidSettingsException.SettingProblem(s == subject ? "subject" : s == shareSubject ? "shareSubject"
                            : "transformSubject", "uses " + String.join(", ", pg) + ", which only a PostgreSQL target fills (the target is "
                            + "a SQLite file per experiment: {db})"));
                }
            }
            if (!target.isSqlite()) {
                // refused here, before anything starts
                check(problems, "target", () -> TargetDatabase.check(target, allowRemote));
            }
            if (!problems.isEmpty()) {
                throw new InvalidSettingsException(problems);
            }
            return new LabSettings(this);
        }

        private BrokerSettings broker() {
            return new BrokerSettings(Optional.ofNullable(bootstrap), client, partitions, groupProtocol, witness);
        }

        private TargetSettings target() {
            return new TargetSettings(Optional.ofNullable(targetJdbcUrl), Optional.ofNullable(targetUser), Optional.ofNullable(targetPassword),
                    Optional.ofNullable(targetQuery));
        }

        /**
         * The barrier this run uses: the one asked for, else the debugger for a subject that is a JVM,
         * the wire barrier for any other program (a debugger needs a JVM; the wire barrier reaches every
         * Kafka client).
         */
        private BarrierKind.Choice barrierChoice() {
            if (barrier != null) {
                return BarrierKind.Choice.of(barrier, BarrierKind.Reason.ASKED_FOR);
            }
            if (subject == null) {
                return BarrierKind.Choice.of(BarrierKind.DEBUGGER, BarrierKind.Reason.NO_SUBJECT);
            }
            if (subject.jvm()) {
                return BarrierKind.Choice.of(BarrierKind.DEBUGGER, BarrierKind.Reason.SUBJECT_IS_A_JVM);
            }
            return new BarrierKind.Choice(BarrierKind.WIRE, BarrierKind.Reason.SUBJECT_IS_NOT_A_JVM, subject.program());
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
    }
}
