package io.replaylab.harness;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.concurrent.Callable;

import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.MethodPoint;
import io.replaylab.harness.experiment.Defect;
import io.replaylab.harness.experiment.Experiments;
import io.replaylab.harness.experiment.ScheduleCell;
import io.replaylab.harness.experiment.DbFaultCell;
import io.replaylab.harness.experiment.WireFaultCell;
import io.replaylab.harness.lab.BarrierKind;
import io.replaylab.harness.lab.Experiment;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.lab.RecordSource;
import io.replaylab.harness.lab.InvalidSettingsException;
import io.replaylab.harness.subject.ClientOptions;
import io.replaylab.harness.subject.ReferenceSubject;
import org.apache.kafka.clients.consumer.GroupProtocol;
import io.replaylab.evidence.ExperimentEvidence;
import io.replaylab.evidence.Payload;
import io.replaylab.evidence.RunEvidence;
import io.replaylab.evidence.Status;
import io.replaylab.harness.lab.Lab;
import io.replaylab.harness.lab.LabProgress;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.LabStop;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replay-lab run}: the lab's experiments end to end, with a protocol a reviewer can trust. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run the replay, rebalance and rebuild experiments against a broker (a local one by default) and save the protocol.")
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** {@code --experiment wire-faults}: a name of the lab's catalogue, any case; an unknown one is named with the valid ones. */
    static final class ExperimentName implements CommandLine.ITypeConverter<Experiments.Named> {
        @Override
        public Experiments.Named convert(String value) {
            try {
                return Experiments.named(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** What help lists below the options: each experiment of the catalogue and what it shows, and the cells. */
    static String footer() {
        int width = Experiments.catalogue().stream().mapToInt(n -> n.name().length()).max().orElse(10);
        StringBuilder b = new StringBuilder("%nExperiments:%n");
        Experiments.catalogue().forEach(n -> b.append(String.format("  %-" + width + "s  %s%%n", n.name(), n.shows().replace("%", "%%"))));
        b.append("%nschedules cells (point:fault), by default (on PostgreSQL after-db-commit's single faults too): ").append(ScheduleCell.all().stream().map(ScheduleCell::toString)
                .collect(java.util.stream.Collectors.joining(", ")));
        b.append("%n  points: ").append(java.util.Arrays.stream(io.replaylab.harness.barrier.CommitPoint.values())
                .map(io.replaylab.harness.barrier.CommitPoint::id).collect(java.util.stream.Collectors.joining(", ")));
        b.append("; faults: ").append(ScheduleCell.every().stream().map(c -> c.fault().id()).distinct().collect(java.util.stream.Collectors.joining(", ")));
        b.append("%nwire-faults cells (api:effect), by default (classic protocol): ").append(WireFaultCell.defaults(GroupProtocol.CLASSIC).stream()
                .map(WireFaultCell::toString).collect(java.util.stream.Collectors.joining(", ")));
        b.append("%ndb-faults cells (target:effect), by default (a PostgreSQL target): ").append(DbFaultCell.defaults().stream()
                .map(DbFaultCell::toString).collect(java.util.stream.Collectors.joining(", ")));
        return b.append("%n").toString();
    }

    /** The catalogue's names, for help. */
    static final class ExperimentNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return Experiments.catalogue().stream().map(Experiments.Named::name).iterator();
        }
    }

    @Option(names = "--experiment", defaultValue = "default", split = ",", converter = ExperimentName.class, completionCandidates = ExperimentNames.class,
            description = "what to run, one or several (comma-separated or repeated, e.g. replay,rebalance): ${COMPLETION-CANDIDATES} "
                    + "(default ${DEFAULT-VALUE}; what each shows is listed below)")
    List<Experiments.Named> experiment;

    @Option(names = "--junit-xml", description = "also write the outcome as JUnit XML to this file (one testcase per experiment and cell; "
            + "FAIL a failure, NOT_RUN skipped), for a CI job")
    Path junitXml;

    @Option(names = "--cells", split = ",", description = "the cells of schedules, as point:fault, of wire-faults, as api:effect[@n|@every] "
            + "(e.g. offset-commit:error=NOT_COORDINATOR@2,offset-fetch:rewind=5), or of db-faults, as target:effect[=SQLSTATE] "
            + "(e.g. commit:error=40001); default and valid cells are listed below")
    List<String> cells;

    @Option(names = "--db-commit-point", description = "schedules: where the debugger holds a JVM subject before its DB commit, as "
            + "Class#method (default java.sql.Connection#commit: the JDBC commit the subject calls, in whatever driver)")
    String dbCommitPoint;

    @Option(names = "--transform-cmd", description = "eos: a consume-transform-produce JVM program instead of the reference one, with "
            + "{bootstrap} {topic} {output} {group} {instance} {logdir}")
    String transformCmd;

    @Option(names = "--bootstrap-server", description = "use this broker instead of starting one (loopback only unless --allow-remote)")
    String bootstrap;

    @Option(names = "--allow-remote", description = "allow a broker or target database that is not on loopback (default: refused)")
    boolean allowRemote;

    @Mixin
    ClientOptions client;

    @Option(names = "--records", defaultValue = "200", description = "synthetic payments per experiment (default ${DEFAULT-VALUE})")
    int records;

    @Option(names = "--partitions", defaultValue = "3", description = "partitions of each source topic, at least 2 (default ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--group-protocol", defaultValue = "classic", description = "classic (default, like the lab's client) or consumer")
    GroupProtocol groupProtocol;

    @Option(names = "--hold-mode", defaultValue = "thread", description = "thread (default: a processing stall) or process (a frozen JVM)")
    HoldMode holdMode;

    /** {@code auto} (null: the lab chooses from the subject) or one of the library's {@link BarrierKind}s. */
    static final class BarrierFlag implements CommandLine.ITypeConverter<BarrierKind> {
        @Override
        public BarrierKind convert(String value) {
            String v = value.trim().toLowerCase(java.util.Locale.ROOT);
            if (v.equals("auto")) {
                return null;
            }
            try {
                return BarrierKind.parse(v);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("'" + value + "': use auto, " + BarrierKind.ids());
            }
        }
    }

    @Option(names = "--barrier", defaultValue = "auto", converter = BarrierFlag.class, description = "what holds A's offset commit in rebalance: auto (default: debugger for a "
            + "java subject, wire otherwise), debugger (JVM only) or wire (a Kafka protocol proxy; any client)")
    BarrierKind barrier;

    @Option(names = "--workdir", defaultValue = "lab-runs", description = "where run directories go (default ${DEFAULT-VALUE})")
    Path workDir;

    @Option(names = "--keep", description = "no cleanup of the run's topics and groups")
    boolean keep;

    @Option(names = "--subject-cmd", description = "command template for your consumer: {bootstrap} {topic} {group} {db} {namespace} {instance} "
            + "{logdir} (in the command or in --subject-env; {group} must reach it by one of them)")
    String subjectCmd;

    @Option(names = "--subject-env", paramLabel = "NAME=TEMPLATE", description = "a variable added to the consumer's environment, with the "
            + "same placeholders (and {target-password}); repeatable, e.g. --subject-env KAFKA_GROUP={group}")
    List<String> subjectEnv;

    @Option(names = "--subject-dir", description = "the consumer's working directory (a relative program path in --subject-cmd is resolved against it)")
    Path subjectDir;

    @Option(names = "--share-cmd", description = "share-ownership: a share-group consumer (KIP-932) instead of the reference one, with the "
            + "placeholders of --subject-cmd ({group} is a share group); it must acknowledge explicitly")
    String shareCmd;

    @Option(names = "--share-env", paramLabel = "NAME=TEMPLATE", description = "share-ownership: as --subject-env, for --share-cmd")
    List<String> shareEnv;

    @Option(names = "--share-dir", description = "share-ownership: as --subject-dir, for --share-cmd")
    Path shareDir;

    @Option(names = "--transform-env", paramLabel = "NAME=TEMPLATE", description = "eos: as --subject-env, for --transform-cmd")
    List<String> transformEnv;

    @Option(names = "--transform-dir", description = "eos: as --subject-dir, for --transform-cmd")
    Path transformDir;

    @Option(names = "--producer-cmd", description = "your own producer fills each experiment's source topic (the lab creates it first): "
            + "{bootstrap} {topic} {count} {namespace}; what the topic then holds is the source set")
    String producerCmd;

    @Option(names = "--producer-env", paramLabel = "NAME=TEMPLATE", description = "as --subject-env, for --producer-cmd "
            + "({bootstrap} {topic} {count} {namespace}); repeatable")
    List<String> producerEnv;

    @Option(names = "--producer-dir", description = "as --subject-dir, for --producer-cmd")
    Path producerDir;

    @Option(names = "--aborted-transactions", negatable = true, description = "the source holds aborted transactions between "
            + "committed ones, with ids of their own: a consumer that applies one (isolation.level=read_uncommitted) FAILs; on by default with "
            + "--experiment thorough or all (with --producer-cmd your producer writes <topic>.produced and the lab copies its records, the "
            + "aborted ones under fresh ids written at --source-id)")
    Boolean abortedTransactions;

    @Option(names = "--record-key", description = "the lab's producer writes this key: {id} {amount} {account} (default: the account)")
    String recordKey;

    @Option(names = "--record-value", description = "the lab's producer writes this value, e.g. '{\"paymentId\":\"{id}\",\"amountCents\":{amount}}'")
    String recordValue;

    @Mixin
    SourceOptions source;

    @Option(names = "--target-query", description = "returns message_id, amount per effect; {namespace} is bound as a parameter")
    String targetQuery;

    @Option(names = "--target-jdbc-url", description = "project into this PostgreSQL database instead of a SQLite file in the run directory, e.g. "
            + "jdbc:postgresql://localhost:5432/lab (loopback only unless --allow-remote; the run creates and drops a schema of its own)")
    String targetJdbcUrl;

    @Mixin
    TargetLogin login;

    @Option(names = "--handoff-timeout", description = "how long a partition may take to move to B (default: as long as the consumer's own "
            + "session and poll timeouts, read on the wire, say it takes, plus a margin; 2m when they were not seen; " + Durations.FORMS + ")")
    Duration handoffTimeout;

    @Option(names = "--barrier-timeout", defaultValue = "60s", description = "how long a barrier waits for A, working, to reach its point "
            + "(default ${DEFAULT-VALUE}); an A that makes no progress is waited for to the end of its own timeouts, then judged a stall")
    Duration barrierTimeout;

    @Option(names = "--drain-timeout", defaultValue = "3m", description = "how long a group may take to drain before "
            + "its consumer joined through the wire proxy (or with --no-witness); once it did, its own poll interval and session timeout "
            + "decide, and a stall past them FAILs; also how long --producer-cmd may run (default ${DEFAULT-VALUE})")
    Duration drainTimeout;

    @Option(names = "--contention-window", defaultValue = "3s", description = "schedules: how long a sequence cell (e.g. before-db-commit:"
            + "hold-then-crash) keeps A held after B took its partition, so that B works against A's open transaction, before A's next "
            + "fault (default ${DEFAULT-VALUE})")
    Duration contentionWindow;

    @Option(names = "--commit-interval", defaultValue = "5s", description = "how often your consumer commits offsets on its own timer, if it "
            + "does (its auto.commit.interval.ms; default ${DEFAULT-VALUE}, the Java client's and librdkafka's): one that applied every effect "
            + "and committed nothing for twice this keeps its positions itself, and the points at an offset commit say so at once; commit-ahead "
            + "holds A at its DB commit at least this and a half, so that its timer fires meanwhile")
    Duration commitInterval;

    @Option(names = "--parallel", defaultValue = "" + LabSettings.DEFAULT_PARALLEL, description = "how many experiments, and how many cells of a "
            + "matrix, run at once, each in its own namespace and SQLite file (default ${DEFAULT-VALUE}; 1: one after another; durability always "
            + "runs alone)")
    int parallel;

    @Option(names = "--no-witness", description = "subjects connect straight to the broker, not through the wire proxy that witnesses every "
            + "OffsetCommit and its answer (the report then cannot say whether the broker or the client refused a stale commit)")
    boolean noWitness;

    @Option(names = "--quiet", description = "only the outcome line")
    boolean quiet;

    @Option(names = "--json", description = "one JSON object on stdout, nothing else")
    boolean json;

    @Override
    public Integer call() throws Exception {
        usable(workDir);
        // every setting is given, and every problem reported at once: the builder's (each names its setting, the console its flag),
        // then the CLI's own (a flag that needs another, a cell, a point), each naming its flags already
        List<String> own = new java.util.ArrayList<>();
        LabSettings.Builder b = LabSettings.custom().bootstrap(bootstrap).allowRemote(allowRemote).groupProtocol(groupProtocol).holdMode(holdMode)
                .workDir(workDir).keep(keep).barrier(barrier).witness(!noWitness).targetQuery(targetQuery)
                .target(targetJdbcUrl, login.user, login.password()).records(records).partitions(partitions).barrierTimeout(barrierTimeout)
                .drainTimeout(drainTimeout).contentionWindow(contentionWindow).commitInterval(commitInterval).parallel(parallel);
        if (handoffTimeout != null) {
            b.handoffTimeout(handoffTimeout);
        }
        List<Runnable> parsed = List.of(
                () -> b.experiments(experiments()),
                () -> b.dbCommitPoint(dbCommitPoint == null ? MethodPoint.jdbcCommit() : MethodPoint.parse(dbCommitPoint)),
                () -> b.subject(subject("--subject", subjectCmd, subjectEnv, subjectDir, ReferenceSubject.consume())),
                () -> b.transformSubject(subject("--transform", transformCmd, transformEnv, transformDir, ReferenceSubject.transform())),
                () -> b.shareSubject(subject("--share", shareCmd, shareEnv, shareDir, ReferenceSubject.shareConsume())),
                () -> b.source(recordSource()),
                () -> b.client(client.properties()));
        for (Runnable flag : parsed) {
            try {
                flag.run();
            } catch (InvalidSettingsException e) { // a value another library class refused, naming its setting
                e.problems().forEach(p -> own.add(ReplayLab.inFlags(p)));
            } catch (IllegalArgumentException e) {
                own.add(ReplayLab.inFlags(e));
            }
        }
        List<String> problems = new java.util.ArrayList<>();
        LabSettings settings = null;
        try {
            settings = b.build();
        } catch (InvalidSettingsException e) {
            e.problems().forEach(p -> problems.add(ReplayLab.inFlags(p)));
        }
        problems.addAll(own);
        if (!problems.isEmpty()) {
            problems.forEach(p -> spec.commandLine().getErr().println("error: " + p));
            if (json) { // a CI job reading stdout gets the refusal too
                OffsetsCommand.printJson(spec.commandLine().getOut(), Map.of("outcome", "REFUSED", "errors", problems));
            }
            return ReplayLab.BAD_INPUT;
        }
        PrintWriter out = spec.commandLine().getOut();
        LabStop stop = LabStop.create();
        Lab.LabResult r;
        try (Signals signals = Signals.install(stop)) {
            r = Lab.run(settings, quiet || json ? LabProgress.NONE : LabProgress.printingTo(out), stop);
        }
        RunEvidence ev = r.evidence();
        if (junitXml != null) {
            io.replaylab.evidence.JunitXml.write(ev, junitXml); // a refused run too: its experiments say NOT_RUN with the refusal
        }
        if (r.refused().isPresent()) {
            if (json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("runId", ev.runId());
                m.put("outcome", "REFUSED");
                m.put("error", r.refused().get());
                m.put("report", r.report().toString());
                OffsetsCommand.printJson(out, m);
            }
            out.flush();
            spec.commandLine().getErr().println("error: " + r.refused().get() + " (the protocol is saved: " + r.report() + ")");
            return ReplayLab.BAD_INPUT;
        }
        if (json) {
            OffsetsCommand.printJson(out, json(ev, r));
        } else {
            out.println();
            out.println("Outcome: " + ev.outcome().status() + " — " + ev.outcome().reason());
            if (!quiet) {
                int width = ev.experiments().stream().mapToInt(x -> x.name().length()).max().orElse(10);
                for (ExperimentEvidence x : ev.experiments()) {
                    out.printf("  %-" + width + "s %-8s %s%n", x.name(), x.outcome().status(), x.outcome().reason());
                }
                ev.experiments().forEach(x -> printMatrices(out, x));
                printDefects(out, ev);
                out.println("Report: " + r.report() + " (and report.html, evidence.json beside it)");
            }
        }
        out.flush();
        if (stop.requested()) {
            spec.commandLine().getErr().println("interrupted by " + stop.reason() + "; the protocol is saved: " + r.report());
            return Signals.exitCode(stop.reason());
        }
        return exitCode(ev.outcome().status());
    }

    /** {@code --json}: the run's outcome, each experiment's with its checks, and the defect classes the run judged. */
    static Map<String, Object> json(RunEvidence ev, Lab.LabResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("runId", ev.runId());
        m.put("outcome", ev.outcome().status().name());
        m.put("reason", ev.outcome().reason());
        m.put("experiments", ev.experiments().stream().map(x -> {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", x.name());
            e.put("outcome", x.outcome().status().name());
            e.put("reason", x.outcome().reason());
            e.put("checks", x.checks()); // as evidence.json has them: name, requirement, expected, actual, status
            return e;
        }).toList());
        m.put("defects", Defect.all().stream().flatMap(d -> d.in(ev).stream().map(x -> {
            Map<String, Object> k = new LinkedHashMap<>();
            k.put("defect", d.description());
            k.put("verdict", d.verdict(ev).orElseThrow().words());
            k.put("caughtBy", d.caughtBy());
            k.put("outcome", x.outcome().status().name());
            k.put("reason", x.outcome().reason());
            return k;
        })).toList());
        m.put("evidence", r.runDir().resolve("evidence.json").toString());
        m.put("report", r.report().toString());
        return m;
    }

    /** {@code --subject-cmd} with its environment and directory; the reference program when no command is given. */
    private static Subject subject(String flag, String cmd, List<String> env, Path dir, Subject reference) {
        if (cmd == null) {
            if (env != null || dir != null) {
                throw new IllegalArgumentException(flag + "-env and " + flag + "-dir go with " + flag + "-cmd" + (reference == null ? "" : " (the reference program takes neither)"));
            }
            return reference;
        }
        Subject s = Subject.command(cmd);
        if (dir != null) {
            s = s.directory(dir);
        }
        for (String e : env == null ? List.<String>of() : env) {
            int eq = e.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(flag + "-env takes NAME=TEMPLATE, was '" + e + "'");
            }
            s = s.env(e.substring(0, eq), e.substring(eq + 1));
        }
        return s;
    }

    /** What fills the source topics: --producer-cmd, or the lab's producer in --record-key/--record-value's shape; read with --source-*. */
    private RecordSource recordSource() {
        RecordSource r;
        if (producerCmd != null || producerEnv != null || producerDir != null) {
            if (recordKey != null || recordValue != null) {
                throw new IllegalArgumentException("--producer-cmd fills the topics with your producer's records; --record-key/--record-value shape "
                        + "the lab's own: give one or the other");
            }
            r = RecordSource.producer(subject("--producer", producerCmd, producerEnv, producerDir, null));
        } else if (recordValue != null) {
            r = RecordSource.shaped(recordKey, recordValue);
        } else if (recordKey != null) {
            throw new IllegalArgumentException("--record-key needs --record-value (the value the lab's producer writes)");
        } else {
            r = RecordSource.reference();
        }
        r = r.mapping(source.mapping());
        if (Boolean.TRUE.equals(abortedTransactions) || abortedTransactions == null && experiment.stream().anyMatch(Experiments.Named::battery)) {
            r = r.withAbortedTransactions();
        }
        return r;
    }

    /** A work dir the run cannot write is bad input, named before anything starts (not a FAIL of an experiment). */
    static void usable(Path dir) {
        try {
            java.nio.file.Files.createDirectories(dir);
        } catch (java.io.IOException | SecurityException e) {
            String why = e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                    : e instanceof java.nio.file.FileAlreadyExistsException ? "a file that is not a directory is in the way"
                    : e instanceof java.nio.file.NoSuchFileException ? "a directory cannot be created there"
                    : e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason() : String.valueOf(e.getMessage());
            throw new IllegalArgumentException("--workdir " + dir + " cannot be used: " + why);
        }
        if (!java.nio.file.Files.isWritable(dir)) {
            throw new IllegalArgumentException("--workdir " + dir + " cannot be used: it is not writable");
        }
    }

    /** The experiments of every name given, each once, in the order given; {@code --cells} go to the one that takes cells. */
    private List<Experiment> experiments() {
        List<Experiments.Named> withCells = experiment.stream().filter(Experiments.Named::takesCells).toList();
        if (cells != null && withCells.size() != 1) {
            throw new IllegalArgumentException("--cells picks the cells of --experiment " + Experiments.catalogue().stream()
                    .filter(Experiments.Named::takesCells).map(Experiments.Named::name).collect(java.util.stream.Collectors.joining(" or "))
                    + (withCells.isEmpty() ? ", not of " + experiment.stream().map(Experiments.Named::name).collect(java.util.stream.Collectors.joining(", "))
                    : ": name only one of them beside it, not " + withCells.stream().map(Experiments.Named::name).collect(java.util.stream.Collectors.joining(" and "))));
        }
        Map<String, Experiment> byName = new LinkedHashMap<>();
        for (Experiments.Named n : experiment) {
            n.experiments(n.takesCells() && cells != null ? cells : List.of()).forEach(x -> byName.putIfAbsent(x.name(), x));
        }
        return List.copyOf(byName.values());
    }

    /** Defect class → its verdict → what catches it, for the classes whose experiment or cell the run had (all of them in a thorough run). */
    static void printDefects(PrintWriter out, RunEvidence ev) {
        List<Defect> seen = Defect.all().stream().filter(d -> d.in(ev).isPresent()).toList();
        if (seen.isEmpty()) {
            return;
        }
        out.println("Defect classes:");
        int width = seen.stream().mapToInt(d -> d.caughtBy().length()).max().orElse(10);
        for (Defect d : seen) {
            Defect.Verdict v = d.verdict(ev).orElseThrow();
            // a PASS that ruled the class out needs no words; any other verdict says what decided it
            boolean ruledOutByAPass = v == Defect.Verdict.NOT_FOUND && d.in(ev).orElseThrow().outcome().status() == io.replaylab.evidence.Status.PASS;
            out.printf("  %-10s %-" + width + "s %s%n", v.words(), d.caughtBy(), d.description() + (ruledOutByAPass ? "" : ": " + d.decidedBy(ev).orElseThrow()));
        }
    }

    /** An experiment's matrix (e.g. schedules: point × fault) as a table of outcomes. */
    static void printMatrices(PrintWriter out, ExperimentEvidence x) {
        x.events().stream().map(io.replaylab.evidence.Event::payload).filter(p -> p instanceof Payload.Matrix).map(p -> (Payload.Matrix) p)
                .forEach(m -> {
                    int first = Math.max(m.rowHeading().length(), m.rows().stream().mapToInt(String::length).max().orElse(0)) + 2;
                    String column = "%-" + Math.max(14, m.columns().stream().mapToInt(String::length).max().orElse(0) + 2) + "s";
                    out.println();
                    out.println("  " + x.name() + ": " + m.title());
                    StringBuilder head = new StringBuilder(String.format("    %-" + first + "s", m.rowHeading()));
                    m.columns().forEach(c -> head.append(String.format(column, c)));
                    out.println(head.toString().stripTrailing());
                    for (String r : m.rows()) {
                        StringBuilder line = new StringBuilder(String.format("    %-" + first + "s", r));
                        m.columns().forEach(c -> line.append(String.format(column, m.cell(r, c).map(Payload.MatrixCell::status).orElse(""))));
                        out.println(line.toString().stripTrailing());
                    }
                });
    }

    static int exitCode(Status s) {
        return switch (s) {
            case PASS -> ReplayLab.OK;
            case FAIL -> ReplayLab.FAIL;
            case NOT_RUN -> ReplayLab.NOT_RUN;
        };
    }

}
