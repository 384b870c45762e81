package io.replaylab.harness;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import io.replaylab.evidence.Status;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.OffsetSnapshot;
import io.replaylab.oracle.Comparison;
import io.replaylab.oracle.Finding;
import io.replaylab.oracle.Oracle;
import io.replaylab.harness.subject.ClientOptions;
import io.replaylab.oracle.SourceSpec;
import io.replaylab.oracle.Target;
import io.replaylab.oracle.TargetSpec;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code replay-lab oracle}: source topic vs. target DB, and with {@code --group} the committed frontier. */
@Command(name = "oracle", mixinStandardHelpOptions = true,
        description = "Compare the source topic with the target's effects (exact identities and amounts); --group adds the frontier check.")
final class OracleCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bootstrap-server", required = true, description = "host:port of the Kafka broker that holds the source topic")
    String bootstrap;

    @Option(names = "--topic", required = true, description = "the source topic: every record in it must have exactly one effect in the target")
    String topic;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Where where;

    /** The target: exactly one of the two (picocli says so when neither or both are given). */
    static final class Where {
        @Option(names = "--db", required = true, description = "SQLite target file")
        Path db;

        @Option(names = "--jdbc-url", required = true, description = "any JDBC URL for the target, e.g. jdbc:postgresql://localhost:5432/lab")
        String jdbcUrl;
    }

    @Mixin
    TargetLogin login;

    @Mixin
    ClientOptions client;

    @Option(names = "--namespace", description = "inbox namespace bound to {namespace} in the query")
    String namespace;

    @Option(names = "--target-query", description = "returns message_id, amount per applied effect; {namespace} is bound as a parameter")
    String targetQuery;

    @Option(names = "--group", description = "also check that no committed offset of this group passes a missing effect (R11)")
    String group;

    @Option(names = "--timeout", defaultValue = "PT30S", description = "how long the broker may stay silent before the read fails (exit 5)")
    Duration timeout;

    @Option(names = "--json", description = "print one JSON object")
    boolean json;

    @picocli.CommandLine.Mixin
    SourceOptions source;

    @Override
    public Integer call() {
        io.replaylab.oracle.SourceMapping mapping = source.mapping();
        TargetSpec target = where.db != null ? TargetSpec.sqlite(where.db, namespace) : TargetSpec.jdbc(where.jdbcUrl, namespace);
        target = login.applyTo(target.query(targetQuery != null ? targetQuery : TargetSpec.REFERENCE_QUERY).amountScale(mapping.amountScale()));
        if (target.usesNamespace() && namespace == null) {
            throw new IllegalArgumentException("the target query uses {namespace} but no --namespace was given: " + target.query());
        }
        if (!target.usesNamespace() && namespace != null) {
            spec.commandLine().getErr().println("warning: --namespace " + namespace + " is not used: the target query has no {namespace}");
        }
        io.replaylab.kafka.ClientProperties kafkaClient = client.properties(); // the file read once
        OffsetSnapshot committed = null;
        if (group != null) {
            try (KafkaOps ops = KafkaOps.connect(bootstrap, KafkaOps.DEFAULT_TIMEOUT, kafkaClient)) {
                committed = ops.describe(group);
            }
        }
        Comparison c;
        try (Target t = Target.open(target)) {
            c = Oracle.of(SourceSpec.topic(bootstrap, topic).timeout(timeout).parser(mapping.parser()).client(kafkaClient), t).compare(committed);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("status", c.status().name());
            m.put("reason", c.reason());
            m.put("topic", topic);
            m.put("cut", c.cut().endOffsets());
            m.put("namespace", namespace);
            m.put("source", c.sourceRecords());
            m.put("effects", c.targetEffects());
            for (Finding f : c.findings()) {
                m.put(f.kind(), Map.of("count", f.count(), "examples", f.examples()));
            }
            OffsetsCommand.printJson(out, m);
        } else {
            out.printf("Oracle %s: %s%n", c.status(), c.reason());
            out.printf("source %s up to cut %s: %d records; target %s: %d effects%n", topic, c.cut().endOffsets(), c.sourceRecords(),
                    namespace == null ? "" : "namespace " + namespace, c.targetEffects());
            Table t = new Table("KIND", "COUNT", "EXAMPLES");
            c.findings().forEach(f -> t.row(f.kind(), f.count(), String.join("; ", f.examples())));
            t.print(out);
        }
        return c.status() == Status.PASS ? ReplayLab.OK : ReplayLab.FAIL;
    }
}
