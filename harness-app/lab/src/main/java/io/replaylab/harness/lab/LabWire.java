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

    LabWire(WireProxy proxy) {
        this.proxy = proxy;
    }

    /** What the subjects are given as {@code {bootstrap}}. */
    public String bootstrapServers() {
        return proxy.bootstrapServers();
    }

    /** What the proxy saw of the subjects' groups. */
    public WireWitness witness() {
        return proxy.witness();
    }

    /** Arms a fault on the subjects' requests (see {@link WireProxy#inject}). */
    public ArmedFault inject(WireFault fault) {
        return proxy.inject(fault);
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
