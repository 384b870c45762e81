package io.replaylab.harness;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import io.replaylab.harness.lab.CleanupRefusedException;
import io.replaylab.harness.lab.Leftovers;
import io.replaylab.harness.subject.ClientOptions;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replay-lab cleanup [--workdir D] [--run ID | --all-dead]}: what dead runs left, and its removal. */
@Command(name = "cleanup", mixinStandardHelpOptions = true,
        description = {"List the runs under the work dir whose cleanup never completed (killed before or during it, or a step failed),",
            "and with --run or --all-dead remove ONLY that run's own topics and groups (by its namespace's prefix, on the broker its journal names),",
            "its PostgreSQL schema and its local broker's data, after saving what is left of its protocol.",
            "Refuses (exit 4) a run that is still alive, a broker that is another cluster now, and a remote broker or database without --allow-remote."})
final class CleanupCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--workdir", defaultValue = "lab-runs", description = "the work dir the runs were started with (default ${DEFAULT-VALUE})")
    Path workDir;

    static final class Which {
        @Option(names = "--run", paramLabel = "ID", description = "remove what this run left (a run id as listed; also a run that kept its things on purpose)")
        String run;

        @Option(names = "--all-dead", description = "remove what every listed dead run left (not the live ones; not runs that kept their things on purpose)")
        boolean allDead;
    }

    @ArgGroup(exclusive = true)
    Which which;

    @Option(names = "--allow-remote", description = "also clean up on a broker or database that is not on loopback (default: refused)")
    boolean allowRemote;

    @Mixin
    TargetLogin login;

    /** The run's broker may need them again: they are never journaled. */
    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (!Files.isDirectory(workDir)) {
            throw new IllegalArgumentException("--workdir " + workDir + " is not a directory");
        }
        Leftovers.Access access = new Leftovers.Access(allowRemote, login.user, login.password(), client.properties());
        if (which != null && which.run != null) {
            Leftovers.Run r = Leftovers.of(workDir, which.run);
            return remove(out, List.of(r), access);
        }
        Leftovers.Found found = Leftovers.find(workDir);
        if (found.runs().isEmpty()) {
            out.println("no run under " + workDir + " left anything behind");
        }
        for (Leftovers.Run r : found.runs()) {
            out.println(r.runId() + ": " + r.status());
            r.left().forEach(l -> out.println("  " + l));
        }
        if (found.ownerUnknown() > 0) {
            out.println(found.ownerUnknown() + " older run(s) journal no owner process and are not judged (written before replay-lab recorded one)");
        }
        if (which == null) {
            if (found.runs().stream().anyMatch(Leftovers.Run::dead)) {
                out.println("remove one with: replay-lab cleanup --workdir " + workDir + " --run ID (or --all-dead)");
            }
            return ReplayLab.OK;
        }
        return remove(out, found.runs().stream().filter(Leftovers.Run::dead).toList(), access);
    }

    private int remove(PrintWriter out, List<Leftovers.Run> runs, Leftovers.Access access) {
        int rc = ReplayLab.OK;
        for (Leftovers.Run r : runs) {
            out.println("cleaning up " + r.runId() + " (" + r.status() + ")");
            try {
                for (Leftovers.Step step : Leftovers.remove(r, access)) {
                    out.println("  " + step);
                    if (step.failed()) {
                        rc = Math.max(rc, ReplayLab.FAIL);
                    }
                }
            } catch (CleanupRefusedException e) {
                spec.commandLine().getErr().println("error: refused: " + ReplayLab.inFlags(e));
                rc = ReplayLab.REFUSED;
            }
        }
        return rc;
    }
}
