package io.replaylab.oracle;

/**
 * Maps a source record's value to its identity and amount. The oracle has its own parser (it never
 * trusts the consumer's code); a lab with another payload plugs in its own.
 */
@FunctionalInterface
public interface RecordParser {
    /** @return the parsed identity and amount, or a reason why the record is malformed */
    Parsed parse(String key, String value);

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
