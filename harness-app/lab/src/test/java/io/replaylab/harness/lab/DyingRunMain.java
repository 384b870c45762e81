package io.replaylab.harness.lab;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.replaylab.evidence.ExperimentRecorder;
import io.replaylab.evidence.Resource;
import io.replaylab.evidence.RunRecorder;
import io.replaylab.evidence.process.ChildProcess;

/**
 * A run's process that dies as a killed harness does (halt: no hook, no finally), after journaling
 * what it owns: {@code RUN_DIR before-save|in-cleanup KIND|NAME|k=v,k=v …}.
 */
public final class DyingRunMain {
    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        RunRecorder run = RunRecorder.start(dir, dir.getFileName().toString());
        for (int i = 2; i < args.length; i++) {
            String[] p = args[i].split("\\|", -1);
            Map<String, String> where = new LinkedHashMap<>();
            for (String kv : p[2].isEmpty() ? new String[0] : p[2].split(",")) {
                where.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
            run.owns(new Resource(p[0], p[1], where));
        }
        ExperimentRecorder replay = run.experiment("replay");
        replay.begin();
        if (args[1].equals("in-cleanup")) {
            run.save().cleanup("stop every process the run started", () -> { });
        }
        Runtime.getRuntime().halt(137);
    }

    /** Runs it to its death and returns once it is dead. */
    static void die(Path runDir, String stage, Resource... owned) throws Exception {
        List<String> args = new ArrayList<>(List.of(runDir.toString(), stage));
        for (Resource r : owned) {
            List<String> kv = new ArrayList<>();
            r.where().forEach((k, v) -> kv.add(k + "=" + v));
            args.add(r.kind() + "|" + r.name() + "|" + String.join(",", kv));
        }
        Process p = new ProcessBuilder(ChildProcess.java(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1"), DyingRunMain.class.getName(), args.toArray(String[]::new)))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 137) {
            throw new AssertionError("the dying run did not die as planned: " + out);
        }
    }
}
