package io.replaylab.barrier;

import java.util.List;
import java.util.Map;

import io.replaylab.evidence.Payload;
import io.replaylab.evidence.PayloadTypes;
import io.replaylab.evidence.Report;

/**
 * A barrier's moves and the held call's outcome, as fault-barrier records them ({@link BarrierEvidence},
 * {@link io.replaylab.barrier.wire.WitnessedCommit#toPayload}): evidence kinds of this module, named in
 * JSON by their simple names as when they were evidence-core's (old evidence reads typed). Listed by
 * {@link Types}; their report section is {@link BarrierReportSection}.
 */
public sealed interface BarrierEvent extends Payload.Extension {
    /** How the HTML timeline draws a barrier's moves. */
    Report.Mark HOLD = new Report.Mark("barrier", "#ef6c00");
    Report.Mark ACCEPTED = new Report.Mark("commit accepted", "#2e7d32");
    Report.Mark REJECTED = new Report.Mark("commit rejected", "#c62828");
    Report.Mark NOT_DELIVERED = new Report.Mark("commit not delivered", "#6d4c41");

    /** A barrier's moves draw as {@link #HOLD}; what became of a commit draws by its verdict. */
    @Override
    default Report.Mark mark() {
        return HOLD;
    }

    /** A barrier point was armed. */
    record BarrierArmed(String point, String mode, String detail) implements BarrierEvent {
        @Override
        public String summary() {
            return "barrier " + point + " armed (" + mode + ")" + (detail == null || detail.isEmpty() ? "" : ": " + detail);
        }
    }

    /** A thread reached an armed barrier and is held there. */
    record BarrierReached(String point, String thread, Map<String, String> context, List<String> stack) implements BarrierEvent {
        public BarrierReached {
            context = Payload.inKeyOrder(context);
            stack = List.copyOf(stack);
        }

        @Override
        public String summary() {
            return "barrier " + point + " reached by " + thread + (context.isEmpty() ? "" : " " + context);
        }
    }

    /** A held barrier was released: by the controller, or by the safety hold timeout. */
    record BarrierReleased(String point, String by, long heldMillis) implements BarrierEvent {
        @Override
        public String summary() {
            return "barrier " + point + " released by " + by + " after " + heldMillis + " ms";
        }
    }

    /** An armed barrier was never reached. */
    record BarrierExpired(String point, long waitedMillis) implements BarrierEvent {
        @Override
        public String summary() {
            return "barrier " + point + " never reached in " + waitedMillis + " ms";
        }
    }

    /**
     * What became of an offset commit the barrier held, as the subject saw it: by whom, which
     * offsets, and its verdict, which draws it and names it in the summary.
     */
    sealed interface CommitOutcome extends BarrierEvent {
        String instance();

        Map<String, Long> offsets();

        CallOutcome.Verdict verdict();

        /** What the summary says after the offsets: why, where there is a why. */
        default String why() {
            return "";
        }

        @Override
        default Report.Mark mark() {
            return switch (verdict()) {
                case ACCEPTED -> ACCEPTED;
                case REJECTED -> REJECTED;
                case NOT_DELIVERED -> NOT_DELIVERED;
            };
        }

        @Override
        default String summary() {
            return "commit by " + instance() + " " + verdict().name().replace('_', ' ') + " " + offsets() + why();
        }
    }

    /** An offset commit returned normally. */
    record CommitAccepted(String instance, Map<String, Long> offsets) implements CommitOutcome {
        public CommitAccepted {
            offsets = Payload.inKeyOrder(offsets);
        }

        @Override
        public CallOutcome.Verdict verdict() {
            return CallOutcome.Verdict.ACCEPTED;
        }
    }

    /** An offset commit threw. */
    record CommitRejected(String instance, Map<String, Long> offsets, String exception, String message) implements CommitOutcome {
        public CommitRejected {
            offsets = Payload.inKeyOrder(offsets);
        }

