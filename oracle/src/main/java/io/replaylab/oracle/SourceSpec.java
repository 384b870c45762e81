package io.replaylab.oracle;

import java.time.Duration;
import java.util.Objects;

import io.replaylab.kafka.ClientProperties;

/**
 * Where the truth comes from: a topic read with an independent consumer (no group, no commits,
 * read_committed) up to a cut.
 *
 * @param cut null means "take the cut when reading"
 * @param timeout how long the broker may stay silent (metadata, end offsets, fetches) before the
 *        read fails with {@link OracleReadException}
 * @param client how the reader reaches a cluster that needs SASL or TLS
 */
public record SourceSpec(String bootstrap, String topic, Cut cut, RecordParser parser, Duration timeout, ClientProperties client) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    public SourceSpec {
        Objects.requireNonNull(bootstrap, "bootstrap");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(parser, "parser");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(client, "client");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the source timeout must be positive, was " + timeout);
        }
    }

    public static SourceSpec topic(String bootstrap, String topic) {
        return new SourceSpec(bootstrap, topic, null, RecordParsers.paymentJson(), DEFAULT_TIMEOUT, ClientProperties.none());
    }

    public SourceSpec upTo(Cut c) {
        return new SourceSpec(bootstrap, topic, c, parser, timeout, client);
    }

    public SourceSpec parser(RecordParser p) {
        return new SourceSpec(bootstrap, topic, cut, p, timeout, client);
    }

    public SourceSpec timeout(Duration t) {
        return new SourceSpec(bootstrap, topic, cut, parser, t, client);
    }

    public SourceSpec client(ClientProperties c) {
        return new SourceSpec(bootstrap, topic, cut, parser, timeout, c);
    }
}
