package io.replaylab.evidence.process;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * A directory of classes on a child JVM's class path (a build's {@code target/classes}, an IDE's output) as a jar of
 * the same content, so that the child can start from a class-data archive too: a JVM archives classes only from jars.
 * One jar per content (names, sizes and times of its files), written once and never touched again: the archive's key
 * and the JVM's own check of it include the jar's size and time, so every launch on the same classes, in any JVM,
 * names the same file. A changed directory is a new jar; the oldest beyond {@value #KEEP} are removed once stale.
 */
final class PackedClassDirectory {
    static final int KEEP = 32;

    private PackedClassDirectory() {
    }

    /** The jar in {@code into} holding what {@code directory} holds now; written by the first launch that needs it. */
    static Path jarOf(Path directory, Path into) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(directory)) {
            files = s.filter(p -> !p.equals(directory)).sorted().toList();
        }
        Path jar = into.resolve(name(directory) + "-" + contentKey(directory, files) + ".jar");
        if (Files.isRegularFile(jar)) {
            return jar;
        }
        Files.createDirectories(into);
        Path part = into.resolve(jar.getFileName() + "." + UUID.randomUUID() + ".part");
        try {
            write(directory, files, part);
            try {
                Files.createLink(jar, part); // never replaces: a jar another JVM put in place first keeps its time
            } catch (FileAlreadyExistsException e) {
                // the same content, packed by another launch a moment ago
            } catch (UnsupportedOperationException e) {
                Files.move(part, jar);
            }
        } catch (FileAlreadyExistsException e) {
            // moved into place by another launch a moment ago
        } finally {
            Files.deleteIfExists(part);
        }
        prune(into);
        return jar;
    }

    private static String name(Path directory) {
        Path parent = directory.getParent();
        String n = (parent != null && parent.getFileName() != null && parent.getFileName().toString().equals("target") && parent.getParent() != null
                && parent.getParent().getFileName() != null ? parent.getParent().getFileName() + "-" : "") + directory.getFileName();
        return n.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static String contentKey(Path directory, List<Path> files) throws IOException {
        StringBuilder sb = new StringBuilder(directory.toAbsolutePath().toString());
        for (Path f : files) {
            sb.append('|').append(directory.relativize(f));
            if (Files.isRegularFile(f)) {
                sb.append(':').append(Files.size(f)).append(':').append(Files.getLastModifiedTime(f).toMillis());
            }
        }
        return ClassDataArchive.digest(sb.toString());
    }

    private static void write(Path directory, List<Path> files, Path part) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Created-By", "replay-lab (packed from " + directory + ")");
        try (OutputStream out = Files.newOutputStream(part); JarOutputStream jar = new JarOutputStream(out, manifest)) {
            for (Path f : files) {
                String entry = directory.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/");
                if (entry.equals("META-INF/MANIFEST.MF")) {
                    continue; // the jar has its own
                }
                boolean dir = Files.isDirectory(f);
                JarEntry e = new JarEntry(dir ? entry + "/" : entry);
                e.setLastModifiedTime(Files.getLastModifiedTime(f));
                jar.putNextEntry(e);
                if (!dir) {
                    Files.copy(f, jar);
                }
                jar.closeEntry();
            }
        }
    }

    private static void prune(Path into) throws IOException {
        List<Path> jars;
        try (Stream<Path> s = Files.list(into)) {
            jars = new ArrayList<>(s.filter(p -> p.getFileName().toString().endsWith(".jar")).toList());
        }
        jars.sort(Comparator.comparingLong((Path p) -> p.toFile().lastModified()).reversed());
        long staleBefore = System.currentTimeMillis() - ClassDataArchive.STALE.toMillis();
        for (Path old : jars.subList(Math.min(KEEP, jars.size()), jars.size())) {
            if (old.toFile().lastModified() < staleBefore) {
                Files.deleteIfExists(old); // a JVM still running on it keeps its open file
            }
        }
    }
}
