package io.replaylab.kafka.junit;

import java.util.List;
import java.util.Optional;

import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.broker.LocalKafkaConfig;
import io.replaylab.kafka.broker.LocalKafkaCluster;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What {@link LocalKafkaTest} does: the shared broker, a namespace and a KafkaOps per test, cleanup after a passed test. */
final class LocalKafkaExtension implements ParameterResolver, AfterEachCallback, TestExecutionExceptionHandler {
    private static final Logger log = LoggerFactory.getLogger(LocalKafkaExtension.class);
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(LocalKafkaExtension.class);

    /**
     * The shared broker: started on first use and kept for the JVM's life, not the root context's. Surefire runs each test class
     * of a fork as a JUnit run of its own, whose root context closes after the class: one broker start per class (21 classes in
     * harness-subject), about 10 CPU-s each on two busy cores. Closed, its dir deleted, when the JVM exits.
     */
    static LocalKafka sharedBroker() {
        return SharedBroker.get();
    }

    /**
     * The shared 3-broker cluster (a controller of its own), started on first use; closed when the root context closes
     * (four JVMs kept idle for a fork's life would cost more than the few classes that use it start).
     */
    static LocalKafkaCluster sharedCluster(ExtensionContext context) {
        return context.getRoot().getStore(STORE)
                .getOrComputeIfAbsent("cluster", k -> new SharedCluster(LocalKafkaCluster.create().start()), SharedCluster.class).cluster();
    }

    /** Where this JVM's tests have Kafka running already: the shared broker and/or cluster (none is started for asking). */
    private static List<String> running(ExtensionContext e) {
        List<String> out = new java.util.ArrayList<>();
        SharedCluster c = e.getRoot().getStore(STORE).get("cluster", SharedCluster.class);
        SharedBroker.ifStarted().ifPresent(b -> out.add(b.bootstrapServers()));
        if (c != null) {
            out.add(c.cluster().bootstrapServers());
        }
        return out;
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        Class<?> type = p.getParameter().getType();
        return type == LocalKafka.class || type == LocalKafkaCluster.class || type == LabNamespace.class || type == KafkaOps.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        Class<?> type = p.getParameter().getType();
        if (type == LocalKafka.class) {
            return sharedBroker();
        }
        if (type == LocalKafkaCluster.class) {
            return sharedCluster(e);
        }
        if (type == LabNamespace.class) {
            return namespace(e);
        }
        return e.getStore(STORE).getOrComputeIfAbsent("ops", k -> new TestOps(KafkaOps.connect(sharedBroker().bootstrapServers())),
                TestOps.class).ops();
    }

    /** One namespace per test, however many parameters ask for it. */
    private static LabNamespace namespace(ExtensionContext e) {
        String base = e.getTestMethod().map(m -> m.getName()).orElse(e.getRequiredTestClass().getSimpleName());
        return e.getStore(STORE).getOrComputeIfAbsent("namespace", k -> LabNamespace.random("t-" + base), LabNamespace.class);
    }

    @Override
    public void handleTestExecutionException(ExtensionContext e, Throwable t) throws Throwable {
        LabNamespace ns = e.getStore(STORE).get("namespace", LabNamespace.class);
        if (ns != null) {
            t.addSuppressed(new KeptNamespace("kept for inspection: the topics and groups of namespace " + ns.prefix() + " on "
                    + String.join(" and ", running(e)) + " (deleted only after a test that passed)"));
        }
        throw t;
    }

    @Override
    public void afterEach(ExtensionContext e) {
        LabNamespace ns = e.getStore(STORE).get("namespace", LabNamespace.class);
        if (ns == null || e.getExecutionException().isPresent()) {
            return;
        }
        for (String bootstrap : running(e)) {
            try (KafkaOps ops = KafkaOps.connect(bootstrap)) {
                List<String> deleted = ops.deleteNamespace(ns).lines();
                log.debug("deleted {} on {} after {}", deleted, bootstrap, e.getDisplayName());
            } catch (RuntimeException ex) {
                log.warn("could not delete namespace {} on {} after {}: {}", ns.prefix(), bootstrap, e.getDisplayName(), ex.toString());
            }
        }
    }

    /** The JVM's one shared broker; a broker a test stopped or killed is replaced by a new one at the next ask. */
    private static final class SharedBroker {
        private static LocalKafka kafka;

        private SharedBroker() {
        }

        static synchronized LocalKafka get() {
            if (kafka == null || !kafka.isRunning()) {
                if (kafka != null) {
                    kafka.close();
                }
                // a second listener with a login costs nothing: the tests of client properties need no broker of their own
                LocalKafka started = LocalKafka.create(LocalKafkaConfig.custom().saslPlainUser(LocalKafkaTest.SASL_USER, LocalKafkaTest.SASL_PASSWORD)
                        .build()).start();
                Runtime.getRuntime().addShutdownHook(new Thread(started::close, "replay-lab-shared-kafka-close"));
                kafka = started;
            }
            return kafka;
        }

        static synchronized Optional<LocalKafka> ifStarted() {
            return Optional.ofNullable(kafka).filter(LocalKafka::isRunning);
        }
    }

    /** Closed by JUnit when the root context closes. */
    record SharedCluster(LocalKafkaCluster cluster) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            cluster.close();
        }
    }

    /** Closed by JUnit after the test. */
    record TestOps(KafkaOps ops) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            ops.close();
        }
    }

    /** Added to a failed test's exception: where its Kafka state was left. */
    static final class KeptNamespace extends RuntimeException {
        KeptNamespace(String message) {
            super(message, null, false, false);
        }
    }
}
