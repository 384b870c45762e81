package io.replaylab.evidence;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A setting of a library's API that a message names, so that a front end names it its own way by
 * this value instead of reading the message: e.g. {@code ExecuteResetOptions.allowPrefix}, one with
 * the value to give it ({@code LabSettings.barrier WIRE}), or one the library says in words
 * ("the subject command"). The CLI's flags are keyed by these values.
 *
 * @param words how the message says it, when not as {@code api.name}
 */
public record Setting(String api, String name, String value, String words) {
    public Setting {
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(words, "words");
    }

    /** {@code api.name}, e.g. {@code Setting.of("ExecuteResetOptions", "allowPrefix")}. */
    public static Setting of(String api, String name) {
        return new Setting(api, name, "", "");
    }

    /** This setting given {@code v}: {@code LabSettings.barrier WIRE}. */
    public Setting to(String v) {
        return new Setting(api, name, v, words);
    }

    /** This setting as the library's messages say it in words, e.g. "the subject command". */
    public Setting saidAs(String w) {
        return new Setting(api, name, value, w);
    }

    /** As the library's messages say it. */
    @Override
    public String toString() {
        return !words.isEmpty() ? words : api + "." + name + (value.isEmpty() ? "" : " " + value);
    }

    /** A refusal or an error that names settings: which ones its message names, as they are said there. */
    public interface Named {
        List<Setting> settings();
    }

    /**
     * {@code text} with each of {@code settings}, as the library says it, said by {@code naming} instead
     * (the longest first, so that a setting with a value is not taken for the one without).
     */
    public static String rename(String text, List<Setting> settings, Function<Setting, String> naming) {
        if (text == null) {
            return null;
        }
        String out = text;
        for (Setting s : settings.stream().distinct().sorted(Comparator.comparingInt((Setting x) -> x.toString().length()).reversed()).toList()) {
            out = out.replace(s.toString(), naming.apply(s));
        }
        return out;
    }
}
