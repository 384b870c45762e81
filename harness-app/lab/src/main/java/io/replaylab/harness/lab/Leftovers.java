package io.replaylab.harness.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.replaylab.evidence.Resource;
import io.replaylab.evidence.RunJournal;
import io.replaylab.kafka.ClientProperties;
import io.replaylab.kafka.Bootstraps;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.NamespaceDeletion;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.oracle.TargetSpec;

/**
 * What runs left behind: the runs under a work dir whose cleanup never completed (killed before
 * or during it, or a step failed), and the removal of ONE such run's own things, after its
 * protocol is saved: its namespace's topics and groups (by prefix, on the broker its journal
 * names), its PostgreSQL schema, its local broker's data. Nothing of a run that is still alive,
 * of another cluster, or of a remote broker or database unless allowed.
 *
 * <pre>{@code
 * for (Leftovers.Run r : Leftovers.find(workDir)) {
 *     if (r.dead()) Leftovers.remove(r, Leftovers.Access.local());
 * }
 * }</pre>
 */
public final class Leftovers {
    /** What a run writes to its journal as it creates it; what {@link #remove} deletes. */
    static final String KAFKA_NAMESPACE = "kafka-namespace";
    static final String POSTGRES_SCHEMA = "postgres-schema";
    static final String LOCAL_BROKER_DATA = "local-broker-data";
    static final String CLIENT_PROPERTIES = "client-properties";
    /** The directory a run writes its client properties to: a temp dir of this prefix, the file's name below. */
    static final String CLIENT_PROPERTIES_DIR = "replay-lab-client-";
    static final String CLIENT_PROPERTIES_FILE = "client.properties";

    private Leftovers() {
    }

    /** A run whose cleanup never completed, and what it may have left. */
    public record Run(RunJournal journal, RunJournal.State state, List<String> left) {
        public Run {
            left = List.copyOf(left);
        }

        public String runId() {
            return journal.runId();
        }

        /** Its process is gone: its things may be removed. */
        public boolean dead() {
            return state == RunJournal.State.DIED || state == RunJournal.State.DIED_IN_CLEANUP || state == RunJournal.State.CLEANUP_FAILED;
        }

        /** Why it is listed, in words. */
        public String status() {
            return switch (state) {
                case RUNNING -> "running (pid " + journal.pid().orElse(-1L) + "): not touched";
                case DIED -> "died before its protocol was saved";
                case DIED_IN_CLEANUP -> "died during its cleanup (its protocol is saved)";
                case CLEANUP_FAILED -> "its cleanup failed: " + String.join("; ", journal.failedSteps());
                case CLEANED -> "cleaned up";
                case OWNER_UNKNOWN -> "its journal names no owner process";
            };
        }
    }

    /** One step of a cleanup and how it ended; {@link #toString()} says it as the console and the tests show it. */
    public record Step(String what, Result result) {
        /** How a step ended. */
        public enum Result {
            /** It removed what it names. */
            DONE,
            /** Nothing of it was replay-lab's to remove (left as it is), or nothing was left. */
            LEFT_AS_IT_IS,
            /** It could not: {@code what} says why; the run stays a leftover. */
            FAILED
        }

        public Step {
            java.util.Objects.requireNonNull(what, "what");
            java.util.Objects.requireNonNull(result, "result");
        }

        public boolean failed() {
            return result == Result.FAILED;
        }

        @Override
        public String toString() {
            return result == Result.FAILED ? "FAILED: " + what : what;
        }
    }

    /**
     * What the removal may reach: remote brokers and databases only when allowed; the database's
     * login where it needs one (a null user: the one the run journaled).
     */
    public record Access(boolean allowRemote, String targetUser, String targetPassword, ClientProperties client) {
        /** The setting a refusal to clean up a remote run's leftovers names. */
        public static final io.replaylab.evidence.Setting ALLOW_REMOTE = io.replaylab.evidence.Setting.of("Leftovers.Access", "allowRemote");

