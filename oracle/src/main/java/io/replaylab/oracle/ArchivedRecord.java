package io.replaylab.oracle;

import java.util.Objects;

import io.replaylab.kafka.PartitionRef;

/**
 * A source record a share group (KIP-932) ARCHIVED: never to be delivered again. The broker archives a
 * record the consumer REJECTed (its own word: it meant it) and one that came back once too often (released
 * or its lock expired at the delivery count limit: nobody's word for it, the consumer lost it). No Admin
 * API shows a record's state; the lab reads it on the wire. Given to {@link Oracle#compare(io.replaylab.kafka.OffsetSnapshot,
 * java.util.Collection)}, an archived record without an effect is reported as archived (or, a readable one the consumer
 * REJECTed, as rejected), not missing; both fail. A REJECTed malformed record is the consumer's word on it: no finding.
 *
 * @param deliveries how many times it was delivered, the last included
 * @param rejected   the consumer REJECTed it; false: archived at the delivery count limit
 */
public record ArchivedRecord(PartitionRef partition, long offset, int deliveries, boolean rejected) {
    public ArchivedRecord {
        Objects.requireNonNull(partition, "partition");
        if (offset < 0 || deliveries < 1) {
            throw new IllegalArgumentException("an archived record has an offset >= 0 and at least one delivery: " + partition + "@" + offset
                    + " after " + deliveries);
        }
    }

    /** Archived at the delivery count limit, after {@code deliveries} deliveries nobody acknowledged ACCEPT or REJECT. */
    public static ArchivedRecord atLimit(PartitionRef partition, long offset, int deliveries) {
        return new ArchivedRecord(partition, offset, deliveries, false);
    }

    /** Archived by the consumer's REJECT at delivery {@code deliveries}. */
    public static ArchivedRecord rejected(PartitionRef partition, long offset, int deliveries) {
        return new ArchivedRecord(partition, offset, deliveries, true);
    }

    /** {@code archived after 5 deliveries} or {@code rejected by the consumer at delivery 1}. */
    String fate() {
        return rejected ? "rejected by the consumer at delivery " + deliveries : "archived after " + deliveries + " deliver" + (deliveries == 1 ? "y" : "ies");
    }
}
