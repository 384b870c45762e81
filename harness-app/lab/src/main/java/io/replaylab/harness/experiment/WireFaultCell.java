package io.replaylab.harness.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.replaylab.barrier.wire.MemberTimeouts;
import io.replaylab.barrier.wire.WireFault;
import org.apache.kafka.clients.consumer.GroupProtocol;

/**
 * One cell of the {@code wire-faults} experiment: a fault aimed at subject A's requests while it
 * drains. An OffsetFetch rewind needs offsets to rewind: A drains once, stops, and the fault hits
 * the OffsetFetch of its restart.
 */
public record WireFaultCell(WireFault fault) {
    public WireFaultCell {
        Objects.requireNonNull(fault, "fault");
    }

    /** A cell from a fault spec, e.g. {@code offset-commit:error=NOT_COORDINATOR@2} ({@link WireFault#parse}). */
    public static WireFaultCell parse(String spec) {
        return new WireFaultCell(WireFault.parse(spec));
    }

    /** The default cells for a group protocol: the commit path's errors, a lost answer, the coordinator lookup, the offset fetch, the heartbeat. */
    public static List<WireFaultCell> defaults(GroupProtocol protocol) {
        // the consumer protocol's broker answers a commit from an older member epoch STALE_MEMBER_EPOCH, never REBALANCE_IN_PROGRESS
        // (the Java client treats that answer there as an unexpected error: measured, README)
        String rebalancing = protocol == GroupProtocol.CLASSIC ? "offset-commit:error=REBALANCE_IN_PROGRESS" : "offset-commit:error=STALE_MEMBER_EPOCH";
        List<String> specs = new ArrayList<>(List.of(rebalancing, "offset-commit:error=NOT_COORDINATOR",
                "offset-commit:error=COORDINATOR_LOAD_IN_PROGRESS", "offset-commit:lost-answer", "find-coordinator:error=COORDINATOR_NOT_AVAILABLE",
                // every OffsetFetch of A's restart: a client that fetches again (after a rebalance) must not get the true offsets back
                "offset-fetch:error=COORDINATOR_LOAD_IN_PROGRESS", "offset-fetch:rewind=5@every",
                // expired offsets: the reset policy decides; a reset to the end skips what A had not applied (a FAIL, named)
                "offset-fetch:forget@every"));
        List<WireFaultCell> cells = new ArrayList<>(specs.stream().map(WireFaultCell::parse).toList());
        cells.add(heartbeat(protocol == GroupProtocol.CLASSIC ? MemberTimeouts.Protocol.CLASSIC : MemberTimeouts.Protocol.CONSUMER));
        return List.copyOf(cells);
    }

    /** The default cell at a protocol's heartbeat: the coordinator tells A to join again (classic) or fences its member epoch (consumer). */
    static WireFaultCell heartbeat(MemberTimeouts.Protocol protocol) {
        return parse(protocol == MemberTimeouts.Protocol.CLASSIC ? "heartbeat:error=REBALANCE_IN_PROGRESS"
                : "consumer-group-heartbeat:error=FENCED_MEMBER_EPOCH@3");
    }

    /** The group protocol whose members alone send the request this cell's fault aims at (a heartbeat, a join), or empty. */
    Optional<MemberTimeouts.Protocol> protocol() {
        return switch (fault.target().api()) {
            case HEARTBEAT, JOIN_GROUP, SYNC_GROUP -> Optional.of(MemberTimeouts.Protocol.CLASSIC);
            case CONSUMER_GROUP_HEARTBEAT -> Optional.of(MemberTimeouts.Protocol.CONSUMER);
            case OFFSET_COMMIT, OFFSET_FETCH, FIND_COORDINATOR, FETCH, PRODUCE -> Optional.empty();
        };
    }

    /** An OffsetFetch rewind hits A's restart, after it committed offsets to rewind. */
    boolean afterARestart() {
        return rewinds() || forgets();
    }

    /** The committed offsets answered lower: A must go back. */
    boolean rewinds() {
        return fault.effect().committedOffsets() == WireFault.CommittedOffsets.LOWERED;
    }

    /** The committed offsets answered as none: A's reset policy decides, so records A has not applied yet wait for it in the topic. */
    boolean forgets() {
        return fault.effect().committedOffsets() == WireFault.CommittedOffsets.FORGOTTEN;
    }

    /** The cell's part of experiment and namespace names: the spec with only the characters a namespace takes. */
    String id() {
        return fault.spec().replace(':', '.').replace('=', '-').replace('@', '-');
    }

    @Override
    public String toString() {
        return fault.spec();
    }
}
