package io.replaylab.harness.bench;

import picocli.CommandLine.Command;

/**
 * One bench: {@code ./replay-lab bench NAME}. Its options are its picocli {@code @Option} fields and
 * its {@code @Command} annotation names and describes it; {@link Bench} lists the cases and runs the
 * one named.
 */
interface BenchCase {
    /** Its name on the command line: its {@code @Command}'s. */
    default String name() {
        return getClass().getAnnotation(Command.class).name();
    }

    /** Measures and prints the figures to {@code bench.out()}; the exit code ({@code ReplayLab.OK}, {@code FAIL}). */
    int run(BenchContext bench) throws Exception;
}
