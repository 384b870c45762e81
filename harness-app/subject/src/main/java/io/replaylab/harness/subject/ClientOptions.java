package io.replaylab.harness.subject;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.replaylab.harness.lab.Subject;
import io.replaylab.kafka.ClientProperties;
import picocli.CommandLine.Option;

/**
 * {@code --command-config FILE} and {@code --command-property K=V}: the Kafka client properties (SASL, TLS) of every client a
 * command makes itself, as Kafka's own tools take them. A mixin of the {@code replay-lab} commands that reach a broker.
 */
public final class ClientOptions {
    @Option(names = "--command-config", paramLabel = "FILE", description = "Kafka client properties (security.protocol, sasl.*, ssl.*) for "
            + "every Kafka client of the lab's own, as Kafka's tools take them; secret values are never recorded")
    Path commandConfig;

    @Option(names = "--command-property", paramLabel = "K=V", description = "one Kafka client property, over --command-config's (repeatable)")
    List<String> commandProperties = new ArrayList<>();

    /** The file's properties, then each {@code --command-property}; none when neither is given. */
    public ClientProperties properties() {
        return over(commandConfig == null ? ClientProperties.none() : ClientProperties.load(commandConfig));
    }

    /**
     * The file a lab names in {@link Subject#COMMAND_CONFIG_ENV} (a subject the lab starts), unless {@code --command-config}
     * names another; then each {@code --command-property} over it.
     */
    ClientProperties propertiesOrEnvironment() {
        String file = System.getenv(Subject.COMMAND_CONFIG_ENV);
        return commandConfig == null && file != null && !file.isBlank() ? over(ClientProperties.load(Path.of(file))) : properties();
    }

    private ClientProperties over(ClientProperties base) {
        ClientProperties p = base;
        for (String a : commandProperties) {
            p = p.withAssignment(a);
        }
        return p;
    }
}
