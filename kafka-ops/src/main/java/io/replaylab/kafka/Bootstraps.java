package io.replaylab.kafka;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/** Facts about a {@code bootstrap.servers} string. */
public final class Bootstraps {
    private Bootstraps() {
    }

    /** Hosts of a bootstrap list that are not loopback (an unresolvable host counts as not loopback). */
    public static List<String> nonLoopbackHosts(String bootstrap) {
        List<String> out = new ArrayList<>();
        for (String hp : bootstrap.split(",")) {
            String s = hp.trim();
            String host = s.startsWith("[") ? s.substring(1, s.indexOf(']')) : s.contains(":") ? s.substring(0, s.lastIndexOf(':')) : s;
            try {
                boolean loop = true;
                for (InetAddress a : InetAddress.getAllByName(host)) {
                    loop &= a.isLoopbackAddress();
                }
                if (!loop) {
                    out.add(host);
                }
            } catch (UnknownHostException e) {
                out.add(host);
            }
        }
        return out;
    }
}
