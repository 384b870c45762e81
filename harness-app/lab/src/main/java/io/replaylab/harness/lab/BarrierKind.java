package io.replaylab.harness.lab;

/**
 * Which barrier holds instance A's offset commit in the rebalance experiment: a debugger breakpoint
 * at {@code KafkaConsumer#commitSync} (JVM subjects only) or the wire barrier, a Kafka protocol proxy
 * that holds the OffsetCommit request of any client.
 */
public enum BarrierKind {
    DEBUGGER, WIRE;

    /** The reason of a barrier the settings named: never replaced by another. */
    public static final String ASKED_FOR = "asked for";

    /** The barrier a run uses and why it was chosen (shown in the evidence and the report). */
    public record Choice(BarrierKind kind, String why) {
        public String display() {
            return kind.name().toLowerCase(java.util.Locale.ROOT) + " (" + why + ")";
        }
    }

    /** {@code debugger} or {@code wire}. */
    public static BarrierKind parse(String s) {
        return switch (s == null ? "" : s) {
            case "debugger" -> DEBUGGER;
            case "wire" -> WIRE;
            default -> throw new IllegalArgumentException("a barrier is debugger or wire, was " + s);
        };
    }
}
