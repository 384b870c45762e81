package io.replaylab.barrier.pg;

import java.time.Instant;

/**
 * A database fault as it fired: when, on whose session, at which statement, and what the proxy did.
 *
 * @param at        when it fired
 * @param owner     the session's owner (its instance), or its application name
 * @param session   the proxy's number for the session
 * @param statement the statement it met, e.g. {@code COMMIT}
 * @param done      what the proxy did, e.g. "the server committed; its answer was dropped and the connection closed"
 * @param ran       what the transaction it hit had run by then (as {@link WitnessedTransaction#statements}): the records it was about
 */
public record DbFaultFiring(Instant at, String owner, int session, String statement, String done, java.util.List<String> ran) {
    public DbFaultFiring {
        ran = java.util.List.copyOf(ran);
    }

    /** The ids of {@code ids} the transaction it hit had named by then (as {@link WitnessedTransaction#mentions}). */
    public java.util.Set<String> mentions(java.util.Collection<String> ids) {
        return WitnessedTransaction.mentioned(ran, ids);
    }

    /** In one line for the evidence. */
    public String summary() {
        return done + " (session " + session + " of " + owner + ", at " + statement + ")";
    }
}
