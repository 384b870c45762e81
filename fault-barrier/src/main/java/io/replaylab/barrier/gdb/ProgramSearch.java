package io.replaylab.barrier.gdb;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.replaylab.barrier.NativePoint;
import io.replaylab.evidence.process.Poll;

/** What an attach needs before gdb starts: gdb itself, the machine's argument registers, the process that loaded the point, its helper. */
final class ProgramSearch {
    private ProgramSearch() {
    }

    /** The process that loaded the point's function, and the file that defines it. */
    record Found(long pid, Path file) {
    }

    /** The gdb to run: {@code program} as a path, or found on PATH. */
    static String gdb(String program) {
        if (program.contains("/")) {
            if (Files.isExecutable(Path.of(program))) {
                return program;
            }
            throw new NativeAttachException(NativeAttachException.Reason.NO_DEBUGGER, "no gdb at " + program + "; " + NativeDebugger.INSTALL);
        }
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return Path.of(dir, program).toString();
            }
        }
        throw new NativeAttachException(NativeAttachException.Reason.NO_DEBUGGER, "no " + program + " on PATH (" + path + "); " + NativeDebugger.INSTALL);
    }

    /** The registers that carry a call's first two arguments on this machine. */
    static String[] registers() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return switch (arch) {
            case "amd64", "x86_64" -> new String[] {"$rdi", "$rsi"};
            case "aarch64", "arm64" -> new String[] {"$x0", "$x1"};
            default -> throw new NativeAttachException(NativeAttachException.Reason.DEBUGGER_FAILED,
                    "the native barrier knows the argument registers of x86-64 and aarch64 only; this machine is " + arch);
        };
    }

    /** The first of {@code root} and its descendants that maps a file defining {@code function}, waiting up to {@code timeout}. */
    static Found search(long root, String function, Duration timeout) throws InterruptedException {
        Map<Long, Integer> searched = new LinkedHashMap<>();
        Optional<Found> found = Poll.every(Duration.ofMillis(100)).upTo(timeout).until(() -> {
            searched.clear();
            for (long p : ProcessTree.withDescendants(root)) {
                Set<Path> files = ProcessTree.mappedFiles(p);
                searched.put(p, files.size());
                for (Path f : files) {
                    if (ElfSymbols.defines(f, function)) {
                        return Optional.of(new Found(p, f));
                    }
                }
            }
            if (!Files.exists(Path.of("/proc/" + root))) {
                throw new NativeAttachException(NativeAttachException.Reason.GONE, "pid " + root + " ended before a debugger could attach");
            }
            return Optional.<Found>empty();
        }, Optional::isPresent);
        if (found.isPresent()) {
            return found.get();
        }
        StringBuilder what = new StringBuilder();
        searched.forEach((p, n) -> what.append(what.length() == 0 ? "" : "; ").append("pid ").append(p).append(" (")
                .append(ProcessTree.command(p)).append("): ").append(n).append(" mapped files"));
        throw new NativeAttachException(NativeAttachException.Reason.NOT_FOUND, "no " + function + " in pid " + root
                + " or its descendants within " + timeout + ": searched the dynamic and static symbols of every file each has mapped ("
                + what + "); is the library that defines it loaded at all, or linked in stripped?");
    }

    /** The point's gdb helper as a file gdb can source, or null when it has none. */
    static Path helperScript(String helper) {
        if (helper == null) {
            return null;
        }
        try (InputStream in = NativePoint.class.getResourceAsStream(helper)) {
            if (in == null) {
                throw new IllegalStateException(helper + " is missing from the class path (the native point's gdb helper)");
            }
            Path tmp = Files.createTempFile("replaylab-native-point", ".py");
            Files.write(tmp, in.readAllBytes());
            return tmp;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
