package io.replaylab.barrier.pg;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A database fault armed in the proxy ({@link PgProxy#inject}): it fires once, then is done. */
public final class ArmedDbFault {
    private final DbFault fault;
    private final PgProxy proxy;
    private final CountDownLatch fired = new CountDownLatch(1);
    private final List<DbFaultFiring> firings = new CopyOnWriteArrayList<>();

    ArmedDbFault(DbFault fault, PgProxy proxy) {
        this.fault = fault;
        this.proxy = proxy;
    }

    public DbFault fault() {
        return fault;
    }

    /** The firing, once it fired, waiting up to {@code timeout}. */
    public Optional<DbFaultFiring> awaitFiring(Duration timeout) throws InterruptedException {
        fired.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        return firings.isEmpty() ? Optional.empty() : Optional.of(firings.get(0));
    }

    /** Its firing so far (none or one). */
    public List<DbFaultFiring> firings() {
        return List.copyOf(firings);
    }

    /** It fires no more (whether it fired or not). */
    public void disarm() {
        proxy.disarm(this);
    }

    /** Whether a session of {@code owner} meets it. */
    boolean aims(String owner) {
        return fault.owner() == null || fault.owner().equals(owner);
    }

    void fired(DbFaultFiring f) {
        firings.add(f);
        fired.countDown();
    }
}
