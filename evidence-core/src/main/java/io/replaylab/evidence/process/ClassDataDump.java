package io.replaylab.evidence.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The background half of {@link ClassDataArchive}, in a JVM of its own so that it finishes when the
 * JVM that launched it does not: dumps {@code KEY.jsa} from the class list over the jars, renames
 * it into place once whole (a launch never maps a half-written archive), remembers a failure in
 * {@code KEY.failed}, removes the lock and the recorded lists, and keeps the newest {@value #KEEP}
 * archives. Arguments: {@code DIR KEY LIST GC|- JARS}. Its output is {@code KEY.dump.log}. It logs nothing and uses
 * no other class of replay-lab: its class path is evidence-core alone.
 */
final class ClassDataDump {
    /** Archives are tens of MB each and every rebuilt jar makes a new one. */
    static final int KEEP = 12;

    private ClassDataDump() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String key = args[1];
        Path lock = dir.resolve(key + ".lock");
        Path tmp = dir.resolve(key + "." + UUID.randomUUID() + ".jsa.tmp");
        try {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:dump", "-XX:SharedClassListFile=" + args[2],
                    "-XX:SharedArchiveFile=" + tmp));
            if (!args[3].equals("-")) {
                cmd.add(args[3]);
            }
            cmd.addAll(List.of("-cp", args[4]));
            Process p = new ProcessBuilder(cmd).inheritIO().start();
            boolean ended = p.waitFor(10, TimeUnit.MINUTES);
            if (ended && p.exitValue() == 0 && Files.isRegularFile(tmp)) {
                Files.move(tmp, dir.resolve(key + ".jsa"), StandardCopyOption.ATOMIC_MOVE);
                try (Stream<Path> s = Files.list(dir)) {
                    for (Path part : s.filter(x -> x.getFileName().toString().startsWith(key + ".") && x.getFileName().toString().endsWith(".part")).toList()) {
                        Files.deleteIfExists(part);
                    }
                }
                prune(dir);
                System.out.println("dumped " + key + ".jsa");
            } else {
                p.destroyForcibly();
                Files.writeString(dir.resolve(key + ".failed"), "the dump " + (ended ? "exited with " + p.exitValue() : "did not end in 10 minutes")
                        + "; its output is in " + key + ".dump.log\n");
                System.out.println("the dump failed; " + key + ".failed keeps later launches from trying again");
            }
        } finally {
            Files.deleteIfExists(tmp);
            Files.deleteIfExists(lock);
        }
    }

    private static void prune(Path dir) throws IOException {
        List<Path> archives;
        try (Stream<Path> s = Files.list(dir)) {
            archives = new ArrayList<>(s.filter(p -> p.getFileName().toString().endsWith(".jsa")).toList());
        }
        archives.sort((a, b) -> Long.compare(b.toFile().lastModified(), a.toFile().lastModified()));
        for (Path old : archives.subList(Math.min(KEEP, archives.size()), archives.size())) {
            String key = old.getFileName().toString().replaceFirst("\\.jsa$", "");
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : s.filter(p -> p.getFileName().toString().startsWith(key + ".")).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

}
