package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.replaylab.evidence.process.ChildProcess;

/** Starts the reference subject (or another main class) as a child JVM from the test classpath, output to files. */
final class Launch {
    private Launch() {
    }

    static Process start(Path logDir, String name, String mainClass, String... args) {
        return start(logDir, name, Map.of(), mainClass, args);
    }

    static Process start(Path logDir, String name, Map<String, String> env, String mainClass, String... args) {
        boolean share = String.join(" ", args).contains("--group-type share");
        List<String> jvm = mainClass.equals(ReferenceSubject.class.getName()) ? ReferenceSubject.jvm(share ? "share-consume" : args[0])
                : ChildProcess.shortLived("-Xmx256m");
        return ChildProcess.of(ChildProcess.java(jvm, mainClass, args)).name(name).env(env)
                .output(logDir.resolve(name + ".out"), logDir.resolve(name + ".err")).start().process();
    }

    /** The reference subject's program: {@code produce|consume|transform …}. */
    static Process subject(Path logDir, String name, String... args) {
        return start(logDir, name, ReferenceSubject.class.getName(), args);
    }

    /** Waits until {@code ready} (at most 60 s, else {@code what} fails), failing at once if one of {@code running} has exited. */
    static void until(String what, java.util.concurrent.Callable<Boolean> ready, Process... running) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!ready.call()) {
            org.assertj.core.api.Assertions.assertThat(System.nanoTime()).as(what + " within 60 s").isLessThan(deadline);
            org.assertj.core.api.Assertions.assertThat(java.util.Arrays.stream(running).allMatch(Process::isAlive)).as("every consumer still runs").isTrue();
            Thread.sleep(50);
        }
    }

    /** {@code name}'s process, started with its output in {@code logDir}, exits 0 within 120 s; else its stderr says why. */
    static void exitsZero(Path logDir, String name, Process p) throws Exception {
        org.assertj.core.api.Assertions.assertThat(await(p, 120)).as(java.nio.file.Files.readString(logDir.resolve(name + ".err"))).isZero();
    }

    /** The reference producer's {@code count} payments (and {@code malformed} bad records) into the namespace's topic; its manifest. */
    static com.fasterxml.jackson.databind.JsonNode produce(Path logDir, io.replaylab.kafka.broker.LocalKafka kafka, io.replaylab.kafka.LabNamespace ns,
            int count, int partitions, int malformed) throws Exception {
        Path manifest = logDir.resolve("manifest.json");
        exitsZero(logDir, "producer", subject(logDir, "producer", "produce", "--bootstrap-server", kafka.bootstrapServers(), "--topic", ns.topic(),
                "--partitions", "" + partitions, "--count", "" + count, "--seed", "7", "--namespace", ns.prefix(),
                "--malformed", "" + malformed, "--manifest", manifest.toString()));
        org.assertj.core.api.Assertions.assertThat(java.nio.file.Files.readString(logDir.resolve("producer.out")))
                .startsWith("produced " + (count + malformed) + " records");
        return io.replaylab.evidence.Json.mapper().readTree(manifest.toFile());
    }

    static int await(Process p, int seconds) throws InterruptedException {
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("process did not finish within " + seconds + " s");
        }
        return p.exitValue();
    }
}
