package io.replaylab.harness;

import java.io.PrintWriter;
import java.util.Map;

import io.replaylab.evidence.EvidenceFormatException;
import io.replaylab.harness.subject.SubjectCommand;
import io.replaylab.kafka.BrokerUnreachableException;
import io.replaylab.kafka.ResetRefusedException;
import io.replaylab.oracle.OracleReadException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code replay-lab} command line: a thin shell over the modules. */
@Command(name = "replay-lab", mixinStandardHelpOptions = true, versionProvider = Versions.Provider.class,
        description = "Prove that a Kafka consumer survives offset replay and rebalance without a second effect.",
        subcommands = {RunCommand.class, BrokerCommand.class, OffsetsCommand.class, SubjectCommand.class, OracleCommand.class, ReportCommand.class, BenchCommand.class})
public final class ReplayLab implements Runnable {
    /** Exit codes shared by every subcommand. */
    public static final int OK = 0;
    public static final int FAIL = 1;
    public static final int BAD_INPUT = 2;
    public static final int NOT_RUN = 3;
    public static final int REFUSED = 4;
    public static final int UNREACHABLE = 5;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the CLI with the given streams and returns the exit code (testable without a JVM exit). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new ReplayLab());
        cli.setOut(out);
        cli.setErr(err);
        cli.setCaseInsensitiveEnumValuesAllowed(true); // --hold-mode process, --group-protocol consumer
        cli.setExitCodeExceptionMapper(ReplayLab::exitCodeOf);
        cli.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("error: " + ex.getMessage());
            ex.getCommandLine().usage(ex.getCommandLine().getErr());
            return BAD_INPUT;
        });
        cli.setExecutionExceptionHandler((ex, c, parseResult) -> {
            StringBuilder msg = new StringBuilder("error: " + inFlags(ex.getMessage()));
            for (Throwable t = ex.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
                if (t.getMessage() != null && !msg.toString().contains(t.getMessage())) {
                    msg.append("\n  caused by: ").append(t.getClass().getSimpleName()).append(": ").append(inFlags(t.getMessage()));
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

    /** The library's messages name its API (e.g. {@code ExecuteResetOptions.allowPrefix}); on the command line they name the flag. */
    private static final Map<String, String> FLAGS = Map.ofEntries(
            Map.entry("ExecuteResetOptions.allowPrefix", "--allow-prefix P"),
            Map.entry("ExecuteResetOptions.allowRemote", "--allow-remote"),
            Map.entry("ExecuteResetOptions.planDir", "--plan-dir D"),
            Map.entry("ResetTargets.toOffset", "--to-offset"),
            Map.entry("ResetTargets.toEarliest", "--to-earliest"),
            Map.entry("ResetTargets.toLatest", "--to-latest"),
            Map.entry("ResetTargets.shiftBy", "--shift-by"),
            Map.entry("ResetTargets.byDuration", "--by-duration"),
            Map.entry("ResetScope.allTopics", "--all-topics"),
            Map.entry("ResetScope.topics", "--topic"),
            Map.entry("bad bootstrap servers", "bad --bootstrap-server"),
            Map.entry("no namespace was given", "no --namespace was given"));

    /** A library message as the command line says it: API names become the flags that set them. */
    static String inFlags(String message) {
        if (message == null) {
            return null;
        }
        String out = message;
        for (Map.Entry<String, String> e : FLAGS.entrySet()) {
            out = out.replace(e.getKey(), e.getValue());
        }
        return out;
    }

    /** Refusals, unreachable brokers or databases, and bad input each have their own exit code; never 0 after a refusal. */
    static int exitCodeOf(Throwable e) {
        if (e instanceof ResetRefusedException) {
            return REFUSED;
        }
        if (e instanceof BrokerUnreachableException || e instanceof OracleReadException) {
            return UNREACHABLE;
        }
        if (e instanceof IllegalArgumentException || e instanceof EvidenceFormatException) {
            return BAD_INPUT;
        }
        return FAIL;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
