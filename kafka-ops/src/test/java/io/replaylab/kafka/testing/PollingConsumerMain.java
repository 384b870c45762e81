package io.replaylab.kafka.testing;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * A consumer process for tests that need an ACTIVE group: subscribes and polls until its stdin
 * closes. Prints {@code assigned} once it owns partitions. Args: bootstrap topic group.
 */
public final class PollingConsumerMain {
    private PollingConsumerMain() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        String group = args[2];
        String protocol = args.length > 3 ? args[3] : "classic";
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // EOF ends the process
                }
            } catch (IOException ignored) {
                // same
            }
            Runtime.getRuntime().halt(0);
        });
        watcher.setDaemon(true);
        watcher.start();
        try (KafkaConsumer<String, String> c = Clients.consumer(bootstrap, group, protocol)) {
            c.subscribe(List.of(topic));
            boolean told = false;
            while (true) {
                c.poll(Duration.ofMillis(200));
                if (!told && !c.assignment().isEmpty()) {
                    System.out.println("assigned " + c.assignment());
                    System.out.flush();
                    told = true;
                }
            }
        }
    }

    /** Starts it as a child process and waits until it owns partitions. */
    public static Process start(String bootstrap, String topic, String group) throws IOException {
        return start(bootstrap, topic, group, "classic");
    }

    /** As {@link #start(String, String, String)}, with {@code group.protocol} classic or consumer. */
    public static Process start(String bootstrap, String topic, String group, String protocol) throws IOException {
        // stdout stays a pipe: its first line is the assignment
        Process p = new ProcessBuilder(io.replaylab.evidence.process.ChildProcess.java(io.replaylab.evidence.process.ChildProcess.shortLived("-Xmx128m"), PollingConsumerMain.class.getName(),
                bootstrap, topic, group, protocol))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()));
        java.util.concurrent.CompletableFuture<String> first = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return r.readLine();
            } catch (IOException e) {
                return null;
            }
        });
        String line;
        try {
            line = first.get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            line = "no assignment within 30 s (" + e + ")";
        }
        if (line == null || !line.startsWith("assigned")) {
            p.destroyForcibly();
            throw new IllegalStateException("polling consumer did not get an assignment: " + line);
        }
        return p;
    }
}