        @Override
        public CallOutcome.Verdict verdict() {
            return CallOutcome.Verdict.REJECTED;
        }

        /** The exception's simple name for people (CommitFailedException, or the broker's UNKNOWN_MEMBER_ID); its field keeps the whole class. */
        @Override
        public String why() {
            return ": " + (exception == null ? "" : exception.substring(exception.lastIndexOf('.') + 1)) + ": " + message;
        }
    }

    /**
     * An offset commit that never reached the broker: the connection carrying it closed while it
     * was held (the client timed out) and no retry arrived. Neither accepted nor rejected.
     */
    record CommitNotDelivered(String instance, Map<String, Long> offsets, String reason) implements CommitOutcome {
        public CommitNotDelivered {
            offsets = Payload.inKeyOrder(offsets);
        }

        @Override
        public CallOutcome.Verdict verdict() {
            return CallOutcome.Verdict.NOT_DELIVERED;
        }

        @Override
        public String why() {
            return ": " + reason;
        }
    }

    /**
     * An OffsetCommit as the wire proxy saw it (the witness), with what became of it: the broker's
     * answer per partition ({@code NONE}: stored), or that it was never sent ({@code NOT_SENT}: the
     * client closed the connection while a barrier held it), never answered ({@code UNANSWERED}), or
     * answered by a fault in the proxy ({@code FAULTED}: the broker never saw it).
     */
    record CommitWitnessed(String instance, String group, String member, int generation, Map<String, Long> offsets, boolean held,
            String fate, Map<String, String> answers) implements BarrierEvent {
        public CommitWitnessed {
            offsets = Payload.inKeyOrder(offsets);
            answers = Payload.inKeyOrder(answers);
        }

        /** The broker stored every partition's offset. */
        public boolean accepted() {
            return "ANSWERED".equals(fate) && !answers.isEmpty() && answers.values().stream().allMatch("NONE"::equals);
        }

        /** The sequence diagram's arrow: A's OffsetCommit to the broker, and what became of it (red when it was not stored). */
        @Override
        public java.util.Optional<io.replaylab.evidence.Report.Message> arrow() {
            String at = offsets.entrySet().stream().map(e -> e.getKey().substring(e.getKey().lastIndexOf('-') + 1) + "=" + e.getValue())
                    .collect(java.util.stream.Collectors.joining(",", "{", "}"));
            return java.util.Optional.of(new io.replaylab.evidence.Report.Message(instance, "broker", "OffsetCommit " + at + (accepted() ? ""
                    : ": " + fateText()), !accepted()));
        }

        /** What became of it, for a person. */
        public String fateText() {
            return switch (fate) {
                case "ANSWERED" -> accepted() ? "stored by the broker"
                        : "rejected by the broker: " + String.join(",", answers.values().stream().filter(e -> !"NONE".equals(e)).distinct().toList());
                case "NOT_SENT" -> "never sent (the client closed the connection while it was held)";
                case "UNANSWERED" -> "sent, never answered (the connection closed first)";
                case "FAULTED" -> answers.isEmpty() ? "never sent: a fault closed the connection at it"
                        : "answered " + String.join(",", answers.values().stream().distinct().toList()) + " by a fault in the proxy (the broker never saw it)";
                default -> fate;
            };
        }

        @Override
        public Report.Mark mark() {
            return accepted() ? ACCEPTED : REJECTED;
        }

        @Override
        public String summary() {
            return "OffsetCommit on the wire from " + instance + " (member " + (member.isEmpty() ? "none" : member) + ", generation " + generation
                    + ") " + offsets + (held ? ", held by the barrier" : "") + ": " + fateText();
        }
    }

    /** This module's kinds, for the {@link PayloadTypes} service. */
    final class Types implements PayloadTypes {
        @Override
        public List<Class<? extends Payload.Extension>> types() {
            return List.copyOf(PayloadTypes.recordsOf(BarrierEvent.class));
        }
    }
}
