package io.replaylab.harness.bench;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A bench's count option (rounds, records, partitions, requests): a whole number of at least 1. Picocli refuses any other
 * value naming the option, before the bench starts a broker or a consumer; a zero would measure nothing and report it.
 */
final class Count implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
        return atLeast(1, value);
    }

    /** A count that may be 0 (an idle time in seconds). */
    static final class OrZero implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return atLeast(0, value);
        }
    }

    private static int atLeast(int least, String value) {
        int n;
        try {
            n = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not a whole number");
        }
        if (n < least) {
            throw new TypeConversionException("must be at least " + least + ", was " + n);
        }
        return n;
    }
}
