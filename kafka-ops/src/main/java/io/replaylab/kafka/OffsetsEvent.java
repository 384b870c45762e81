package io.replaylab.kafka;

import java.util.List;

import io.replaylab.evidence.Payload;
import io.replaylab.evidence.PayloadTypes;
import io.replaylab.evidence.Report;

/**
 * Offsets and group ownership as kafka-ops describes and plans them ({@link OffsetSnapshot#toPayload},
 * {@link ResetPlan#toPayload}) and the lab sees them: evidence kinds of this module, named in JSON by
 * their simple names as when they were evidence-core's (old evidence reads typed). Listed by {@link Types}.
 */
public sealed interface OffsetsEvent extends Payload.Extension {
    /** How the HTML timeline draws a change of ownership. */
    Report.Mark OWNERSHIP = new Report.Mark("assignment", "#1565c0");

    /** One partition's position in an offsets snapshot; {@code committed} is -1 when the group has none. */
    record PartitionPosition(String topic, int partition, long committed, long logStart, long logEnd, String owner) {
        public long lag() {
            return committed < 0 ? logEnd - logStart : Math.max(0, logEnd - committed);
        }
    }

    /** A described group (SPEC R1): state, members and per-partition offsets. */
    record OffsetsSnapshot(String label, String group, String state, int members, List<PartitionPosition> partitions)
            implements OffsetsEvent {
        public OffsetsSnapshot {
            partitions = List.copyOf(partitions);
        }

        @Override
        public String summary() {
            long lag = partitions.stream().mapToLong(PartitionPosition::lag).sum();
            return label + ": group " + group + " " + state + ", " + members + " member(s), " + partitions.size()
                    + " partition(s), lag " + lag;
        }
    }

    /** One row of a reset plan. */
    record PlannedOffset(String topic, int partition, long previous, long next, String note) {
    }

    /** A reset plan, dry run or executed (SPEC R2, R4). */
    record ResetPlanned(String planId, String group, String target, boolean dryRun, String savedAt, List<PlannedOffset> rows)
            implements OffsetsEvent {
        public ResetPlanned {
            rows = List.copyOf(rows);
        }

        @Override
        public String summary() {
            return (dryRun ? "dry run of " : "executed ") + "reset " + planId + " of group " + group + " " + target
                    + " over " + rows.size() + " partition(s)" + (savedAt == null ? "" : ", saved at " + savedAt);
        }
    }

    /** A reset the guards refused (SPEC R3). */
    record ResetRefused(String group, List<String> failedGuards) implements OffsetsEvent {
        public ResetRefused {
            failedGuards = List.copyOf(failedGuards);
        }

        @Override
        public String summary() {
            return "reset of " + group + " refused: " + String.join("; ", failedGuards);
        }
    }

    /** A change of partition ownership, from a group description or an assignment log. */
    record AssignmentChanged(String instance, String event, List<String> partitions, String generation, String seenBy)
            implements OffsetsEvent {
        public AssignmentChanged {
            partitions = List.copyOf(partitions);
        }

        @Override
        public Report.Mark mark() {
            return OWNERSHIP;
        }

        @Override
        public String summary() {
            return instance + " " + event + " " + partitions + (generation == null ? "" : " (generation " + generation + ")")
                    + " seen by " + seenBy;
        }
    }

    /** This module's kinds, for the {@link PayloadTypes} service. */
    final class Types implements PayloadTypes {
        @Override
        public List<Class<? extends Payload.Extension>> types() {
            return List.copyOf(PayloadTypes.recordsOf(OffsetsEvent.class));
        }
    }
}
