package io.replaylab.kafka;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.replaylab.evidence.Setting;

/**
 * What {@link KafkaOps#executeReset} may do. There is deliberately no default prefix that allows
 * everything: without {@link Builder#allowPrefix} every reset is refused.
 */
public record ExecuteResetOptions(List<String> allowedPrefixes, boolean allowRemote, Path planDir, Duration verifyTimeout) {
    public static final Duration DEFAULT_VERIFY_TIMEOUT = Duration.ofSeconds(10);
    /** The settings a refused reset's guards name. */
    public static final Setting ALLOW_PREFIX = Setting.of("ExecuteResetOptions", "allowPrefix");
    public static final Setting ALLOW_REMOTE = Setting.of("ExecuteResetOptions", "allowRemote");
    public static final Setting PLAN_DIR = Setting.of("ExecuteResetOptions", "planDir");

    public ExecuteResetOptions {
        allowedPrefixes = List.copyOf(allowedPrefixes);
        Objects.requireNonNull(verifyTimeout, "verifyTimeout");
    }

    public static Builder custom() {
        return new Builder();
    }

    public static final class Builder {
        private final List<String> prefixes = new ArrayList<>();
        private boolean allowRemote;
        private Path planDir;
        private Duration verifyTimeout = DEFAULT_VERIFY_TIMEOUT;

        private Builder() {
        }

        /** A synthetic namespace prefix the group and every topic must start with (repeatable). */
        public Builder allowPrefix(String prefix) {
            if (prefix == null || prefix.isBlank()) {
                throw new IllegalArgumentException("an allowed prefix must not be blank (a blank prefix would allow everything)");
            }
            prefixes.add(prefix);
            return this;
        }

        public Builder allowPrefixes(List<String> list) {
            list.forEach(this::allowPrefix);
            return this;
        }

        /** Allow a bootstrap that is not loopback (the default refuses: a lab never touches a shared cluster by accident). */
        public Builder allowRemote(boolean allow) {
            this.allowRemote = allow;
            return this;
        }

        /** Where the plan and the previous offsets are saved before anything is altered. */
        public Builder planDir(Path dir) {
            this.planDir = Objects.requireNonNull(dir, "planDir");
            return this;
        }

        public Builder verifyTimeout(Duration timeout) {
            this.verifyTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        public ExecuteResetOptions build() {
            return new ExecuteResetOptions(prefixes, allowRemote, planDir, verifyTimeout);
        }
    }
}
