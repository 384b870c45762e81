package io.replaylab.oracle;

/** The parsers the oracle ships. */
public final class RecordParsers {
    private RecordParsers() {
    }

    /**
     * The reference payload {@code {"id": "...", "amount": <integer>, ...}}. A fractional or textual
     * amount is malformed: amounts are exact. Flat payloads are read straight from the record's
     * bytes; anything unusual (escapes, nesting, non-ASCII, literals) goes through Jackson.
     */
    public static RecordParser paymentJson() {
        return PaymentJson.INSTANCE;
    }

    /**
     * Any message shape: identity and amount where {@code mapping} says (key, a JSON pointer into the
     * value, a header). The reference mapping gets {@link #paymentJson()}'s fast reader.
     */
    public static RecordParser mapped(SourceMapping mapping) {
        return mapping.parser();
    }
}
