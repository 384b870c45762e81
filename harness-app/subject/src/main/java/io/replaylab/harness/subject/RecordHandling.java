package io.replaylab.harness.subject;

import java.util.Locale;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One record's handling, the same in a consumer group and a share group: its effect and inbox row in
 * one transaction (a malformed record quarantined instead), counted, and a line in the processing log.
 * What comes before and after it (an offset commit, an acknowledgement) is the consumer's own.
 */
final class RecordHandling {
    /** The step a defective twin may change: one payment's effect with its inbox row. */
    @FunctionalInterface
    interface Projector {
        InboxProjection.Result project(InboxProjection db, ConsumerRecord<String, String> r, Payment p);
    }

    private final InboxProjection db;
    private final JsonLines processing;
    private final String instanceId;
    private final Projector projector;
    private long applied;
    private long duplicates;
    private long quarantined;

    RecordHandling(InboxProjection db, JsonLines processing, String instanceId, Projector projector) {
        this.db = db;
        this.processing = processing;
        this.instanceId = instanceId;
        this.projector = projector;
    }

    /** Projects (or quarantines) the record, counts it and logs it. */
    InboxProjection.Result handle(ConsumerRecord<String, String> r) {
        InboxProjection.Result result;
        String reason = null;
        try {
            result = projector.project(db, r, Payment.parse(r.value()));
        } catch (Payment.Malformed m) {
            reason = m.getMessage();
            result = db.quarantine(r.topic(), r.partition(), r.offset(), reason, r.value());
        }
        switch (result) {
            case APPLIED -> applied++;
            case DUPLICATE -> duplicates++;
            default -> quarantined++;
        }
        Map<String, Object> line = SubjectLogs.processing(instanceId, r);
        line.put("id", Payment.idOf(r.value()));
        line.put("result", result.name().toLowerCase(Locale.ROOT));
        if (reason != null) {
            line.put("reason", reason);
        }
        processing.write(line);
        return result;
    }

    /** The instance's summary line, e.g. {@code a: applied 3, duplicate 1, quarantined 0}. */
    String summary() {
        return instanceId + ": applied " + applied + ", duplicate " + duplicates + ", quarantined " + quarantined;
    }
}
