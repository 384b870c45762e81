package io.replaylab.evidence.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What a process's owner reads of it in /proc (Linux), and the loopback ports handed out to programs: no launching, no signals. */
final class ProcFs {
    private ProcFs() {
    }

    /** A process's resident set size in KiB, from {@code /proc/PID/status}; empty when it is gone or there is no {@code /proc}. */
    static java.util.OptionalLong residentKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("VmRSS:")) {
                    return java.util.OptionalLong.of(Long.parseLong(line.replaceAll("[^0-9]", "")));
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // gone
        }
        return java.util.OptionalLong.empty();
    }

    /** The socket inodes of the TCP sockets whose local port is {@code localPort}, from /proc/net/tcp[6]. */
    static java.util.Set<String> socketInodes(int localPort) {
        java.util.Set<String> out = new java.util.HashSet<>();
        String hex = String.format(":%04X", localPort);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(table), StandardCharsets.US_ASCII)) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && f[1].endsWith(hex) && !"0".equals(f[9])) {
                        out.add("socket:[" + f[9] + "]");
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                // no such table (no IPv6, no /proc)
            }
        }
        return out;
    }

    static boolean holdsAny(long pid, java.util.Set<String> inodes) {
        try (java.util.stream.Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.anyMatch(fd -> {
                try {
                    return inodes.contains(Files.readSymbolicLink(fd).toString());
                } catch (IOException e) {
                    return false; // closed meanwhile
                }
            });
        } catch (IOException | UncheckedIOException e) {
            return false; // gone, or not ours to read
        }
    }

    /** Its state letter in /proc/PID/stat (R, S, T, Z, ...), or '-' when it is gone or unreadable. */
    static char state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
            // the state follows the command name, which is in parentheses and may itself hold ") "
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (IOException | RuntimeException e) {
            return '-';
        }
    }

    /** A loopback port that was free a moment ago (a program told to listen on it will most likely get it). */
    static int freeLoopbackPort() {
        // the kernel may hand the same ephemeral port to two binds in a row once the first socket is closed: a port given
        // out here is not given out again by this JVM (a cluster's controller and broker once got the same one)
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("no free loopback port", e);
            }
            synchronized (GIVEN_PORTS) {
                if (GIVEN_PORTS.add(port)) {
                    if (GIVEN_PORTS.size() > 4096) {
                        GIVEN_PORTS.remove(GIVEN_PORTS.iterator().next());
                    }
                    return port;
                }
            }
        }
        throw new UncheckedIOException(new IOException("no loopback port that this JVM has not handed out already, after 100 tries"));
    }

    /** Ports {@link #freeLoopbackPort()} handed out, oldest first. */
    private static final java.util.Set<Integer> GIVEN_PORTS = new java.util.LinkedHashSet<>();
}
