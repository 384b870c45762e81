package io.replaylab.barrier.wire;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The remote TCP ports a process has open connections to, read from /proc (Linux): which sockets a client really opened. */
final class Sockets {
    private Sockets() {
    }

    static Set<Integer> remotePorts(long pid) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                try {
                    String link = Files.readSymbolicLink(fd).toString();
                    if (link.startsWith("socket:[")) {
                        inodes.add(link.substring(8, link.length() - 1));
                    }
                } catch (IOException gone) {
                    // the fd closed while we looked
                }
            }
        }
        Set<Integer> ports = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path t = Path.of(table);
            if (!Files.exists(t)) {
                continue;
            }
            List<String> lines = Files.readAllLines(t); // once: the table changes between two reads
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] f = line.trim().split("\\s+");
                String remote = f[2];
                int port = Integer.parseInt(remote.substring(remote.indexOf(':') + 1), 16);
                if (inodes.contains(f[9]) && port != 0) {
                    ports.add(port);
                }
            }
        }
        return ports;
    }
}
