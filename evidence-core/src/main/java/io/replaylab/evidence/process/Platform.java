package io.replaylab.evidence.process;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the machine offers a run beyond the JDK: {@code /proc} (a freeze is confirmed there),
 * {@code setsid} (a subject gets a process group of its own), POSIX signals through {@code kill}
 * (SIGSTOP, SIGCONT, a group's SIGTERM) and {@code /bin/sh} (the watchdog). Linux has all four,
 * macOS no {@code /proc} and no {@code setsid}, Windows none. What needs a missing one is NOT_RUN
 * "not available on …", never an obscure failure; the rest runs on the JDK's own process control
 * ({@link ProcessHandle}, {@link Process#destroy()}).
 *
 * <pre>{@code
 * Platform.host();                    // what this machine has
 * Platform.jdkOnly("Windows 11");     // a machine with none of the four, simulated here (for tests)
 * }</pre>
 *
 * @param os        the operating system as the evidence names it
 * @param simulated whether this is a simulation of another machine on this one
 */
public record Platform(String os, boolean procfs, boolean setsid, boolean signals, boolean posixShell, boolean simulated) {
    private static final String SETSID = "/usr/bin/setsid";

    /** This machine, as it is. */
    public static Platform host() {
        return new Platform(hostOs(), Files.isReadable(Path.of("/proc/self/stat")), Files.isExecutable(Path.of(SETSID)),
                onPath("kill"), Files.isExecutable(Path.of("/bin/sh")), false);
    }

    /** A machine that offers nothing beyond the JDK (Windows, or worse), simulated on this one: no {@code /proc}, {@code setsid}, signals or shell. */
    public static Platform jdkOnly(String os) {
        return new Platform(os, false, false, false, false, true);
    }

    /** Whether a process can be frozen (SIGSTOP) and the freeze confirmed ({@code /proc}). */
    public boolean canFreeze() {
        return procfs && signals;
    }

    /** What is missing, in words ({@code "no /proc, no setsid"}), empty when nothing is. */
    public String missing() {
        return java.util.stream.Stream.of(procfs ? null : "no /proc", setsid ? null : "no setsid", signals ? null : "no POSIX signals",
                posixShell ? null : "no /bin/sh").filter(java.util.Objects::nonNull).collect(java.util.stream.Collectors.joining(", "));
    }

    /** The OS and what it lacks, for the evidence. */
    public String describe() {
        String m = missing();
        return os + (simulated ? " (simulated on " + hostOs() + ")" : "") + (m.isEmpty() ? "" : ": " + m);
    }

    private static String hostOs() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch");
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String d : path.split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }
}
