package io.replaylab.kafka.testing;

import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The one broker fixture for every module's tests: a real {@link LocalKafka} started once per test
 * JVM (on first use) and stopped when the JVM's tests are done. Tests receive it, and a unique
 * {@link LabNamespace}, as parameters:
 *
 * <pre>{@code
 * @ExtendWith(LocalKafkaExtension.class)
 * class MyTest {
 *     @Test void works(LocalKafka kafka, LabNamespace ns) { ... kafka.bootstrapServers() ... ns.topic() ... }
 * }
 * }</pre>
 */
public final class LocalKafkaExtension implements ParameterResolver {
    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(LocalKafkaExtension.class);

    /** The shared broker, started on first use. */
    public static LocalKafka sharedBroker(ExtensionContext context) {
        return context.getRoot().getStore(STORE)
                .getOrComputeIfAbsent("broker", k -> new SharedBroker(LocalKafka.create().start()), SharedBroker.class)
                .kafka();
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        Class<?> type = p.getParameter().getType();
        return type == LocalKafka.class || type == LabNamespace.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        if (p.getParameter().getType() == LocalKafka.class) {
            return sharedBroker(e);
        }
        String base = e.getTestMethod().map(m -> m.getName()).orElse(e.getRequiredTestClass().getSimpleName());
        return LabNamespace.random("t-" + base);
    }

    /** Closed by JUnit when the root context closes, i.e. once the JVM's tests are done. */
    record SharedBroker(LocalKafka kafka) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            kafka.close();
        }
    }
}
