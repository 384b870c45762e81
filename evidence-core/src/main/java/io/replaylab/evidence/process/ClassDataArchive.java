package io.replaylab.evidence.process;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts child JVMs of this JVM's Java from a class-data archive of their own jars (dynamic AppCDS):
 * a subject JVM then spends about a third less CPU (1.9 against 3.0 CPU-s for the reference
 * consumer draining 200 records, measured) and joins its group in half the time, which on a 2-core
 * machine running experiments side by side is most of what they wait for. Per java, main class (and its
 * program, where a main class with subcommands names it: {@link ChildProcess#program}) and jars (their sizes and
 * times: a rebuilt jar is a new archive):
 * <ol>
 * <li>the first launch, alone (a claim file), writes the archive of the classes it loaded when it
 *     exits ({@code -XX:ArchiveClassesAtExit}, about 2 CPU-s once), into a file of its own;</li>
 * <li>a later launch finds that file whole (the JVM writes its header last: a dump cut short by
 *     SIGKILL has none) and renames it into place;</li>
 * <li>every launch after that maps it.</li>
 * </ol>
 * The dump runs inside the program's own process, at its exit: nothing outlives a run that is
 * killed (its watchdog kills the program with its dump; the half-written file is removed later).
 * A JVM archives classes only from jars (and a dump with a directory on the class path fails the
 * program, exit code 1): a directory on the class path (a build's {@code target/classes}, as in every
 * test run) is given to the child as a jar of the same content ({@link PackedClassDirectory}); a class
 * path with anything else (a wildcard, a missing entry) runs as given. A debugged JVM maps one too (and never dumps one,
 * {@link #forDebugger}): a debugger sets
 * breakpoints in archived classes as in any other (the JDK's own classes come from its base archive
 * in every JVM), and the rebalance experiment's A, held at {@code KafkaConsumer#commitSync} under a
 * debugger, starts about 1 CPU-s cheaper. A JVM that cannot use an archive runs without it and says nothing: CDS
 * logging is off, a subject's stdout stays its own.
 * On by default; {@code REPLAYLAB_CDS=off} (or {@code -Dreplaylab.cds=off}) turns it off.
 */
final class ClassDataArchive {
    private static final Logger log = LoggerFactory.getLogger(ClassDataArchive.class);
    /** A claim or a half-written dump this old belongs to a launch that is gone (or a program running for long; its dump still lands). */
    static final Duration STALE = Duration.ofMinutes(12);
    /**
     * Archives are tens of MB each and every rebuilt jar makes a new one; the least recently used go first (a test run
     * launches a dozen main classes and programs, each on its module's class path).
     */
    static final int KEEP = 16;
    /** The first four bytes of a whole dynamic archive (0xf00baba8, little-endian); a dump cut short has zeros there. */
    private static final byte[] MAGIC = {(byte) 0xa8, (byte) 0xab, 0x0b, (byte) 0xf0};
    private static final long SPACE_FOR_A_DUMP = 256L << 20;
    private static final String[] OWN = {"-XX:SharedArchiveFile", "-Xshare", "-XX:DumpLoadedClassList", "-XX:ArchiveClassesAtExit", "-XX:SharedClassListFile"};
    private static final List<String> QUIET = List.of("-Xlog:cds*=off", "-Xlog:class+path*=off");
    private static final String DUMP = "-XX:ArchiveClassesAtExit=";
    /**
     * Names which program of a main class with subcommands runs (ChildProcess.program): each gets an archive of its own, since
     * one archive holds only the classes of the launch that dumped it (a consumer mapping the producer's misses about 1000).
     */
    static final String PROGRAM = "-Dreplaylab.cds.program=";

    private ClassDataArchive() {
    }

    /** {@code REPLAYLAB_CDS=on|off} (or {@code -Dreplaylab.cds=on|off}, which wins); neither: on. */
    static boolean enabled() {
        return enabled(System.getProperty("replaylab.cds"), System.getenv("REPLAYLAB_CDS"));
    }

    /** The decision on what the property and the environment say (a blank property counts as unset). */
    static boolean enabled(String property, String environment) {
        boolean fromProperty = property != null && !property.isBlank();
        String said = fromProperty ? property : environment;
        if (said == null || said.isBlank()) {
            return true;
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

    /**
     * {@code command} with the archive's options where it runs this JVM's java on a class path of jars and directories (each
     * directory replaced by its jar); otherwise as it is.
     */
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
        List<String> entries = List.of(command.get(cp + 1).split(File.pathSeparator));
        if (!entries.stream().allMatch(e -> e.endsWith(".jar") && Files.isRegularFile(Path.of(e)) || Files.isDirectory(Path.of(e)))) {
            return command; // a wildcard, a missing entry: the JVM's own business
        }
        String gc = options.stream().filter(o -> o.startsWith("-XX:+Use") && o.endsWith("GC")).findFirst().orElse(null);
        List<String> extra = new ArrayList<>();
        List<String> jars = new ArrayList<>();
        try {
            Path dir = dir();
            Files.createDirectories(dir);
            for (String e : entries) {
                // a JVM archives no class from a directory (and a dump with one on the class path fails the program): its jar
                jars.add(Files.isDirectory(Path.of(e)) ? PackedClassDirectory.jarOf(Path.of(e), dir.resolve("classes")).toString() : e);
            }
            String program = options.stream().filter(o -> o.startsWith(PROGRAM)).map(o -> o.substring(PROGRAM.length())).findFirst().orElse(null);
            String key = key(command.get(cp + 2), program, gc, jars);
            settle(dir);
            Path archive = dir.resolve(key + ".jsa");
            if (Files.isRegularFile(archive)) {
                Files.setLastModifiedTime(archive, FileTime.from(Instant.now())); // last used: what pruning keeps
                extra.add("-XX:SharedArchiveFile=" + archive);
            } else if (baseArchive() && Files.getFileStore(dir).getUsableSpace() > SPACE_FOR_A_DUMP && claim(dir, key)) {
                extra.add(DUMP + dir.resolve(key + "." + UUID.randomUUID() + ".jsa.part"));
            } else {
                return command;
            }
            extra.addAll(QUIET);
        } catch (IOException | RuntimeException e) {
            log.debug("no class-data archive for {}: {}", command.get(cp + 2), e.toString());
            return command;
        }
        List<String> out = new ArrayList<>(command.subList(0, java + 1));
        out.addAll(extra);
        out.addAll(command.subList(java + 1, cp + 1));
        out.add(String.join(File.pathSeparator, jars));
        out.addAll(command.subList(cp + 2, command.size()));
        return out;
    }

    /**
     * {@code command} for a JVM that a debugger will attach to: it maps an archive as any other, but
     * never dumps one (a JVM with a JVMTI agent refuses to start with {@code -XX:ArchiveClassesAtExit}:
     * "CDS dumping does not support native JVMTI agent"); a dump it was given is given back.
     */
    static List<String> forDebugger(List<String> command) {
        List<String> out = new ArrayList<>();
        for (String o : command) {
            if (o.startsWith(DUMP)) {
                unclaim(Path.of(o.substring(DUMP.length())));
            } else {
                out.add(o);
            }
        }
        return out;
    }

    /** Whether this Java maps its own base archive (a dynamic archive sits on top of it; without one a dump fails). */
    private static boolean baseArchive() {
        Path server = Path.of(System.getProperty("java.home"), "lib", "server");
        return Files.isRegularFile(server.resolve("classes.jsa"));
    }

    /** One dump per key at a time, across JVMs; a claim left by a launch that is gone is taken over once stale. */
    private static boolean claim(Path dir, String key) throws IOException {
        Path claim = dir.resolve(key + ".dumping");
        try {
            Files.createFile(claim);
            return true;
        } catch (FileAlreadyExistsException e) {
            if (age(claim).compareTo(STALE) < 0) {
                return false;
            }
            Files.deleteIfExists(claim);
            return false; // the next launch takes it
        }
    }

    private static void unclaim(Path part) {
        String name = part.getFileName().toString();
        try {
            Files.deleteIfExists(part.resolveSibling(name.substring(0, name.indexOf('.')) + ".dumping"));
        } catch (IOException | RuntimeException e) {
            log.debug("could not give back the claim of {}: {}", part, e.toString());
        }
    }

    /**
     * Puts every whole dump in the directory in place, the launcher's dumps of the CLI's own JVM
     * included (its claim ends), and removes half-written ones that are stale; then keeps the newest
     * {@value #KEEP} archives.
     */
    private static void settle(Path dir) throws IOException {
        List<Path> parts;
        try (Stream<Path> s = Files.list(dir)) {
            parts = s.filter(p -> p.getFileName().toString().endsWith(".jsa.part")).toList();
        }
        boolean placed = false;
        for (Path part : parts) {
            String name = part.getFileName().toString();
            if (whole(part)) {
                try {
                    Files.move(part, dir.resolve(name.substring(0, name.indexOf('.')) + ".jsa"), StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                    placed = true;
                } catch (java.nio.file.NoSuchFileException e) {
                    // another launch put it in place a moment ago
                }
                unclaim(part);
            } else if (age(part).compareTo(STALE) > 0) {
                Files.deleteIfExists(part); // its JVM was killed while dumping
            }
        }
        if (placed) {
            prune(dir);
        }
    }

    private static boolean whole(Path part) {
        try (InputStream in = Files.newInputStream(part)) {
            byte[] head = in.readNBytes(MAGIC.length);
            return java.util.Arrays.equals(head, MAGIC);
        } catch (IOException e) {
            return false; // renamed by another launch a moment ago
        }
    }

    private static void prune(Path dir) throws IOException {
        List<Path> archives;
        try (Stream<Path> s = Files.list(dir)) {
            archives = new ArrayList<>(s.filter(p -> p.getFileName().toString().endsWith(".jsa")).toList());
        }
        archives.sort(Comparator.comparingLong((Path p) -> p.toFile().lastModified()).reversed()); // last used first
        for (Path old : archives.subList(Math.min(KEEP, archives.size()), archives.size())) {
            Files.deleteIfExists(old);
        }
    }

    private static String key(String mainClass, String program, String gc, List<String> jars) throws IOException {
        StringBuilder sb = new StringBuilder(System.getProperty("java.home")).append('|').append(Runtime.version()).append('|').append(mainClass).append('|')
                .append(program).append('|').append(gc);
        for (String j : jars) {
            Path p = Path.of(j);
            sb.append('|').append(j).append(':').append(Files.size(p)).append(':').append(Files.getLastModifiedTime(p).toMillis());
        }
        return mainClass.substring(mainClass.lastIndexOf('.') + 1) + (program == null ? "" : "-" + program.replaceAll("[^A-Za-z0-9_-]", "_")) + "-"
                + digest(sb.toString());
    }

    /** 16 hex digits of the SHA-256 of {@code s}: the name part of an archive or a packed class directory. */
    static String digest(String s) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Duration age(Path p) throws IOException {
        return Duration.between(Files.getLastModifiedTime(p).toInstant(), Instant.now());
    }
}
