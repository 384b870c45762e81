package io.replaylab.harness;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine;

/**
 * Every duration option of the CLI: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1m30s},
 * {@code 1h}, {@code 2d}, or ISO-8601 ({@code PT5S}, {@code P1DT2H}). A bare number is refused:
 * seconds or milliseconds would be a guess.
 */
final class Durations implements CommandLine.ITypeConverter<Duration> {
    static final String FORMS = "e.g. 500ms, 5s, 2m, 1m30s, 1h, 2d or ISO-8601 like PT5S";
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    static Duration parse(String value) {
        String v = value.trim();
        if (v.matches("\\d+")) {
            throw new CommandLine.TypeConversionException("'" + value + "' has no unit: add one, e.g. " + v + "s (" + FORMS + ")");
        }
        if (v.startsWith("P") || v.startsWith("p")) {
            try {
                return Duration.parse(v);
            } catch (DateTimeParseException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (" + FORMS + ")");
            }
        }
        Matcher m = PART.matcher(v);
        Duration d = Duration.ZERO;
        int at = 0;
        while (m.find() && m.start() == at) {
            long n = Long.parseLong(m.group(1));
            d = d.plus(switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            });
            at = m.end();
        }
        if (at != v.length() || v.isEmpty()) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (" + FORMS + ")");
        }
        return d;
    }
}
