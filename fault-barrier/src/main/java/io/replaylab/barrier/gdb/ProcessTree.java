package io.replaylab.barrier.gdb;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** A process and its descendants as {@code /proc} shows them (Linux): what each has mapped, and its threads' states. */
final class ProcessTree {
    private static final Path PROC = Path.of("/proc");

    private ProcessTree() {
    }

    /** {@code root} first, then its descendants, breadth first. */
    static List<Long> withDescendants(long root) {
        Map<Long, List<Long>> children = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path p : ds) {
                long ppid = parent(p);
                if (ppid > 0) {
                    children.computeIfAbsent(ppid, k -> new ArrayList<>()).add(Long.parseLong(p.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            return List.of(root);
        }
        List<Long> out = new ArrayList<>();
        Deque<Long> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            long pid = todo.removeFirst();
            out.add(pid);
            todo.addAll(children.getOrDefault(pid, List.of()));
        }
        return out;
    }

    private static long parent(Path proc) {
        String stat = read(proc.resolve("stat"));
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return -1;
        }
        String[] f = stat.substring(close + 2).split(" ");
        return f.length > 1 ? Long.parseLong(f[1]) : -1;
    }

    /** The files a process has mapped (its libraries), and its executable first. */
    static Set<Path> mappedFiles(long pid) {
        Set<Path> out = new LinkedHashSet<>();
        try {
            out.add(Files.readSymbolicLink(PROC.resolve(pid + "/exe")));
        } catch (IOException | UnsupportedOperationException e) {
            // gone, or not ours to read
        }
        for (String line : read(PROC.resolve(pid + "/maps")).split("\n")) {
            int slash = line.indexOf('/');
            if (slash > 0 && !line.endsWith(" (deleted)")) {
                out.add(Path.of(line.substring(slash)));
            }
        }
        return out;
    }

    /** The command line, for a person. */
    static String command(long pid) {
        return read(PROC.resolve(pid + "/cmdline")).replace('\0', ' ').trim();
    }

    /** Each thread (task id) and its state letter from {@code /proc/PID/task/TID/stat} ({@code t}: stopped by a tracer). */
    static Map<Long, Character> threadStates(long pid) {
        Map<Long, Character> out = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(PROC.resolve(pid + "/task"))) {
            for (Path t : ds) {
                String stat = read(t.resolve("stat"));
                int close = stat.lastIndexOf(')');
                if (close > 0 && close + 2 < stat.length()) {
                    out.put(Long.parseLong(t.getFileName().toString()), stat.charAt(close + 2));
                }
            }
        } catch (IOException e) {
            // gone
        }
        return out;
    }

    /** Whether the process exists and has not ended (a zombie has). */
    static boolean alive(long pid) {
        String stat = read(PROC.resolve(pid + "/stat"));
        int close = stat.lastIndexOf(')');
        return close > 0 && close + 2 < stat.length() && "ZX".indexOf(stat.charAt(close + 2)) < 0;
    }

    /** The tracer's pid from {@code /proc/PID/status} (0: none). */
    static long tracer(long pid) {
        for (String line : read(PROC.resolve(pid + "/status")).split("\n")) {
            if (line.startsWith("TracerPid:")) {
                return Long.parseLong(line.substring("TracerPid:".length()).trim());
            }
        }
        return 0;
    }

    static String name(long pid, long tid) {
        return read(PROC.resolve(pid + "/task/" + tid + "/comm")).trim();
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return "";
        }
    }
}
