package io.replaylab.harness.lab;

import org.apache.kafka.common.utils.internals.AppInfoParser;

/** Versions of replay-lab and what it runs on; recorded in evidence and printed by a CLI's version. */
public final class Versions {
    private Versions() {
    }

    public static String replayLab() {
        String v = Versions.class.getPackage().getImplementationVersion();
        return v != null ? v : "dev";
    }

    public static String kafkaClients() {
        return AppInfoParser.getVersion();
    }

    /** The broker jars this build launches (kafka_2.13), read from their manifest; "absent" if not on the classpath. */
    public static String bundledBroker() {
        try {
            Package p = Class.forName("kafka.Kafka", false, Versions.class.getClassLoader()).getPackage();
            String v = p == null ? null : p.getImplementationVersion();
            return v != null ? v : kafkaClients();
        } catch (ClassNotFoundException e) {
            return "absent";
        }
    }

    public static String sqlite() {
        try {
            return "sqlite-jdbc " + org.sqlite.SQLiteJDBCLoader.getVersion();
        } catch (RuntimeException | LinkageError e) {
            return "sqlite-jdbc (unknown)";
        }
    }

    public static String java() {
        return System.getProperty("java.vendor") + " " + Runtime.version();
    }
}
