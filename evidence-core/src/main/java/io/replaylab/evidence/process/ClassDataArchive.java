package io.replaylab.evidence.process;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts child JVMs of this JVM's Java from a class-data archive of their own jars (AppCDS): a
 * subject or broker JVM then spends about half the CPU to get going (2.3 against 1.3 CPU-s for the
 * reference producer, measured), which on a 2-core machine that starts hundreds of them is most of
 * their cost. Per java, main class and jars (their sizes and times: a rebuilt jar is a new
 * archive):
 * <ol>
 * <li>the first launch records the classes it loads ({@code -XX:DumpLoadedClassList}, into a file
 *     of its own, written as it loads);</li>
 * <li>the tenth launch (a dump costs what about eight launches save), once that list has been
 *     still for a few seconds, dumps the archive from it in the background ({@link ClassDataDump}, a JVM of its own, niced) ({@code -Xshare:dump} over the jars only: a JVM refuses to archive from a class
 *     path with directories), under a lock file, and renames it into place when it is whole;</li>
 * <li>every launch after that maps it, with the archive's jars first on its class path and the rest
 *     (a test's class directories) after, as the JVM requires.</li>
 * </ol>
 * A dump that fails is remembered and never tried again; a JVM that cannot use an archive runs
 * without it (and says nothing: CDS logging is off, a subject's stdout stays its own).
 * Off by default: {@code REPLAYLAB_CDS=on} (or {@code -Dreplaylab.cds=on}) turns it on. Not on by
 * default because the background dump outlives the JVM that started it, by design (a short run may
 * end first): a run killed while a dump is under way would leave that process behind.
 */
final class ClassDataArchive {
    private static final Logger log = LoggerFactory.getLogger(ClassDataArchive.class);
    private static final Duration LIST_STILL = Duration.ofSeconds(5);
    private static final String NICE = "/usr/bin/nice";
    static final Duration STALE = Duration.ofMinutes(12);
    /**
     * A dump costs what about 8 launches save (8 CPU-s for the reference subject's 5,800 classes, 15
     * for the broker's 8,100, against about 1 CPU-s saved per subject launch): a JVM launched fewer
     * times than this is never archived, so a clean CI machine pays only for those it starts often.
     */
    private static final int WORTH_A_DUMP = 10;
    private static final String[] OWN = {"-XX:SharedArchiveFile", "-Xshare", "-XX:DumpLoadedClassList", "-XX:ArchiveClassesAtExit", "-XX:SharedClassListFile"};

    private ClassDataArchive() {
    }

    /**
     * {@code REPLAYLAB_CDS=on|off} (or {@code -Dreplaylab.cds=on|off}, which wins); neither: off. A
     * fresh-clone suite run with archives on had a debugger's on-return breakpoint never reached
     * (DebuggerBarrierTest), which is why a debugged JVM never maps one ({@link #without}).
     */
    static boolean enabled() {
        return enabled(System.getProperty("replaylab.cds"), System.getenv("REPLAYLAB_CDS"));
    }

    /** The decision on what the property and the environment say (a blank property counts as unset). */
    static boolean enabled(String property, String environment) {
        boolean fromProperty = property != null && !property.isBlank();
        String said = fromProperty ? property : environment;
        if (said == null || said.isBlank()) {
            return false;
        }
        if (!said.equalsIgnoreCase("on") && !said.equalsIgnoreCase("off")) {
            throw new IllegalArgumentException((fromProperty ? "-Dreplaylab.cds" : "REPLAYLAB_CDS") + " must be on or off, was '" + said
                    + "' (class-data archives for child JVMs)");
        }
        return said.equalsIgnoreCase("on");
    }

    static Path dir() {
        String d = System.getProperty("replaylab.cds.dir", System.getenv("REPLAYLAB_CDS_DIR"));
        return d != null && !d.isBlank() ? Path.of(d) : Path.of(System.getProperty("user.home"), ".cache", "replay-lab", "cds");
    }

    /** {@code command} with the archive's options where it runs this JVM's java on a class path with jars; otherwise as it is. */
    static List<String> apply(List<String> command) {
        if (!enabled()) {
            return command;
        }
        int java = command.indexOf(ChildProcess.javaExecutable());
        int cp = java < 0 ? -1 : command.subList(java, command.size()).indexOf("-cp") + java;
        if (java < 0 || cp <= java || cp + 2 >= command.size() || command.get(cp + 2).startsWith("-")) {
            return command;
        }
        List<String> options = command.subList(java + 1, cp);
        if (options.stream().anyMatch(o -> Stream.of(OWN).anyMatch(o::startsWith))) {
            return command; // the caller chose its own
        }
        List<String> jars = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        for (String e : command.get(cp + 1).split(File.pathSeparator)) {
            (e.endsWith(".jar") && Files.isRegularFile(Path.of(e)) ? jars : rest).add(e);
        }
        if (jars.isEmpty()) {
            return command;
        }
        String gc = options.stream().filter(o -> o.startsWith("-XX:+Use") && o.endsWith("GC")).findFirst().orElse(null);
        List<String> extra;
        List<String> classPath = command.get(cp + 1).equals(String.join(File.pathSeparator, jars)) ? null : new ArrayList<>(jars);
        try {
            Path dir = dir();
            Files.createDirectories(dir);
            String key = key(command.get(cp + 2), gc, jars);
            Path archive = dir.resolve(key + ".jsa");
            if (Files.isRegularFile(archive)) {
                extra = List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds*=off", "-Xlog:class+path*=off");
                if (classPath != null) {
                    classPath.addAll(rest);
                }
            } else if (Files.exists(dir.resolve(key + ".failed"))) {
                return command;
            } else {
                long launches = launches(dir, key);
                Path list = settledList(dir, key);
                if (list != null && launches >= WORTH_A_DUMP) {
                    dumpInBackground(dir, key, list, gc, jars);
                    return command;
                }
                if (list != null || hasRecentPart(dir, key)) {
                    return command; // recorded already (or being recorded by another launch)
                }
                extra = List.of("-XX:DumpLoadedClassList=" + dir.resolve(key + "." + UUID.randomUUID() + ".part"));
                classPath = null;
            }
        } catch (IOException | RuntimeException e) {
            log.debug("no class-data archive for {}: {}", command.get(cp + 2), e.toString());
            return command;
        }
        List<String> out = new ArrayList<>(command.subList(0, java + 1));
        out.addAll(extra);
        out.addAll(options);
        out.add("-cp");
        out.add(classPath == null ? command.get(cp + 1) : String.join(File.pathSeparator, classPath));
        out.addAll(command.subList(cp + 2, command.size()));
        return out;
    }

    /**
     * {@code command} without the options {@link #apply} adds: for a JVM that a debugger will attach
     * to. A fresh-clone suite with archives on once had a debugger's on-return breakpoint never
     * reached; whether the archive played a part is not known, so a debugged JVM never maps one.
     */
    static List<String> without(List<String> command) {
        return command.stream().filter(o -> Stream.of(OWN).noneMatch(o::startsWith) && !o.equals("-Xlog:cds*=off")
                && !o.equals("-Xlog:class+path*=off")).toList();
    }

    private static String key(String mainClass, String gc, List<String> jars) throws IOException {
        StringBuilder sb = new StringBuilder(System.getProperty("java.home")).append('|').append(Runtime.version()).append('|').append(mainClass).append('|').append(gc);
        for (String j : jars) {
            Path p = Path.of(j);
            sb.append('|').append(j).append(':').append(Files.size(p)).append(':').append(Files.getLastModifiedTime(p).toMillis());
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(StandardCharsets.UTF_8));
            return mainClass.substring(mainClass.lastIndexOf('.') + 1) + "-" + HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Counts this launch (one byte per launch in {@code KEY.launches}) and returns how many there were, this one included. */
    private static long launches(Path dir, String key) throws IOException {
        Path count = dir.resolve(key + ".launches");
        Files.write(count, new byte[] {'.'}, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        return Files.size(count);
    }

    /** A recorded class list no longer written to (the launch that wrote it is past its start), or null. */
    private static Path settledList(Path dir, String key) throws IOException {
        Path list = dir.resolve(key + ".classlist");
        if (Files.isRegularFile(list)) {
            return list;
        }
        for (Path part : parts(dir, key)) {
            if (Files.size(part) > 0 && age(part).compareTo(LIST_STILL) > 0) {
                // copied up to its last whole line: the launch that writes it may still be loading a class now and then
                byte[] b = Files.readAllBytes(part);
                int end = b.length;
                while (end > 0 && b[end - 1] != '\n') {
                    end--;
                }
                if (end == 0) {
                    continue;
                }
                Path tmp = dir.resolve(key + "." + UUID.randomUUID() + ".classlist.tmp");
                Files.write(tmp, java.util.Arrays.copyOf(b, end));
                try {
                    Files.move(tmp, list, StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException e) {
                    Files.deleteIfExists(tmp); // another launch was first
                }
                return Files.isRegularFile(list) ? list : null;
            }
        }
        return null;
    }

    private static boolean hasRecentPart(Path dir, String key) throws IOException {
        for (Path part : parts(dir, key)) {
            if (age(part).compareTo(STALE) < 0) {
                return true;
            }
        }
        return false;
    }

    private static List<Path> parts(Path dir, String key) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(key + ".") && p.getFileName().toString().endsWith(".part")).toList();
        }
    }

    private static Duration age(Path p) throws IOException {
        FileTime t = Files.getLastModifiedTime(p);
        return Duration.between(t.toInstant(), Instant.now());
    }

    /** One dump per key at a time, across JVMs (a lock file); a stale lock of a dump that died is taken over. */
    private static void dumpInBackground(Path dir, String key, Path list, String gc, List<String> jars) throws IOException {
        Path lock = dir.resolve(key + ".lock");
        try {
            Files.createFile(lock);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            if (age(lock).compareTo(STALE) < 0) {
                return;
            }
            Files.deleteIfExists(lock);
            return; // the next launch takes it
        }
        // a JVM of its own does the dump and the rename: the launching JVM may end first (a short test, a CLI run)
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(Path.of(NICE))) {
            cmd.addAll(List.of(NICE, "-n", "10")); // seconds of CPU in the background, below the programs running
        }
        String self;
        try {
            self = Path.of(ClassDataDump.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException | RuntimeException e) {
            Files.deleteIfExists(lock);
            return;
        }
        cmd.addAll(List.of(ChildProcess.javaExecutable(), "-Xmx64m", "-XX:TieredStopAtLevel=1", "-cp", self, ClassDataDump.class.getName(),
                dir.toString(), key, list.toString(), gc == null ? "-" : gc, String.join(File.pathSeparator, jars)));
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve(key + ".dump.log").toFile()).start();
    }
}
