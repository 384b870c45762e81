package io.replaylab.harness.bench;

import io.replaylab.kafka.broker.LocalKafka;
import picocli.CommandLine.Option;

/**
 * The broker a bench runs against: the one {@code --bootstrap-server} names, left running, or an
 * embedded one started for the bench and stopped when it closes. The bench deletes its own topics.
 */
record BenchBroker(String bootstrapServers, LocalKafka embedded) implements AutoCloseable {
    /** {@code --bootstrap-server}, as the benches that can run against a broker of their user's take it. */
    static final class Choice {
        @Option(names = "--bootstrap-server", description = "Use this broker (its topics are deleted afterwards) instead of an embedded one.")
        String bootstrap;

        /** The broker named, or an embedded one started now when none is. */
        BenchBroker open() {
            if (bootstrap != null) {
                return new BenchBroker(bootstrap, null);
            }
            LocalKafka kafka = LocalKafka.create().start();
            return new BenchBroker(kafka.bootstrapServers(), kafka);
        }
    }

    /** A broker of the user's, whose other topics the bench must leave alone. */
    boolean given() {
        return embedded == null;
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
