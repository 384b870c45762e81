package io.replaylab.harness;

import io.replaylab.oracle.SourceMapping;
import picocli.CommandLine.Option;

/** Where the oracle finds a source record's identity and amount: the same options on {@code run} and {@code oracle}. */
final class SourceOptions {
    static final String FORMS = "key, json:/pointer (RFC 6901, e.g. json:/payment/id) or header:NAME";

    @Option(names = "--source-id", defaultValue = "json:/id", description = "where a record's identity is: " + FORMS + " (default ${DEFAULT-VALUE})")
    String id;

    @Option(names = "--source-amount", defaultValue = "json:/amount", description = "where its amount is, an exact integer or a string of digits: "
            + FORMS + " (default ${DEFAULT-VALUE})")
    String amount;

    @Option(names = "--amount-scale", defaultValue = "0", description = "decimal digits of the amounts turned into minor units, e.g. 2: "
            + "\"12.50\" is 1250; more digits are malformed, never rounded; the target's amounts are scaled alike (default ${DEFAULT-VALUE})")
    int scale;

    /** The mapping; a bad field names its flag. */
    SourceMapping mapping() {
        SourceMapping.Field idField = field("--source-id", id);
        SourceMapping.Field amountField = field("--source-amount", amount);
        if (scale < 0 || scale > 18) {
            throw new IllegalArgumentException("--amount-scale must be 0..18 decimal digits, was " + scale);
        }
        return new SourceMapping(idField, amountField, scale);
    }

    private static SourceMapping.Field field(String flag, String text) {
        try {
            return SourceMapping.Field.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + " " + e.getMessage(), e);
        }
    }
}
