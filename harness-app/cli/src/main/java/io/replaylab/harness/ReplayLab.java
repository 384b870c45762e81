package io.replaylab.harness;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

import io.replaylab.evidence.EvidenceFormatException;
import io.replaylab.evidence.Setting;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.lab.LabSettings;
import io.replaylab.harness.lab.Leftovers;
import io.replaylab.harness.lab.RecordSource;
import io.replaylab.harness.lab.Subject;
import io.replaylab.harness.lab.Versions;
import io.replaylab.harness.subject.SubjectCommand;
import io.replaylab.kafka.BrokerUnreachableException;
import io.replaylab.kafka.ClientProperties;
import io.replaylab.kafka.ExecuteResetOptions;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.ResetScope;
import io.replaylab.kafka.ResetTargets;
import io.replaylab.kafka.ResetRefusedException;
import io.replaylab.oracle.OracleReadException;
import io.replaylab.oracle.TargetSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code replay-lab} command line: a thin shell over the modules. */
@Command(name = "replay-lab", mixinStandardHelpOptions = true, versionProvider = ReplayLab.VersionProvider.class,
        description = "Prove that a Kafka consumer survives offset replay and rebalance without a second effect.",
        subcommands = {RunCommand.class, BrokerCommand.class, OffsetsCommand.class, SubjectCommand.class, OracleCommand.class, ReportCommand.class, CleanupCommand.class})
public final class ReplayLab implements Runnable {
    /** Exit codes shared by every subcommand. */
    public static final int OK = 0;
    public static final int FAIL = 1;
    public static final int BAD_INPUT = 2;
    public static final int NOT_RUN = 3;
    public static final int REFUSED = 4;
    public static final int UNREACHABLE = 5;