        public Access {
            java.util.Objects.requireNonNull(client, "client"); // never journaled: a broker behind SASL needs them again at cleanup
        }

        public static Access local() {
            return new Access(false, null, null, ClientProperties.none());
        }
    }

    /** What {@link #find} saw: the runs to look at, and how many journals it could not judge (written before replay-lab recorded a run's owner). */
    public record Found(List<Run> runs, int ownerUnknown) {
        public Found {
            runs = List.copyOf(runs);
        }
    }

    /** The runs directly under {@code workDir} whose cleanup never completed, oldest first; live ones too (never touched). */
    public static Found find(Path workDir) {
        if (!Files.isDirectory(workDir)) {
            throw new IllegalArgumentException("the work dir " + workDir + " is not a directory");
        }
        List<Path> dirs;
        try (Stream<Path> s = Files.list(workDir)) {
            dirs = s.filter(Files::isDirectory).filter(RunJournal::isRunDir).sorted(Comparator.comparing(Path::getFileName)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the work dir " + workDir, e);
        }
        List<Run> runs = new ArrayList<>();
        int unknown = 0;
        for (Path d : dirs) {
            RunJournal j = RunJournal.read(d);
            RunJournal.State state = j.state();
            if (state == RunJournal.State.OWNER_UNKNOWN) {
                unknown++;
            } else if (state != RunJournal.State.CLEANED) {
                runs.add(new Run(j, state, left(j)));
            }
        }
        return new Found(runs, unknown);
    }

    /** The run {@code runId} under {@code workDir}, whatever its state. */
    public static Run of(Path workDir, String runId) {
        Path dir = workDir.resolve(runId);
        if (runId.contains("/") || !RunJournal.isRunDir(dir)) {
            throw new IllegalArgumentException("no run '" + runId + "' under " + workDir + " (no journal at " + dir.resolve("journal.jsonl") + ")");
        }
        RunJournal j = RunJournal.read(dir);
        return new Run(j, j.state(), left(j));
    }

    private static List<String> left(RunJournal j) {
        List<String> out = new ArrayList<>();
        for (Resource r : j.resources()) {
            out.add(describe(r));
        }
        if (out.isEmpty()) {
            out.add("nothing outside its directory (it died before it created anything)");
        }
        return out;
    }

    private static String describe(Resource r) {
        return switch (r.kind()) {
            case KAFKA_NAMESPACE -> "local".equals(r.at("broker"))
                    ? "nothing on a broker: its broker was its own local one (namespace " + r.name() + ")"
                    : "topics and groups " + r.name() + ".* on " + r.at("bootstrap") + " (cluster " + r.at("cluster") + ")";
            case POSTGRES_SCHEMA -> "schema " + r.name() + " in " + r.at("url") + (r.at("user") != null ? " as " + r.at("user") : "");
            case LOCAL_BROKER_DATA -> "its local broker's data in " + r.name() + "/data";
            case CLIENT_PROPERTIES -> "its client properties (their secrets) in " + r.name();
            default -> r.kind() + " " + r.name() + " (not replay-lab's to remove)";
        };
    }

    /**
     * Removes the run's own things and journals each step, after saving what is left of its
     * protocol. Every refusal is checked before anything is removed.
     *
     * @return what was done, one step each
     * @throws CleanupRefusedException when the run is alive, its broker is another cluster now, or a
     *     broker or database is remote and not allowed
     */
    public static List<Step> remove(Run run, Access access) {
        RunJournal j = run.journal();
        RunJournal.State state = j.state();
        if (state == RunJournal.State.RUNNING) {
            throw new CleanupRefusedException("run " + j.runId() + " is still running (pid " + j.pid().orElse(-1L) + "): stop it first");
        }
        if (state == RunJournal.State.OWNER_UNKNOWN) {
            throw new CleanupRefusedException("run " + j.runId() + "'s journal names no owner process, so it cannot be told dead");
        }
        List<Runnable> steps = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<Step> done = new ArrayList<>();
        List<AutoCloseable> open = new ArrayList<>();
        try {
            for (Resource r : j.resources()) {
                switch (r.kind()) {
                    case KAFKA_NAMESPACE -> {
                        if ("local".equals(r.at("broker"))) {
                            done.add(new Step("namespace " + r.name() + ": nothing left on a broker, its broker was its own local one", Step.Result.LEFT_AS_IT_IS));
                            continue;
                        }
                        String bootstrap = r.at("bootstrap");
                        List<String> remote = Bootstraps.nonLoopbackHosts(bootstrap);
                        if (!remote.isEmpty() && !access.allowRemote()) {
                            throw new CleanupRefusedException("run " + j.runId() + "'s broker " + bootstrap + " is remote (" + String.join(", ", remote)
                                    + "); allow remote brokers (" + Access.ALLOW_REMOTE + ") to clean up there", Access.ALLOW_REMOTE);
                        }
                        KafkaOps ops = KafkaOps.connect(bootstrap, Duration.ofSeconds(15), access.client());
                        open.add(ops);
                        String cluster = ops.clusterId();
                        if (r.at("cluster") != null && !r.at("cluster").equals(cluster)) {
                            throw new CleanupRefusedException("the broker at " + bootstrap + " is cluster " + cluster + ", not the run's cluster "
                                    + r.at("cluster") + ": nothing deleted");
                        }
                        LabNamespace ns = LabNamespace.of(r.name());
                        names.add("delete the dead run's topics and groups (" + ns.prefix() + ".*) on " + bootstrap);
                        steps.add(() -> {
                            NamespaceDeletion deleted = ops.deleteNamespace(ns);
                            done.add(new Step("namespace " + ns.prefix() + " on " + bootstrap + ": " + (deleted.nothingWasThere() ? "nothing was left"
                                    : String.join(", ", deleted.lines())), deleted.nothingWasThere() ? Step.Result.LEFT_AS_IT_IS : Step.Result.DONE));
                            if (!deleted.groupsNotDeleted().isEmpty()) {
                                throw new IllegalStateException(deleted.groupsNotDeleted().entrySet().stream().map(k -> "group " + k.getKey()
                                        + " NOT deleted: " + k.getValue()).collect(java.util.stream.Collectors.joining("; "))
                                        + " (try again once the dead members' sessions have timed out)");
                            }
                        });
                    }
                    case POSTGRES_SCHEMA -> {
                        String url = r.at("url");
                        String hosts = TargetDatabase.hosts(url);
                        List<String> remote = Bootstraps.nonLoopbackHosts(hosts);
                        if (!remote.isEmpty() && !access.allowRemote()) {
                            throw new CleanupRefusedException("run " + j.runId() + "'s database " + url + " is remote (" + String.join(", ", remote)
                                    + "); allow remote databases (" + Access.ALLOW_REMOTE + ") to clean up there", Access.ALLOW_REMOTE);
                        }
                        String schema = r.name();
                        if (!schema.matches("[a-z0-9_]+")) {
                            throw new CleanupRefusedException("run " + j.runId() + " journals schema '" + schema + "', which no run creates: nothing dropped");
                        }
                        names.add("drop the dead run's schema " + schema + " in " + url);
                        steps.add(() -> {
                            try (Connection c = TargetDatabase.connect(TargetSpec.jdbc(url, "-").credentials(access.targetUser() != null ? access.targetUser() : r.at("user"), access.targetPassword()));
                                 Statement s = c.createStatement()) {
                                s.execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
                                done.add(new Step("schema " + schema + " in " + url + ": dropped (if it was there)", Step.Result.DONE));
                            } catch (SQLException e) {
                                throw new IllegalStateException("cannot drop schema " + schema + " in " + url + ": " + e.getMessage(), e);
                            }
                        });
                    }
                    case LOCAL_BROKER_DATA -> {
                        Path broker = j.runDir().resolve(r.name()).normalize();
                        if (!broker.startsWith(j.runDir().normalize())) {
                            throw new CleanupRefusedException("run " + j.runId() + " journals broker data at " + r.name() + ", outside its run directory: nothing deleted");
                        }
                        names.add("delete the dead run's local broker data in " + broker + " (its log stays)");
                        steps.add(() -> {
                            boolean was = Files.exists(broker.resolve("data"));
                            LocalKafka.deleteDataOf(broker);
                            done.add(new Step("local broker data in " + broker + ": " + (was ? "deleted" : "nothing was left"),
                                    was ? Step.Result.DONE : Step.Result.LEFT_AS_IT_IS));
                        });
                    }
                    case CLIENT_PROPERTIES -> {
                        Path file = Path.of(r.name()).normalize();
                        if (!file.getFileName().toString().equals(CLIENT_PROPERTIES_FILE) || file.getParent() == null
                                || !file.getParent().getFileName().toString().startsWith(CLIENT_PROPERTIES_DIR)) {
                            throw new CleanupRefusedException("run " + j.runId() + " journals client properties at " + file + ", which no run writes: nothing deleted");
                        }
                        names.add("delete the dead run's client properties " + file);
                        steps.add(() -> {
                            try {
                                boolean was = Files.deleteIfExists(file);
                                Files.deleteIfExists(file.getParent());
                                done.add(new Step("client properties " + file + ": " + (was ? "deleted" : "nothing was left"),
                                        was ? Step.Result.DONE : Step.Result.LEFT_AS_IT_IS));
                            } catch (IOException e) {
                                throw new UncheckedIOException("cannot delete " + file + ": " + e.getMessage(), e);
                            }
                        });
                    }
                    default -> done.add(new Step(r.kind() + " " + r.name() + ": not replay-lab's to remove, left as it is", Step.Result.LEFT_AS_IT_IS));
                }
            }
            j.cleanUp(protocol -> {
                for (int i = 0; i < steps.size(); i++) {
                    try {
                        protocol.cleanup(names.get(i), steps.get(i));
                    } catch (RuntimeException e) {
                        done.add(new Step(names.get(i) + ": " + e.getMessage(), Step.Result.FAILED));
                    }
                }
            });
            return done;
        } finally {
            for (AutoCloseable c : open) {
                try {
                    c.close();
                } catch (Exception e) {
                    // closing an Admin client after the work is done; nothing to report
                }
            }
        }
    }

    /** The journal's resource for a namespace on a broker. */
    static Resource namespace(LabNamespace ns, String bootstrap, String cluster, boolean localBroker) {
        return new Resource(KAFKA_NAMESPACE, ns.prefix(), cluster == null
                ? Map.of("bootstrap", bootstrap, "broker", localBroker ? "local" : "external")
                : Map.of("bootstrap", bootstrap, "cluster", cluster, "broker", localBroker ? "local" : "external"));
    }

    /** The journal's resource for the run's PostgreSQL schema (the URL carries no password). */
    static Resource schema(String schema, TargetSpec base) {
        return new Resource(POSTGRES_SCHEMA, schema, base.user() == null ? Map.of("url", base.displayUrl())
                : Map.of("url", base.displayUrl(), "user", base.user()));
    }

    /** The journal's resource for the file of the run's client properties (its path only: never what it holds). */
    static Resource clientProperties(Path file) {
        return new Resource(CLIENT_PROPERTIES, file.toAbsolutePath().toString(), Map.of());
    }

    /** The journal's resource for the data of the run's own broker, in {@code brokerDir} of the run directory. */
    static Resource brokerData(String brokerDir) {
        return new Resource(LOCAL_BROKER_DATA, brokerDir, Map.of());
    }
}
