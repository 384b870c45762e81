package io.replaylab.oracle;

import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;

/**
 * Maps a source record to its identity and amount. The oracle has its own parser (it never trusts
 * the consumer's code): {@link RecordParsers#paymentJson()} for the reference shape,
 * {@link RecordParsers#mapped(SourceMapping)} for any other; a lab with another payload may plug in
 * its own.
 */
@FunctionalInterface
public interface RecordParser {
    /**
     * @param key the record's key bytes, or null
     * @param value the record's value bytes, or null (a tombstone)
     * @param headers the record's headers
     * @return the parsed identity and amount, or a reason why the record is malformed (never throws)
     */
    Parsed parse(byte[] key, byte[] value, Headers headers);

    /** As {@link #parse(byte[], byte[], Headers)} for a record without headers. */
    default Parsed parse(byte[] key, byte[] value) {
        return parse(key, value, Headers.NONE);
    }

    /** A parser of key and value decoded as UTF-8 text (headers unused), e.g. a test's or another lab's own. */
    static RecordParser ofText(BiFunction<String, String, Parsed> parse) {
        return (key, value, headers) -> parse.apply(key == null ? null : new String(key, StandardCharsets.UTF_8),
                value == null ? null : new String(value, StandardCharsets.UTF_8));
    }

    /** A record's headers as the parser sees them: the last value of a name (Kafka's {@code lastHeader}). */
    @FunctionalInterface
    interface Headers {
        Headers NONE = name -> null;

        /** The value of the last header called {@code name}, or null if there is none (or its value is null). */
        byte[] lastValue(String name);
    }

    /** Either ({@code id}, {@code amount}) or a {@code malformedReason}. */
    record Parsed(String id, long amount, String malformedReason) {
        public static Parsed of(String id, long amount) {
            return new Parsed(id, amount, null);
        }

        public static Parsed malformed(String reason) {
            return new Parsed(null, 0, reason);
        }

        public boolean ok() {
            return malformedReason == null;
        }
    }
}