    /**
     * The JVM options {@code ./replay-lab} starts this CLI with (a test keeps the launcher script's
     * equal): a run mostly waits, and C2 compiling the Kafka clients, JDBC and JDI code it touches
     * took half the harness's CPU time on 2 cores, CPU the subjects' JVMs beside it need more.
     */
    public static final List<String> JVM_OPTIONS = ChildProcess.shortLived();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the CLI with the given streams and returns the exit code (testable without a JVM exit). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return execute(new ReplayLab(), out, err, args);
    }

    /**
     * Runs any picocli command (this CLI, or a program that shares its conventions such as the
     * benches) with the CLI's error handling and exit codes: a bad argument is one line and a hint
     * to {@code --help}, a library message names the flags.
     */
    public static int execute(Object command, PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(command);
        if (command instanceof ReplayLab) { // run's help lists the catalogue, which an annotation cannot
            cli.getSubcommands().get("run").getCommandSpec().usageMessage().width(130).footer(RunCommand.footer());
        }
        cli.setOut(out);
        cli.setErr(err);
        cli.setCaseInsensitiveEnumValuesAllowed(true); // --hold-mode process, --group-protocol consumer
        cli.registerConverter(java.time.Duration.class, new Durations()); // 5s, 1m30s, PT5S on every duration option
        cli.setExitCodeExceptionMapper(ReplayLab::exitCodeOf);
        cli.setParameterExceptionHandler((ex, a) -> {
            CommandLine c = ex.getCommandLine();
            String said = ex.getMessage();
            if (ex instanceof CommandLine.UnmatchedArgumentException u) {
                // a mistyped --command-property must not print its value (a password) to the console or a CI log
                for (String arg : u.getUnmatched()) {
                    if (arg.indexOf('=') > 0) {
                        said = said.replace(arg, arg.substring(0, arg.indexOf('=') + 1) + "…");
                    }
                }
            }
            c.getErr().println("error: " + said);
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for more information.");
            return BAD_INPUT;
        });
        cli.setExecutionExceptionHandler((ex, c, parseResult) -> {
            if (ex instanceof io.replaylab.harness.lab.InvalidSettingsException invalid) {
                // one line per setting, each named by its flag
                invalid.problems().forEach(p -> c.getErr().println("error: " + inFlags(p)));
                return BAD_INPUT;
            }
            StringBuilder msg = new StringBuilder("error: " + inFlags(ex));
            for (Throwable t = ex.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
                if (t.getMessage() != null && !msg.toString().contains(t.getMessage())) {
                    msg.append("\n  caused by: ").append(t.getClass().getSimpleName()).append(": ").append(inFlags(t));
                }
            }
            c.getErr().println(msg);
            return c.getExitCodeExceptionMapper().getExitCode(ex);
        });
        int rc = cli.execute(args);
        out.flush();
        err.flush();
        return rc;
    }

    /**
     * The flag of each setting the libraries' refusals name ({@link Setting.Named}): a refusal says
     * which settings its message names, and the console says them as flags. A setting with no flag
     * here keeps its API name (a test lists the libraries' settings against this map).
     */
    static final Map<Setting, String> FLAGS = Map.ofEntries(
            Map.entry(ExecuteResetOptions.ALLOW_PREFIX, "--allow-prefix P"),
            Map.entry(ExecuteResetOptions.ALLOW_REMOTE, "--allow-remote"),
            Map.entry(ExecuteResetOptions.PLAN_DIR, "--plan-dir D"),
            Map.entry(ResetTargets.TO_OFFSET, "--to-offset"),
            Map.entry(ResetTargets.TO_EARLIEST, "--to-earliest"),
            Map.entry(ResetTargets.TO_LATEST, "--to-latest"),
            Map.entry(ResetTargets.SHIFT_BY, "--shift-by"),
            Map.entry(ResetTargets.BY_DURATION, "--by-duration"),
            Map.entry(ResetScope.ALL_TOPICS, "--all-topics"),
            Map.entry(ResetScope.TOPICS, "--topic"),
            Map.entry(KafkaOps.BOOTSTRAP, "--bootstrap-server"),
            Map.entry(ClientProperties.SETTING, "--command-config/--command-property"),
            Map.entry(TargetSpec.NAMESPACE, "no --namespace was given"),
            Map.entry(LabSettings.BOOTSTRAP_HOSTS, "--bootstrap-server host(s)"),
            Map.entry(LabSettings.ALLOW_REMOTE, "--allow-remote"),
            Map.entry(LabSettings.NO_WITNESS, "--no-witness"),
            Map.entry(LabSettings.BARRIER_DEBUGGER, "--barrier debugger"),
            Map.entry(Leftovers.Access.ALLOW_REMOTE, "--allow-remote"),
            Map.entry(Subject.ENV, "--subject-env, --transform-env"),
            Map.entry(Subject.COMMAND, "--subject-cmd"),
            Map.entry(RecordSource.PRODUCER, "--producer-cmd"));

    /** The flag of each setting a {@code run} sets (a setting the CLI has no flag for keeps its API name). */
    private static final Map<String, String> SETTING_FLAGS = Map.ofEntries(
            Map.entry("experiments", "--experiment"),
            Map.entry("records", "--records"),
            Map.entry("client", "--command-config/--command-property"),
            Map.entry("partitions", "--partitions"),
            Map.entry("parallel", "--parallel"),
            Map.entry("handoffTimeout", "--handoff-timeout"),
            Map.entry("barrierTimeout", "--barrier-timeout"),
            Map.entry("drainTimeout", "--drain-timeout"),
            Map.entry("contentionWindow", "--contention-window"),
            Map.entry("commitInterval", "--commit-interval"),
            Map.entry("target", "--target-jdbc-url"),
            Map.entry("targetQuery", "--target-query"),
            Map.entry("subject", "--subject-cmd"),
            Map.entry("transformSubject", "--transform-cmd"),
            Map.entry("shareSubject", "--share-cmd"),
            Map.entry("source", "the source (--producer-cmd, --record-key/--record-value, --source-id/--source-amount)"));

    static String flagOf(String setting) {
        return SETTING_FLAGS.getOrDefault(setting, "LabSettings." + setting);
    }

    /** A setting as the command line says it: its flag, or its API name when it has none. */
    static String flag(Setting s) {
        return FLAGS.getOrDefault(s, s.toString());
    }

    /** A refusal's message as the command line says it: the settings it names ({@link Setting.Named}) said as flags. */
    static String inFlags(Throwable t) {
        return t instanceof Setting.Named named ? Setting.rename(t.getMessage(), named.settings(), ReplayLab::flag) : t.getMessage();
    }

    /** A settings problem as the command line says it: its setting's flag, then its message with the settings it names as flags. */
    static String inFlags(io.replaylab.harness.lab.InvalidSettingsException.SettingProblem p) {
        return flagOf(p.setting()) + " " + Setting.rename(p.message(), p.named(), ReplayLab::flag);
    }

    /** Refusals, unreachable brokers or databases, and bad input each have their own exit code; never 0 after a refusal. */
    static int exitCodeOf(Throwable e) {
        return e instanceof ResetRefusedException || e instanceof io.replaylab.harness.lab.CleanupRefusedException ? REFUSED
                : e instanceof BrokerUnreachableException || e instanceof OracleReadException ? UNREACHABLE
                : e instanceof IllegalArgumentException || e instanceof EvidenceFormatException ? BAD_INPUT : FAIL;
    }

    /** {@code --version}: replay-lab's and what it runs on. */
    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "replay-lab " + Versions.replayLab(),
                "kafka-clients " + Versions.kafkaClients(),
                "kafka broker (bundled, kafka_2.13) " + Versions.bundledBroker(),
                "java " + Versions.java(),
            };
        }
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
