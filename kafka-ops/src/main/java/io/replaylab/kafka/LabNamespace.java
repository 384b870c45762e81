package io.replaylab.kafka;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A lab's own synthetic namespace: every topic, group and inbox namespace of one run starts with
 * {@link #prefix()}, so guards and cleanup can tell the run's things from anyone else's.
 */
public record LabNamespace(String prefix) {
    private static final Pattern LEGAL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,119}");
    private static final SecureRandom RANDOM = new SecureRandom();

    public LabNamespace {
        Objects.requireNonNull(prefix, "prefix");
        if (!LEGAL.matcher(prefix).matches()) {
            throw new IllegalArgumentException("namespace prefix '" + prefix
                    + "' must start with a letter or digit and use only letters, digits, '.', '_' and '-' (at most 120 chars)");
        }
    }

    public static LabNamespace of(String prefix) {
        return new LabNamespace(prefix);
    }

    /** {@code base-<8 hex>}: unique per call, for a run or a test. */
    public static LabNamespace random(String base) {
        byte[] b = new byte[4];
        RANDOM.nextBytes(b);
        String clean = base.replaceAll("[^A-Za-z0-9._-]", "-");
        if (clean.length() > 100) {
            clean = clean.substring(0, 100);
        }
        return new LabNamespace(clean + "-" + HexFormat.of().formatHex(b));
    }

    public String topic() {
        return prefix + ".source";
    }

    public String topic(String suffix) {
        return prefix + "." + suffix;
    }

    public String group() {
        return prefix + ".group";
    }

    public String group(String suffix) {
        return prefix + ".group." + suffix;
    }

    /** The inbox namespace of a target generation (SPEC R16): a new generation never shares markers with an old one. */
    public String inbox(int generation) {
        if (generation < 1) {
            throw new IllegalArgumentException("generation starts at 1, was " + generation);
        }
        return prefix + "/g" + generation;
    }

    /** True when a topic or group name belongs to this namespace. */
    public boolean owns(String name) {
        return name != null && (name.equals(prefix) || name.startsWith(prefix + ".") || name.startsWith(prefix + "/"));
    }

    @Override
    public String toString() {
        return prefix;
    }
}
