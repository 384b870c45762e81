package io.replaylab.harness.lab;

import java.util.Optional;

/**
 * One line of a subject's processing log ({@code logs/<instance>.processing.jsonl}): a record it
 * handled and what became of it ({@code applied}, {@code duplicate}, {@code quarantined}, a refused
 * commit or acknowledgement...). Fields a subject does not write are null.
 *
 * @param deliveryCount a share group's record: its how-many-th delivery
 * @param exception     the exception class of a refusal, e.g. the broker's to a stale acknowledgement
 */
public record ProcessingLine(String instance, String topic, int partition, long offset, Integer deliveryCount, String id, String result,
        String exception, String message) {
    /** Whether this line is about record {@code offset} of {@code partition}. */
    public boolean isAbout(int partition, long offset) {
        return this.partition == partition && this.offset == offset;
    }

    /** The record's effect was applied by this line's instance ({@code applied}). */
    public boolean applied() {
        return "applied".equals(result);
    }

    /** The line is about what became of the record (applied, duplicate, quarantined...), not of its acknowledgement. */
    public boolean handling() {
        return result != null && !result.startsWith("ack");
    }

    /** The line is about the record's acknowledgement ({@code ack-…}). */
    public boolean acknowledgement() {
        return result != null && result.startsWith("ack");
    }

    /** The broker refused the record's acknowledgement ({@code ack-rejected}). */
    public boolean acknowledgementRefused() {
        return "ack-rejected".equals(result);
    }

    public Optional<Integer> delivery() {
        return Optional.ofNullable(deliveryCount);
    }
}
