package io.replaylab.harness.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.replaylab.evidence.process.ChildProcess;
import picocli.CommandLine.Option;

/** What the broker and cluster benches share: start something N times, fresh each time, and read its idle RSS. */
final class StartsAndRss {
    /** The options of a bench that measures starts: {@code --runs} and {@code --idle-seconds}, worded for its command. */
    static final class Options {
        @Option(names = "--runs", converter = Count.class, defaultValue = "5", description = "${COMMAND-NAME} starts measured (default ${DEFAULT-VALUE})")
        int runs;

        @Option(names = "--idle-seconds", converter = Count.OrZero.class, defaultValue = "5", description = "idle time before RSS is read")
        int idleSeconds;

        /** Starts something {@code runs} times: start-to-ready, then the idle RSS of its processes; prints each run, then the medians. */
        void measure(PrintWriter out, String what, Callable<Started> starter) throws Exception {
            StartsAndRss.measure(out, runs, idleSeconds, what, starter);
        }
    }

    private StartsAndRss() {
    }

    /** Something started for a bench: how long it took, its processes by name, and how to stop it. */
    record Started(long startMs, Map<String, Long> pids, AutoCloseable stop) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            stop.close();
        }
    }

    /** One start: its start-to-ready time and the idle RSS of all its processes together. */
    record Start(long startMs, long rssMb) {
    }

    private static void measure(PrintWriter out, int runs, int idleSeconds, String what, Callable<Started> starter) throws Exception {
        List<Start> starts = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            try (Started s = starter.call()) {
                Thread.sleep(idleSeconds * 1000L);
                List<String> each = new ArrayList<>();
                long total = 0;
                for (Map.Entry<String, Long> p : s.pids().entrySet()) {
                    long mb = ChildProcess.residentKb(p.getValue()).orElse(-1) / 1024;
                    total += mb;
                    each.add(p.getKey() + " " + mb + " MB");
                }
                starts.add(new Start(s.startMs(), total));
                out.printf("run %d: start-to-ready %d ms (format included), idle RSS %d MB%s%n", i + 1, s.startMs(), total,
                        each.size() > 1 ? " (" + String.join(", ", each) + ")" : "");
                out.flush();
            }
        }
        out.printf("median: start-to-ready %d ms, idle RSS %d MB%s (%d runs)%n", Samples.of(starts, Start::startMs).roundedMedian(),
                Samples.of(starts, Start::rssMb).roundedMedian(), what, runs);
    }
}
