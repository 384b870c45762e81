package io.replaylab.harness.lab;

import io.replaylab.barrier.BarrierSource;
import io.replaylab.barrier.WirePoint;
import io.replaylab.barrier.wire.ArmedFault;
import io.replaylab.barrier.wire.CommitCheck;
import io.replaylab.barrier.wire.WireFault;
import io.replaylab.barrier.wire.WireProxy;
import io.replaylab.barrier.wire.WireWitness;

/**
 * The run's Kafka protocol proxy as experiments use it: the address the subjects get, what it
 * witnessed, the faults and the live checks it carries. Holding A at a point on the wire is the
 * barrier room's alone ({@link #barrier()}: an architecture test keeps every other class from it).
 */
public final class LabWire {
    private final WireProxy proxy;
    /** The heartbeat withholdings armed: one per member and API, whoever asks for it first. */
    private final java.util.concurrent.ConcurrentHashMap<Withheld, ArmedFault> withheld = new java.util.concurrent.ConcurrentHashMap<>();

    private record Withheld(WireFault.Api api, String group, String member) {
    }

    LabWire(WireProxy proxy) {
        this.proxy = proxy;
    }

    /** What the subjects are given as {@code {bootstrap}}. */
    public String bootstrapServers() {
        return proxy.bootstrapServers();
    }

    /**
     * Why the proxy sees nothing of A while A's group shows {@code seen} (a member, committed offsets) that no request through the
     * proxy made: A was given the proxy as {@code {bootstrap}} and reaches the broker some other way.
     */
    public String wentRound(String seen) {
        return seen + " that no request through the run's wire proxy made: A reaches the broker some other way than the address it was given "
                + "as {bootstrap} (" + bootstrapServers() + "), so the proxy sees none of its requests (does the consumer take its bootstrap "
                + "servers from {bootstrap}?)";
    }

    /** What the proxy saw of the subjects' groups. */
    public WireWitness witness() {
        return proxy.witness();
    }

    /** Arms a fault on the subjects' requests (see {@link WireProxy#inject}). */
    public ArmedFault inject(WireFault fault) {
        return proxy.inject(fault);
    }

    /**
     * The heartbeats of {@code member} of {@code group} withheld (answered as a live member's, never forwarded), so that the
     * coordinator drops it after its session timeout: for the protocol the member joined with, both when the wire did not see it
     * join. One armed fault per member and heartbeat API, shared by whoever asks: the barrier that holds the member arms it at the
     * hold, on the proxy's thread, before any later request of the member is read; the handoff's wait takes the same one over.
     */
    public java.util.List<ArmedFault> withholdHeartbeats(String group, String member) {
        java.util.Optional<io.replaylab.barrier.wire.MemberTimeouts> seen = proxy.witness().timeouts(group, member);
        java.util.List<WireFault.Api> apis = seen.map(t -> java.util.List.of(t.protocol() == io.replaylab.barrier.wire.MemberTimeouts.Protocol.CLASSIC
                ? WireFault.Api.HEARTBEAT : WireFault.Api.CONSUMER_GROUP_HEARTBEAT))
                .orElse(java.util.List.of(WireFault.Api.HEARTBEAT, WireFault.Api.CONSUMER_GROUP_HEARTBEAT));
        return apis.stream().map(api -> withheld.compute(new Withheld(api, group, member), (k, f) -> f == null || f.disarmed()
                ? proxy.inject(new WireFault(WireFault.Target.of(api).group(group).member(member).every(), new WireFault.Effect.Withhold())) : f))
                .toList();
    }

    /** Every heartbeat of {@code group} withheld so far reaches its coordinator again. */
    public void stopWithholding(String group) {
        withheld.forEach((k, f) -> {
            if (k.group().equals(group)) {
                f.disarm();
            }
        });
    }

    /** Checks every commit of {@code group} as it is sent (see {@link WireProxy#checkCommits}). */
    public WireProxy.Checking checkCommits(String group, CommitCheck check) {
        return proxy.checkCommits(group, check);
    }

    /** The proxy as a barrier technology: for the barrier room's wire points only. */
    public BarrierSource<WirePoint> barrier() {
        return proxy;
    }
}
