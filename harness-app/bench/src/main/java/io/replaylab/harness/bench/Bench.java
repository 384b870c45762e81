package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.ReplayLab;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code replay-lab bench …}: the benchmarks behind the figures in the notes (never timed unit tests),
 * out of the shipped CLI: the launcher runs this module's jar. Each bench is a {@link BenchCase};
 * those that compare variants take turns by one {@link Alternation}, and every statistic comes from
 * {@link Samples} (commons-math3).
 */
@Command(name = "replay-lab bench", mixinStandardHelpOptions = true, description = "Run a benchmark and print its figures.")
public final class Bench implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs a bench with the CLI's error handling and exit codes; returns the exit code. */
    static int run(PrintWriter out, PrintWriter err, String... args) {
        return ReplayLab.execute(command(), out, err, args);
    }

    /** The benches, fresh (their options are their fields), in the order {@code --help} lists them. */
    static List<BenchCase> cases() {
        return List.of(new BrokerBench(), new ClusterBench(), new OffsetsBench(), new SubjectBench(), new OracleBench(), new WireBench(),
                new NativeBench(), new PgBench(), new RunBench());
    }

    /** The {@code bench} command with one subcommand per case, by its name. */
    static CommandSpec command() {
        CommandSpec bench = CommandSpec.forAnnotatedObject(new Bench());
        for (BenchCase c : cases()) {
            CaseCommand run = new CaseCommand(c);
            CommandSpec sub = CommandSpec.wrapWithoutInspection(run);
            // the case's own @Command and @Options, bound to its fields: its usage text is the case's
            sub.addMixin(c.name(), CommandSpec.forAnnotatedObject(c));
            run.commandLine = new CommandLine(sub);
            bench.addSubcommand(c.name(), run.commandLine);
        }
        return bench;
    }

    /** A case as picocli runs it: once its fields hold the parsed options, its run gets the command line. */
    private static final class CaseCommand implements Callable<Integer> {
        private final BenchCase benchCase;
        private CommandLine commandLine;

        CaseCommand(BenchCase benchCase) {
            this.benchCase = benchCase;
        }

        @Override
        public Integer call() throws Exception {
            return benchCase.run(new BenchContext(commandLine));
        }
    }

    /**
     * This CLI in a child JVM on the same classpath: {@code jvmOptions} first, then the CLI's
     * arguments. From a class-data archive of its jars once there is one, as {@code ./replay-lab}
     * starts it.
     */
    static List<String> cliCommand(List<String> jvmOptions, String... args) {
        return ChildProcess.java(jvmOptions, ReplayLab.class.getName(), args);
    }
}
