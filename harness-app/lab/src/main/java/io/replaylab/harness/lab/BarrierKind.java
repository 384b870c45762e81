package io.replaylab.harness.lab;

import java.util.Locale;
import java.util.Objects;

/**
 * Which barrier holds instance A's offset commit in the rebalance experiment: a debugger breakpoint
 * at {@code KafkaConsumer#commitSync} (JVM subjects only) or the wire barrier, a Kafka protocol proxy
 * that holds the OffsetCommit request of any client.
 */
public enum BarrierKind {
    DEBUGGER, WIRE;

    /** Why a run holds A the way it does. */
    public enum Reason {
        /** The settings named it: never replaced by another. */
        ASKED_FOR,
        NO_SUBJECT,
        SUBJECT_IS_A_JVM,
        /** A debugger needs a JVM; the wire reaches every Kafka client. */
        SUBJECT_IS_NOT_A_JVM
    }

    /**
     * The barrier a run uses and why it was chosen (shown in the evidence and the report);
     * {@code program}: the subject's program when the reason names it, else empty.
     */
    public record Choice(BarrierKind kind, Reason reason, String program) {
        public Choice {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(program, "program");
        }

        public static Choice of(BarrierKind kind, Reason reason) {
            return new Choice(kind, reason, "");
        }

        /** The reason in the evidence's words, e.g. "asked for". */
        public String why() {
            return switch (reason) {
                case ASKED_FOR -> "asked for";
                case NO_SUBJECT -> "no subject was given";
                case SUBJECT_IS_A_JVM -> "the subject is a JVM";
                case SUBJECT_IS_NOT_A_JVM -> "the subject's program '" + program + "' is not java: the JVM debugger cannot hold it";
            };
        }

        public String display() {
            return kind.id() + " (" + why() + ")";
        }
    }

    /** The kind's name in lower case, e.g. {@code wire}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Every kind's id, as a person reads a choice: {@code debugger or wire}. */
    public static String ids() {
        return java.util.Arrays.stream(values()).map(BarrierKind::id).collect(java.util.stream.Collectors.joining(" or "));
    }

    /** {@code debugger} or {@code wire}. */
    public static BarrierKind parse(String s) {
        return java.util.Arrays.stream(values()).filter(k -> k.id().equals(s)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("a barrier is " + ids() + ", was " + s));
    }
}
