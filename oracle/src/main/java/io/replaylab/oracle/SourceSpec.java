package io.replaylab.oracle;

import java.util.Objects;

/**
 * Where the truth comes from: a topic read with an independent consumer (no group, no commits,
 * read_committed) up to a cut.
 *
 * @param cut null means "take the cut when reading"
 */
public record SourceSpec(String bootstrap, String topic, Cut cut, RecordParser parser) {
    public SourceSpec {
        Objects.requireNonNull(bootstrap, "bootstrap");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(parser, "parser");
    }

    public static SourceSpec topic(String bootstrap, String topic) {
        return new SourceSpec(bootstrap, topic, null, RecordParsers.paymentJson());
    }

    public SourceSpec upTo(Cut c) {
        return new SourceSpec(bootstrap, topic, c, parser);
    }

    public SourceSpec parser(RecordParser p) {
        return new SourceSpec(bootstrap, topic, cut, p);
    }
}
