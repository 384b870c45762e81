package io.replaylab.oracle;

import java.nio.charset.StandardCharsets;

/**
 * Maps a source record's value to its identity and amount. The oracle has its own parser (it never
 * trusts the consumer's code); a lab with another payload plugs in its own.
 */
@FunctionalInterface
public interface RecordParser {
    /** @return the parsed identity and amount, or a reason why the record is malformed */
    Parsed parse(String key, String value);

    /**
     * The record as the oracle reads it: raw bytes. By default decoded as UTF-8 and handed to
     * {@link #parse(String, String)}; a parser that can read bytes directly overrides this.
     */
    default Parsed parse(byte[] key, byte[] value) {
        return parse(key == null ? null : new String(key, StandardCharsets.UTF_8), value == null ? null : new String(value, StandardCharsets.UTF_8));
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
