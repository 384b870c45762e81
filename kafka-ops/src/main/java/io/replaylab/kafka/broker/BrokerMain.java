package io.replaylab.kafka.broker;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Entry point of the broker's own JVM, started by {@link LocalKafka}. Formats the storage when
 * asked (in the same JVM, which saves a second JVM start) and then runs {@code kafka.Kafka}.
 * It exits when its standard input closes, so a parent that dies never leaves a broker behind.
 *
 * <p>Kafka classes are reached by reflection so that {@code kafka-ops} does not depend on the
 * broker jars at compile time; they only need to be on the child's classpath.
 */
final class BrokerMain {
    private BrokerMain() {
    }

    /** Arguments: {@code server.properties [--format CLUSTER_ID [--standalone]]} ({@code --standalone}: a controller that is its own quorum). */
    public static void main(String[] args) throws Exception {
        if (args.length != 1 && !(args.length >= 3 && args[1].equals("--format") && (args.length == 3 || args.length == 4 && args[3].equals("--standalone")))) {
            System.err.println("usage: BrokerMain server.properties [--format CLUSTER_ID [--standalone]]");
            System.exit(2);
        }
        watchParent();
        String config = args[0];
        if (args.length >= 3) {
            List<String> format = new ArrayList<>(List.of("format", "--ignore-formatted", "--config", config, "--cluster-id", args[2]));
            if (args.length == 4) {
                format.add("--standalone");
            }
            Method execute = Class.forName("kafka.tools.StorageTool")
                    .getMethod("execute", String[].class, PrintStream.class);
            int rc = (int) execute.invoke(null, (Object) format.toArray(String[]::new), System.out);
            if (rc != 0) {
                System.err.println("storage format failed with exit code " + rc);
                System.exit(3);
            }
        }
        try {
            Class.forName("kafka.Kafka").getMethod("main", String[].class).invoke(null, (Object) new String[] {config});
        } catch (InvocationTargetException e) {
            e.getCause().printStackTrace();
            System.exit(1);
        }
    }

    private static void watchParent() {
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the parent never writes; EOF means it is gone
                }
            } catch (IOException ignored) {
                // a broken pipe means the same
            }
            System.exit(0);
        }, "replay-lab-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
    }
}
