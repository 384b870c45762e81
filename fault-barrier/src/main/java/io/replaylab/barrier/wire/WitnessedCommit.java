package io.replaylab.barrier.wire;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.replaylab.barrier.CommitOffset;
import io.replaylab.barrier.BarrierEvent;

/**
 * One OffsetCommit as the proxy saw it on the wire, with what became of it: who sent it (client
 * id, member, generation or member epoch), the offsets it asked to store, and the broker's answer
 * per partition ({@code topic-partition} to an error name, {@code NONE} when stored). A commit the
 * proxy held is marked {@link #held()}; its fate may be that it was never sent at all.
 *
 * @param seq        the order in which the proxy read the commits, from 1
 * @param sent       when the proxy read the request from the client
 * @param connection the client connection it came on, as the proxy's log names it
 * @param clientId   the request header's client id ({@code ""} when the client sent none)
 * @param generation the generation (classic protocol) or member epoch (consumer protocol) the request carried
 * @param answered   when the broker's answer came (null unless {@link Fate#ANSWERED})
 * @param answers    per partition, the broker's error name ({@code NONE}: stored); empty unless {@link Fate#ANSWERED}
 */
public record WitnessedCommit(long seq, Instant sent, String connection, String clientId, String group, String memberId, int generation,
        short apiVersion, List<CommitOffset> offsets, boolean held, Fate fate, Instant answered, Map<String, String> answers) {

    /** What became of a commit. */
    public enum Fate {
        /** The broker answered; {@link #answers()} says per partition whether it stored the offset. */
        ANSWERED,
        /** The proxy held it and the client closed the connection before the release: the broker never saw it. */
        NOT_SENT,
        /** Forwarded, but the broker's answer never came back (the connection closed first, or the proxy closed). */
        UNANSWERED,
        /** A fault armed on the proxy answered it with an error, or closed the connection at it: the broker never saw it. */
        FAULTED,
        /** On its way: held, or forwarded with the broker's answer not back yet (only {@link WireWitness#inFlight()} shows these). */
        IN_FLIGHT
    }

    public WitnessedCommit {
        Objects.requireNonNull(fate, "fate");
        offsets = List.copyOf(offsets);
        answers = java.util.Collections.unmodifiableMap(new TreeMap<>(answers));
    }

    /** The broker stored every partition's offset. */
    public boolean accepted() {
        return fate == Fate.ANSWERED && !answers.isEmpty() && answers.values().stream().allMatch("NONE"::equals);
    }

    /** The broker answered with an error for at least one partition. */
    public boolean rejected() {
        return fate == Fate.ANSWERED && answers.values().stream().anyMatch(e -> !"NONE".equals(e));
    }

    /** The broker answered and stored {@code partition}'s offset ({@code t-0}). */
    public boolean storedFor(String partition) {
        return fate == Fate.ANSWERED && "NONE".equals(answers.get(partition));
    }

    /** The broker answered {@code partition}'s offset ({@code t-0}) with an error. */
    public boolean refusedFor(String partition) {
        return fate == Fate.ANSWERED && answers.containsKey(partition) && !"NONE".equals(answers.get(partition));
    }

    /** The error names the broker gave, in partition order, without repeats ({@code ILLEGAL_GENERATION}). */
    public List<String> errors() {
        return answers.values().stream().filter(e -> !"NONE".equals(e)).distinct().toList();
    }

    /** {@code t-0=5,t-1=7}. */
    public String offsetsText() {
        return CommitOffset.text(offsets);
    }

    /** What became of it, for a person, in the evidence's words ({@link BarrierEvent.CommitWitnessed#fateText()}): {@code stored by the broker}, ... */
    public String fateText() {
        return fate == Fate.IN_FLIGHT ? "on its way: " + (held ? "held" : "the broker's answer is not back yet") : toPayload(clientId).fateText();
    }

    /** As evidence, with the instance the lab knows the client as (its client id when the lab has no better name). */
    public BarrierEvent.CommitWitnessed toPayload(String instance) {
        Map<String, Long> asked = new TreeMap<>();
        offsets.forEach(o -> asked.put(o.partitionName(), o.offset()));
        return new BarrierEvent.CommitWitnessed(instance, group, memberId, generation, asked, held, fate.name(), answers);
    }

    /** One line: {@code #3 client A member m-1 generation 2 OffsetCommit t-0=5: rejected by the broker: ILLEGAL_GENERATION}. */
    public String summary() {
        return "#" + seq + " client " + (clientId.isEmpty() ? "?" : clientId) + " member " + (memberId.isEmpty() ? "(none)" : memberId)
                + " generation " + generation + " OffsetCommit v" + apiVersion + " " + offsetsText() + (held ? " (held by a barrier)" : "")
                + ": " + fateText();
    }
}
