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

    public Optional<Integer> delivery() {
        return Optional.ofNullable(deliveryCount);
    }
}
