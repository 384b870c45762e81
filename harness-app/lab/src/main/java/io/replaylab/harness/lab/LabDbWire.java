package io.replaylab.harness.lab;

import io.replaylab.barrier.pg.ArmedDbFault;
import io.replaylab.barrier.pg.DbFault;
import io.replaylab.barrier.pg.PgProxy;
import io.replaylab.barrier.pg.PgWitness;

/**
 * The run's PostgreSQL proxy as experiments use it: where the subjects' sessions go. Holding A at a
 * COMMIT there is the barrier room's alone ({@link #barrier()}: an architecture test keeps every
 * other class from it).
 */
public final class LabDbWire {
    private final PgProxy proxy;

    LabDbWire(PgProxy proxy) {
        this.proxy = proxy;
    }

    /** The address the subjects connect to, {@code host:port}. */
    public String address() {
        return proxy.host() + ":" + proxy.port();
    }

    /** How many times a subject asked for TLS or GSS encryption and was told "no" (it went on in plaintext, or gave up). */
    public int encryptionDeclined() {
        return proxy.encryptionDeclined();
    }

    /** What the proxy saw of every session's transactions (whose, how each ended, what it ran). */
    public PgWitness witness() {
        return proxy.witness();
    }

    /** Arms a database fault on the subjects' sessions (see {@link PgProxy#inject}). */
    public ArmedDbFault inject(DbFault fault) {
        return proxy.inject(fault);
    }

    /** The proxy as a barrier technology (it arms a point, and severs a held session whose client was killed): for the barrier room's database points only. */
    public PgProxy barrier() {
        return proxy;
    }
}
