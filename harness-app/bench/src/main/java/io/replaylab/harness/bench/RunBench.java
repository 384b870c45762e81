package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.ReplayLab;
import io.replaylab.harness.lab.LabSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench run}: whole runs as a user starts them (a fresh JVM, the local broker's start
 * included), one after another ({@code --parallel 1}) against side by side, taking turns by the
 * {@link Alternation} (A B B A) so that a machine getting warmer or busier weighs on both alike; the
 * median wall time of each and their ratio, for the default experiments and for {@code schedules}.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Whole runs (broker start included) with --parallel 1 against --parallel P, alternating A B B A: median wall time and ratio.")
final class RunBench implements BenchCase {
    /** The alternation's variants: A, one run after another, and B, side by side. */
    private static final int ONE_AFTER_ANOTHER = 0;

    @Option(names = "--runs", converter = Count.class, defaultValue = "3", description = "runs of each kind per experiment set (default ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--parallel", defaultValue = "" + LabSettings.DEFAULT_PARALLEL, description = "the side-by-side runs' --parallel "
            + "(default ${DEFAULT-VALUE}, the run's default)")
    int parallel;

    @Option(names = "--experiments", split = ",", defaultValue = "default,schedules", description = "which sets to time: default (replay, "
            + "rebalance, rebuild) and/or schedules (the 3x3 matrix) (default ${DEFAULT-VALUE})")
    List<String> sets;

    @Override
    public int run(BenchContext bench) throws Exception {
        PrintWriter out = bench.out();
        for (String set : sets) {
            if (!set.equals("default") && !set.equals("schedules")) {
                throw bench.refuse("--experiments takes default and/or schedules, was '" + set + "'");
            }
        }
        Path dir = Files.createTempDirectory("replay-lab-bench-run-");
        out.printf("%d run(s) of each kind, alternating A B B A; A = --parallel 1, B = --parallel %d; run directories under %s%n", runs, parallel, dir);
        // one run first, not timed: the first run after a build dumps the class-data archives of its JVMs at their exits
        // (a few seconds, once; ClassDataArchive), which would count against whichever kind of run came first
        int warm = wholeRun(dir, List.of("run", "--quiet", "--workdir", dir.resolve("warm-up").toString()), "warm-up");
        out.printf("  warm-up (not timed): exit %d%s%n", warm, warm == ReplayLab.OK ? " (PASS)" : "; see " + dir.resolve("warm-up.out"));
        out.flush();
        boolean allPassed = true;
        for (String set : sets) {
            List<String> experiment = set.equals("schedules") ? List.of("--experiment", "schedules") : List.of();
            List<WholeRun> timed = new ArrayList<>();
            List<Integer> turns = Alternation.of(2).turns(0, runs);
            for (int i = 0; i < turns.size(); i++) {
                boolean a = turns.get(i) == ONE_AFTER_ANOTHER;
                int p = a ? 1 : parallel;
                List<String> args = new ArrayList<>(List.of("run", "--quiet", "--parallel", "" + p, "--workdir", dir.resolve(set).toString()));
                args.addAll(experiment);
                String name = set + "-" + (i + 1) + "-parallel-" + p;
                Path log = dir.resolve(name + ".out");
                long t0 = System.nanoTime();
                int rc = wholeRun(dir, args, name);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                timed.add(new WholeRun(a, ms, rc == ReplayLab.OK));
                out.printf("  %-9s --parallel %d: %6.1f s, exit %d%s%n", set, p, ms / 1000.0, rc, rc == ReplayLab.OK ? " (PASS)" : "; see " + log);
                out.flush();
            }
            long ms1 = Samples.of(timed.stream().filter(WholeRun::oneAfterAnother).toList(), WholeRun::ms).roundedMedian();
            long msP = Samples.of(timed.stream().filter(r -> !r.oneAfterAnother()).toList(), WholeRun::ms).roundedMedian();
            long passed = timed.stream().filter(WholeRun::passed).count();
            out.printf("%s: median %.1f s with --parallel 1, %.1f s with --parallel %d: ratio %.2f; %d of %d runs PASS%n", set, ms1 / 1000.0,
                    msP / 1000.0, parallel, (double) msP / ms1, passed, 2 * runs);
            allPassed &= passed == 2 * runs;
        }
        return allPassed ? ReplayLab.OK : ReplayLab.FAIL;
    }

    /** One timed whole run: which kind, its wall time, and whether it passed. */
    record WholeRun(boolean oneAfterAnother, long ms, boolean passed) {
    }

    /** One whole run of the CLI in a JVM of its own, as a user starts it; its exit code. Its output is {@code NAME.out} / {@code .err} in {@code dir}. */
    private static int wholeRun(Path dir, List<String> args, String name) throws Exception {
        Path log = dir.resolve(name + ".out");
        ChildProcess run = ChildProcess.of(Bench.cliCommand(ReplayLab.JVM_OPTIONS, args.toArray(String[]::new))).name(name)
                .output(log, dir.resolve(name + ".err")).start();
        if (!run.process().waitFor(30, TimeUnit.MINUTES)) {
            run.kill();
            throw new IllegalStateException(name + " took over 30 minutes; see " + log);
        }
        return run.process().exitValue();
    }
}
