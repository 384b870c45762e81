package io.replaylab.barrier.pg;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What the PostgreSQL proxy saw of its sessions' transactions, as they ended ({@link WitnessedTransaction}), for the
 * timeline beside the Kafka witness: which instance's transaction committed which ids, and when. It keeps the last
 * {@link #KEPT} transactions; a listener ({@link #onTransaction}) sees every one.
 */
public final class PgWitness {
    /** Transactions kept for {@link #transactions}. */
    public static final int KEPT = 20_000;
    /** Statements kept per transaction, and characters per statement or parameter. */
    public static final int MAX_STATEMENTS = 32;
    public static final int MAX_TEXT = 400;

    private final java.util.ArrayDeque<WitnessedTransaction> kept = new java.util.ArrayDeque<>();
    private final List<Consumer<WitnessedTransaction>> listeners = new CopyOnWriteArrayList<>();

    PgWitness() {
    }

    /** Every transaction from now on, as it ends (on the proxy's thread: keep it short). */
    public void onTransaction(Consumer<WitnessedTransaction> listener) {
        listeners.add(listener);
    }

    /** The transactions kept so far, oldest first. */
    public synchronized List<WitnessedTransaction> transactions() {
        return List.copyOf(kept);
    }

    /** Those of {@code owner} that ended at or after {@code since}. */
    public List<WitnessedTransaction> of(String owner, Instant since) {
        return transactions().stream().filter(t -> t.owner().equals(owner) && !t.ended().isBefore(since)).toList();
    }

    void ended(WitnessedTransaction t) {
        synchronized (this) {
            kept.add(t);
            if (kept.size() > KEPT) {
                kept.removeFirst();
            }
        }
        for (Consumer<WitnessedTransaction> l : listeners) {
            try {
                l.accept(t);
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(PgWitness.class).warn("a transaction listener failed: {}", e.toString());
            }
        }
    }
}
