package io.replaylab.harness;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;

import io.replaylab.kafka.broker.LocalKafka;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replay-lab bench …}: the benchmarks behind the figures in the notes (never timed unit tests). */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Run a benchmark and print its figures.",
        subcommands = {BenchCommand.Broker.class})
final class BenchCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Broker start-to-ready (fresh format each run) and idle RSS. */
    @Command(name = "broker", mixinStandardHelpOptions = true, description = "Start the local broker N times: start-to-ready and idle RSS.")
    static final class Broker implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--runs", defaultValue = "5")
        int runs;

        @Option(names = "--idle-seconds", defaultValue = "5", description = "idle time before RSS is read")
        int idleSeconds;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            List<Long> startMs = new ArrayList<>();
            List<Long> rssMb = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                try (LocalKafka kafka = LocalKafka.create()) {
                    long t0 = System.nanoTime();
                    kafka.start();
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    Thread.sleep(idleSeconds * 1000L);
                    long rss = rssKb(kafka.pid()) / 1024;
                    startMs.add(ms);
                    rssMb.add(rss);
                    out.printf("run %d: start-to-ready %d ms (format included), idle RSS %d MB%n", i + 1, ms, rss);
                    out.flush();
                }
            }
            out.printf("median: start-to-ready %d ms, idle RSS %d MB (%d runs)%n", median(startMs), median(rssMb), runs);
            return ReplayLab.OK;
        }

        private static long rssKb(long pid) throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            return -1;
        }

        private static long median(List<Long> xs) {
            List<Long> s = new ArrayList<>(xs);
            Collections.sort(s);
            return s.get(s.size() / 2);
        }
    }
}
