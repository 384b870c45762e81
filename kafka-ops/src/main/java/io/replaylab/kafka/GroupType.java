package io.replaylab.kafka;

/**
 * The two kinds of group whose offsets the lab reads and moves: a consumer group (committed offsets, KIP-848 or classic) or a
 * share group (KIP-932: share-partition start offsets; records acquired, acknowledged and redelivered one by one).
 */
public enum GroupType {
    CONSUMER("Consumer"),
    SHARE("Share");

    private final String title;

    GroupType(String title) {
        this.title = title;
    }

    /** As a sentence starts with it: {@code Share}, {@code Consumer}. */
    public String title() {
        return title;
    }
}
