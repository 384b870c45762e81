package io.replaylab.harness.bench;

import java.io.PrintWriter;

import picocli.CommandLine;

/** What a bench runs with: the command line it was started from, where its figures go, and how it refuses its options. */
record BenchContext(CommandLine commandLine) {
    PrintWriter out() {
        return commandLine.getOut();
    }

    /** Options that do not go together, reported as picocli reports a bad argument: exit code 2 and a hint to {@code --help}. */
    CommandLine.ParameterException refuse(String message) {
        return new CommandLine.ParameterException(commandLine, message);
    }
}
