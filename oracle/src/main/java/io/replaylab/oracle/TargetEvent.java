package io.replaylab.oracle;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.replaylab.evidence.Payload;
import io.replaylab.evidence.PayloadTypes;
import io.replaylab.evidence.Report;

/**
 * What the target database holds, as the oracle ({@link Comparison#toPayload}) and the lab read it:
 * evidence kinds of this module, named in JSON by their simple names as when they were
 * evidence-core's (old evidence reads typed). Listed by {@link Types}.
 */
public sealed interface TargetEvent extends Payload.Extension {
    /** How the HTML timeline draws an effect seen in the target. */
    Report.Mark EFFECT = new Report.Mark("DB effect", "#6a1b9a");

    /** The target already holds an effect (seen in the DB, not claimed by the consumer). */
    record DbCommitSeen(String namespace, String messageId, String topic, int partition, long offset, String instance)
            implements TargetEvent {
        @Override
        public Report.Mark mark() {
            return EFFECT;
        }

        @Override
        public String summary() {
            return "DB holds effect of " + messageId + " (" + topic + "-" + partition + "@" + offset + ") in " + namespace
                    + (instance == null ? "" : " by " + instance);
        }
    }

    /**
     * The oracle's verdict with its counts, and the cut it read the source up to (SPEC R13): the end
     * offset of each partition ({@code topic-partition}) taken at {@code cutAt}.
     */
    record OracleVerdict(String status, Map<String, Long> counts, String detail, Instant cutAt, Map<String, Long> cut) implements TargetEvent {
        public OracleVerdict {
            counts = Payload.inKeyOrder(counts);
            cut = cut == null ? Map.of() : Payload.inKeyOrder(cut);
        }

        @Override
        public String summary() {
            return "oracle " + status + " " + counts + (cut.isEmpty() ? "" : " up to the cut " + cut + (cutAt == null ? "" : " taken " + cutAt))
                    + (detail == null || detail.isEmpty() ? "" : ": " + detail);
        }
    }

    /** This module's kinds, for the {@link PayloadTypes} service. */
    final class Types implements PayloadTypes {
        @Override
        public List<Class<? extends Payload.Extension>> types() {
            return List.copyOf(PayloadTypes.recordsOf(TargetEvent.class));
        }
    }
}
