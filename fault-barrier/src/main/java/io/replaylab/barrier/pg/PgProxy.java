package io.replaylab.barrier.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierSource;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.PgPoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL protocol proxy on loopback: a consumer connects to it instead of the server, and it
 * forwards every message both ways, reading the frontend/backend protocol (version 3, simple and
 * extended query) far enough to find a transaction's {@code COMMIT} and the server's answer to it. A
 * client that asks for TLS ({@code SSLRequest}) or GSS encryption is answered "no" and goes on in
 * plaintext, as {@code sslmode=prefer} does on loopback; one that insists on TLS is refused by its own
 * client. As a {@link BarrierSource} it holds a session's {@code COMMIT} ({@link PgPoint}): the
 * connection that carries it waits (its later messages behind it), the others run on.
 *
 * <pre>{@code
 * try (PgProxy proxy = PgProxy.start("127.0.0.1", 5432)) {
 *     Barrier b = proxy.arm("before-db-commit", PgPoint.beforeCommit("lab"), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
 *     // the consumer connects to 127.0.0.1:proxy.port(); its next COMMIT on database lab is held
 *     Arrival a = b.awaitArrival(Duration.ofSeconds(30));
 *     b.release();
 * }
 * }</pre>
 */
public final class PgProxy implements BarrierSource<PgPoint> {
    private static final Logger log = LoggerFactory.getLogger(PgProxy.class);

    private final InetSocketAddress upstream;
    private final ServerSocket listener;
    private final List<PgConnection> connections = new CopyOnWriteArrayList<>();
    private final List<PgHold> armed = new CopyOnWriteArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final AtomicInteger encryptionDeclined = new AtomicInteger();
    private final List<ArmedDbFault> faults = new CopyOnWriteArrayList<>();
    private final PgWitness witness = new PgWitness();
    /** Whose a session is, by its client's port (a process on this host); null: its application name says. */
    private volatile java.util.function.IntFunction<String> owners = port -> null;
    private volatile boolean closed;

    private PgProxy(InetSocketAddress upstream, ServerSocket listener) {
        this.upstream = upstream;
        this.listener = listener;
    }

    /** A proxy on a free loopback port that forwards to the server at {@code host}:{@code port}. */
    public static PgProxy start(String host, int port) {
        Objects.requireNonNull(host, "host");
        try {
            ServerSocket s = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
            PgProxy p = new PgProxy(new InetSocketAddress(host, port), s);
            Thread accept = new Thread(p::acceptLoop, "pg-proxy-accept-" + s.getLocalPort());
            accept.setDaemon(true);
            accept.start();
            log.info("PostgreSQL proxy on 127.0.0.1:{} forwarding to {}:{}", s.getLocalPort(), host, port);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the PostgreSQL proxy's port", e);
        }
    }

    /** The host clients connect to. */
    public String host() {
        return "127.0.0.1";
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** How many times a client asked for TLS or GSS encryption and was answered "no" (it went on in plaintext, or gave up). */
    public int encryptionDeclined() {
        return encryptionDeclined.get();
    }

    /**
     * Arms a one-shot barrier at {@code point}: the first COMMIT (or its answer) of a session on the point's database is
     * held on its connection until the barrier is released; {@code mode} is the connection's whatever was asked.
     */
    @Override
    public Barrier arm(String name, PgPoint point, HoldMode mode, BarrierListener listener, BarrierOptions options) {
        Objects.requireNonNull(point, "point");
        Barrier b = Barrier.arm(name, listener, options);
        armed.add(new PgHold(point, b));
        return b;
    }

    /** What the proxy saw of its sessions' transactions. */
    public PgWitness witness() {
        return witness;
    }

    /**
     * Tells the proxy whose a session is, from its client's port (e.g. the instance whose process holds that socket); a
     * session it names no one for is its application name's. Asked once per session, at its start.
     */
    public void owners(java.util.function.IntFunction<String> byClientPort) {
        this.owners = Objects.requireNonNull(byClientPort, "byClientPort");
    }

    /** Arms {@code fault}: it fires once, at the first transaction of the sessions it is aimed at ({@link DbFault#at}). */
    public ArmedDbFault inject(DbFault fault) {
        ArmedDbFault armed = new ArmedDbFault(Objects.requireNonNull(fault, "fault"), this);
        faults.add(armed);
        log.info("PostgreSQL proxy: armed {}", fault.meaning());
        return armed;
    }

    /** Whether any fault is armed: a statement is looked at for one only then. */
    boolean faultsArmed() {
        return !faults.isEmpty();
    }

    void disarm(ArmedDbFault f) {
        faults.remove(f);
    }

    /** The fault a session of {@code owner} meets at a COMMIT ({@code atCommit}) or a statement before it, taken off the list: one-shot. */
    ArmedDbFault takeFault(String owner, boolean atCommit) {
        for (ArmedDbFault f : faults) {
            if (f.fault().atCommit() == atCommit && f.aims(owner) && faults.remove(f)) {
                return f;
            }
        }
        return null;
    }

    /** Whose the session from {@code clientPort} is, or null: its application name says. */
    String ownerOf(int clientPort) {
        try {
            return owners.apply(clientPort);
        } catch (RuntimeException e) {
            log.debug("cannot tell whose port {} is: {}", clientPort, e.toString());
            return null;
        }
    }

    /** The armed holds a COMMIT (or its answer) of a session on {@code database} may meet, oldest first; holds no longer armed go. */
    List<PgHold> holds(PgPoint.Edge edge, String database) {
        if (armed.isEmpty()) {
            return List.of(); // every COMMIT of every session asks: nothing to sort out while nothing is armed
        }
        armed.removeIf(h -> h.barrier().state() != io.replaylab.barrier.BarrierState.ARMED);
        return armed.stream().filter(h -> h.point().edge() == edge && h.point().covers(database)).toList();
    }

    /**
     * The client of the session {@code held} holds is gone (killed): its connections close both ways, as a dead client's
     * would, and what the barrier holds never goes on. The server rolls an open transaction back (a COMMIT held before it
     * saw it), or has committed already (an answer held). False when {@code held} holds no session now.
     */
    public boolean sever(Barrier held) {
        boolean any = false;
        for (PgConnection c : connections) {
            if (c.heldBy(held)) {
                log.info("{}: the client is gone; both sides closed, the held message dropped", c);
                c.close();
                any = true;
            }
        }
        return any;
    }

    /** A hold whose barrier took a session's arrival: one-shot. */
    void taken(PgHold h) {
        armed.remove(h);
    }

    void declinedEncryption() {
        encryptionDeclined.incrementAndGet();
    }

    void ended(PgConnection c) {
        connections.remove(c);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                try {
                    server.connect(upstream, 10_000);
                } catch (IOException e) {
                    log.warn("PostgreSQL proxy: cannot reach {}: {}", upstream, e.toString());
                    client.close();
                    continue;
                }
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                PgConnection c = new PgConnection(ids.incrementAndGet(), client, server, this);
                connections.add(c);
                c.start();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("PostgreSQL proxy: accept failed: {}", e.toString());
                }
            }
        }
    }

    /** Stops listening, releases what it holds and closes every connection. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
        for (PgHold h : armed) {
            try {
                h.barrier().expire();
            } catch (RuntimeException movedMeanwhile) {
                // held or expired already: its own state says so
            }
        }
        armed.clear();
        for (PgConnection c : connections) {
            c.close();
            c.releaseHeld(); // a direction thread held at a point goes (its sockets are closed: it ends)
        }
    }
}
