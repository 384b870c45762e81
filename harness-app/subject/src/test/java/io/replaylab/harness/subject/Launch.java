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

    static int await(Process p, int seconds) throws InterruptedException {
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("process did not finish within " + seconds + " s");
        }
        return p.exitValue();
    }
}
