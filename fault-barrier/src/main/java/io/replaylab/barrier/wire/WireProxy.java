package io.replaylab.barrier.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierSource;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.WirePoint;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka wire-protocol proxy on 127.0.0.1 that sits between any Kafka client (Java, librdkafka,
 * ...) and a broker or cluster. Every frame passes unchanged, in order, with its correlation id,
 * except that broker addresses in Metadata, FindCoordinator, DescribeCluster and the
 * {@code NodeEndpoints} of Produce/Fetch answers are rewritten to the proxy's own ports (one port
 * per upstream node, plus bootstrap), so the client never talks to the broker directly.
 *
 * <p>An armed barrier ({@link #arm}) stops the connection that carries a group's OffsetCommit at
 * that frame: the frame and everything behind it on that connection wait, other connections flow.
 * While it is held, every further OffsetCommit of the same member waits too: librdkafka and the
 * Java client give up a held coordinator connection and send the same commit again on a new one
 * (KAFKA-NOTES §8). On release the held frames go out and the broker's answer is read per
 * partition: ACCEPTED, REJECTED with the error name, or NOT_DELIVERED when the client closed
 * every held connection and sent no retry.
 *
 * <pre>{@code
 * try (WireProxy proxy = WireProxy.start(kafka.bootstrapServers())) {
 *     Barrier b = proxy.arm("offset-commit", "my-group", listener, BarrierOptions.ofDefaults());
 *     // start the consumer with bootstrap.servers = proxy.bootstrapServers()
 *     Arrival a = b.awaitArrival(Duration.ofSeconds(60));   // context: group, member, generation, offsets
 *     b.release();
 *     CallOutcome o = b.awaitOutcome(Duration.ofSeconds(30)).orElseThrow();
 * }
 * }</pre>
 */
public final class WireProxy implements BarrierSource<WirePoint> {
    private static final Logger log = LoggerFactory.getLogger(WireProxy.class);

    /** The broker's own default {@code socket.request.max.bytes}: a larger frame is no Kafka frame. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024;

    private final int maxFrameBytes;
    private final Duration retryGrace;
    private final Listener bootstrap;
    private final Map<Integer, Listener> nodes = new ConcurrentHashMap<>();
    private final Map<Uuid, String> topicNames = new ConcurrentHashMap<>();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final List<CommitGate> gates = new CopyOnWriteArrayList<>();
    private final List<ArmedFault> faults = new CopyOnWriteArrayList<>();
    private final List<Map.Entry<String, CommitCheck>> checks = new CopyOnWriteArrayList<>();
    private final AtomicInteger connectionIds = new AtomicInteger();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong upstreamConnects = new AtomicLong();
    private final AtomicLong inPlaceRewrites = new AtomicLong();
    private static final java.lang.management.ThreadMXBean THREAD_CPU = java.lang.management.ManagementFactory.getThreadMXBean();
    private static final boolean CPU_TIMED = THREAD_CPU.isThreadCpuTimeSupported() && THREAD_CPU.isCurrentThreadCpuTimeSupported();
    /** The connection loops running now, with their thread's CPU time when each began. */
    private final Map<Thread, Long> running = new java.util.HashMap<>();
    private long endedLoopsCpu; // guarded by running
    /** Connection threads, reused: a client that opens a connection per call does not pay for two new threads each time. */
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "wire-proxy");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closed;
    /** Up to 64 MB of read buffers kept for the next connections (a 4 MB Fetch answer needs a 4 MB buffer). */
    private final BufferPool buffers = new BufferPool(64L << 20);
    private final WireWitness witness = new WireWitness(this);
    /** Every upstream host seen so far is as long as {@link Addresses#LOOPBACK}. */
    private volatile boolean inPlace;
    private final InetSocketAddress upstreamBootstrap;
    /** Asks the broker directly for what no answer on the wire says (a partition's log start); made on first use. */
    private Admin admin;
    /** Kafka client properties the admin above takes to reach a broker that needs SASL or TLS (a client's own pass through). */
    private final Map<String, String> upstreamClient;

    private WireProxy(InetSocketAddress upstreamBootstrap, int maxFrameBytes, Duration retryGrace, Map<String, String> upstreamClient) {
        this.upstreamBootstrap = upstreamBootstrap;
        this.upstreamClient = Map.copyOf(upstreamClient);
        this.maxFrameBytes = maxFrameBytes;
        this.retryGrace = retryGrace;
        this.inPlace = upstreamBootstrap.getHostString().length() == Addresses.LOOPBACK.length();
        this.bootstrap = new Listener(-1, upstreamBootstrap);
    }

    /** How long after the client's last close of a connection with a held frame its retry may still come before the commit counts as NOT_DELIVERED. */
    public static final Duration DEFAULT_RETRY_GRACE = Duration.ofSeconds(15);

    /** Starts a proxy for the broker(s) at {@code upstreamBootstrap} ({@code host:port[,host:port...]}; the first is used). */
    public static WireProxy start(String upstreamBootstrap) {
        return start(upstreamBootstrap, DEFAULT_MAX_FRAME_BYTES, DEFAULT_RETRY_GRACE);
    }

    /**
     * As {@link #start(String)} for a broker that needs SASL or TLS: {@code clientProperties} (Kafka client properties:
     * {@code security.protocol}, {@code sasl.*}, {@code ssl.*}) are what the proxy's own requests to the broker take; a
     * client's SASL exchange passes through the proxy as any other request.
     */
    public static WireProxy start(String upstreamBootstrap, Map<String, String> clientProperties) {
        return start(upstreamBootstrap, DEFAULT_MAX_FRAME_BYTES, DEFAULT_RETRY_GRACE, clientProperties);
    }

    /**
     * As {@link #start(String)}, closing any connection whose frame is larger than {@code maxFrameBytes}, and
     * waiting up to {@code retryGrace} from the client's last close of a connection that held a commit for its retry.
     */
    public static WireProxy start(String upstreamBootstrap, int maxFrameBytes, Duration retryGrace) {
        return start(upstreamBootstrap, maxFrameBytes, retryGrace, Map.of());
    }

    private static WireProxy start(String upstreamBootstrap, int maxFrameBytes, Duration retryGrace, Map<String, String> clientProperties) {
        if (maxFrameBytes < 64) {
            throw new IllegalArgumentException("maxFrameBytes must be at least 64, was " + maxFrameBytes);
        }
        if (retryGrace.isNegative()) {
            throw new IllegalArgumentException("retryGrace must not be negative, was " + retryGrace);
        }
        return new WireProxy(address(upstreamBootstrap), maxFrameBytes, retryGrace, clientProperties);
    }

    static InetSocketAddress address(String bootstrap) {
        Objects.requireNonNull(bootstrap, "upstreamBootstrap");
        String first = bootstrap.split(",")[0].trim();
        int colon = first.lastIndexOf(':');
        if (colon <= 0 || colon == first.length() - 1) {
            throw new IllegalArgumentException("upstream bootstrap must be host:port, was '" + bootstrap + "'");
        }
        try {
            return InetSocketAddress.createUnresolved(first.substring(0, colon).replace("[", "").replace("]", ""),
                    Integer.parseInt(first.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("upstream bootstrap must be host:port with a port 1..65535, was '" + bootstrap + "'", e);
        }
    }

    /** What a client puts in {@code bootstrap.servers}: {@code 127.0.0.1:PORT}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + bootstrap.port();
    }

    /** The proxy port that stands for each upstream node id seen so far (from Metadata and coordinator answers). */
    public Map<Integer, Integer> nodePorts() {
        Map<Integer, Integer> out = new TreeMap<>();
        nodes.forEach((id, l) -> out.put(id, l.port()));
        return out;
    }

    /** What the proxy saw: every OffsetCommit with the broker's answer, and who talked through it. */
    public WireWitness witness() {
        return witness;
    }

    /** Requests forwarded (or held) so far, over all connections. */
    public long requestCount() {
        return requests.get();
    }

    /** Client connections accepted so far (each has its own upstream connection). */
    public long connectionCount() {
        return upstreamConnects.get();
    }

    /**
     * Arms a one-shot barrier for the OffsetCommits of the point's group. {@link WirePoint.Edge#REQUEST}:
     * the first one whose context passes {@code options.when()} is held (context keys: {@code group},
     * {@code member}, {@code generation} (the generation or member epoch), {@code offsets} as
     * {@code topic-p=offset,...}, {@code client.id}, {@code api.version}, {@code connection}); later
     * commits of the same member are held with it until release. {@link WirePoint.Edge#ANSWER}: the
     * first commit the broker accepts (it has stored the offsets) has its answer held on the way back,
     * with every later response on that connection, so the client has not seen it; the outcome is
     * ACCEPTED, and a refused commit's answer passes. {@link WirePoint.Request#SHARE_ACKNOWLEDGEMENT}
     * ({@link WirePoint#shareAcknowledgement}): the share group's first request that carries
     * acknowledgements (a ShareAcknowledge, or a ShareFetch with acknowledgement batches) and passes
     * {@code options.when()} is held the same way (context keys: {@code group}, {@code member},
     * {@code session.epoch}, {@code acknowledgements} as {@code topic-p first..last TYPE, ...},
     * {@code api}, {@code client.id}, {@code api.version}, {@code connection}; the arrival's offsets are
     * the acknowledged records' offsets), with the same member's later ones; its outcome is the
     * broker's answer per partition (REJECTED with e.g. {@code INVALID_RECORD_STATE}: the lock had
     * expired). The hold is the connection's whatever {@code mode} says. The safety hold timeout
     * releases it anyway.
     */
    @Override
    public Barrier arm(String point, WirePoint at, HoldMode mode, BarrierListener listener, BarrierOptions options) {
        Objects.requireNonNull(at, "at");
        if (closed) {
            throw new IllegalStateException("the proxy is closed");
        }
        CommitGate gate = new CommitGate(point, at, listener, options, this);
        gates.add(gate);
        return gate.barrier();
    }

    /**
     * Arms a fault: from now on the requests its target names are counted, and the one it aims at
     * (or every one) gets its effect instead of passing as it is. Everything else passes untouched,
     * in order per connection. Faults armed together are asked in the order they were armed; the
     * first that fires decides.
     */
    public ArmedFault inject(WireFault fault) {
        if (closed) {
            throw new IllegalStateException("the proxy is closed");
        }
        ArmedFault[] f = new ArmedFault[1];
        f[0] = new ArmedFault(fault, () -> faults.remove(f[0]));
        faults.add(f[0]);
        return f[0];
    }

    /** A check on a group's commits until closed. */
    public interface Checking extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * From now on every OffsetCommit of {@code group} is shown to {@code check} on its way, before
     * the broker gets it (a commit a barrier holds is shown when it arrives, before the hold); for a
     * share group, every acknowledgement that ACCEPTs records ({@link CommitCheck.Kind#ACKNOWLEDGEMENT}). Not
     * shown: a commit an armed fault fires on (whatever its effect), and one that waits on its
     * connection behind a held commit (it goes out at the release unchecked). Checks of one group run
     * in the order added.
     */
    public Checking checkCommits(String group, CommitCheck check) {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(check, "check");
        Map.Entry<String, CommitCheck> e = Map.entry(group, check);
        checks.add(e);
        return () -> checks.remove(e);
    }

    /** Shows a commit to the checks of its group, on the commit's connection thread: whether one of them stopped its sender. */
    CommitCheck.After check(CommitCheck.Pending commit) {
        CommitCheck.After after = CommitCheck.After.GOES_ON;
        for (Map.Entry<String, CommitCheck> e : checks) {
            if (e.getKey().equals(commit.group())) {
                try {
                    if (e.getValue().check(commit) == CommitCheck.After.SENDER_STOPPED) {
                        after = CommitCheck.After.SENDER_STOPPED;
                    }
                } catch (RuntimeException x) {
                    log.warn("wire proxy: a commit check failed on {}; the commit goes on: {}", commit.connection(), x.toString(), x);
                }
            }
        }
        return after;
    }

    boolean checkingCommits() {
        return !checks.isEmpty();
    }

    /** Releases every held commit (forwarding it), then closes all listeners and connections. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        gates.forEach(CommitGate::releaseOnClose);
        closed = true;
        bootstrap.close();
        nodes.values().forEach(Listener::close);
        connections.forEach(Connection::closeNow);
        gates.forEach(CommitGate::shutdown);
        threads.shutdown(); // each connection's loops end with its sockets
        synchronized (this) {
            if (admin != null) {
                admin.close(Duration.ofSeconds(2));
            }
        }
    }

    // ---- package-private: used by connections and gates

    int maxFrameBytes() {
        return maxFrameBytes;
    }

    Duration retryGrace() {
        return retryGrace;
    }

    /** Read buffers shared by this proxy's connections, one after another. */
    BufferPool buffers() {
        return buffers;
    }

    List<CommitGate> gates() {
        return gates;
    }

    List<ArmedFault> faults() {
        return faults;
    }

    /** Runs a connection's loop on a pooled thread named for it while it runs. */
    void run(String name, Runnable loop) {
        threads.execute(() -> {
            Thread self = Thread.currentThread();
            self.setName(name);
            long cpuAtStart = CPU_TIMED ? THREAD_CPU.getCurrentThreadCpuTime() : 0;
            if (CPU_TIMED) {
                synchronized (running) {
                    running.put(self, cpuAtStart);
                }
            }
            try {
                loop.run();
            } finally {
                if (CPU_TIMED) {
                    synchronized (running) { // a look at cpuTime() sees this loop running or ended, never both or neither
                        endedLoopsCpu += THREAD_CPU.getCurrentThreadCpuTime() - cpuAtStart;
                        running.remove(self);
                    }
                }
                self.setName("wire-proxy-idle");
            }
        });
    }

    /**
     * The CPU time the connections' loops have used so far (both directions of every connection,
     * running or ended): what the proxy itself costs, apart from the client and the broker, and
     * what an armed fault's check of each request adds to. Zero where the JVM cannot measure a
     * thread's CPU time.
     */
    public Duration cpuTime() {
        if (!CPU_TIMED) {
            return Duration.ZERO;
        }
        synchronized (running) {
            long total = endedLoopsCpu;
            for (Map.Entry<Thread, Long> e : running.entrySet()) {
                long now = THREAD_CPU.getThreadCpuTime(e.getKey().getId());
                total += Math.max(0, now - e.getValue());
            }
            return Duration.ofNanos(total);
        }
    }

    /**
     * Whether a broker name rewritten to the proxy's keeps its length ({@code 127.0.0.1} for
     * {@code localhost}, say): then a large answer whose broker names come last can be sent on
     * while it arrives and rewritten in place at its end.
     */
    boolean rewritesInPlace() {
        return inPlace;
    }

    /** Large answers whose front went out as it arrived and whose broker names were rewritten at the end. */
    long inPlaceRewrites() {
        return inPlaceRewrites.get();
    }

    void countInPlaceRewrite() {
        inPlaceRewrites.incrementAndGet();
    }

    void countRequest() {
        requests.incrementAndGet();
    }

    void forget(Connection c) {
        connections.remove(c);
    }

    /**
     * The partition's log start offset, asked of the broker directly (no answer the proxy forwards
     * carries it for a consumer that has not fetched yet); empty when the broker did not say within 5 s.
     */
    OptionalLong logStart(String topic, int partition) {
        TopicPartition tp = new TopicPartition(topic, partition);
        try {
            return OptionalLong.of(admin().listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp).get(5, TimeUnit.SECONDS).offset());
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            log.warn("wire proxy: the log start of {} is unknown: {}", tp, e.toString());
            return OptionalLong.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalLong.empty();
        }
    }

    private synchronized Admin admin() {
        if (closed) {
            throw new IllegalStateException("the proxy is closed");
        }
        if (admin == null) {
            Properties p = new Properties();
            p.putAll(upstreamClient);
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, upstreamBootstrap.getHostString() + ":" + upstreamBootstrap.getPort());
            p.put(AdminClientConfig.CLIENT_ID_CONFIG, "replay-lab-wire-proxy");
            p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000);
            p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
            admin = Admin.create(p);
        }
        return admin;
    }

    int newestConnection() {
        return connectionIds.get();
    }

    String topicName(Uuid id) {
        return topicNames.getOrDefault(id, id.toString());
    }

    void learnTopic(Uuid id, String name) {
        if (id != null && !Uuid.ZERO_UUID.equals(id) && name != null) {
            topicNames.put(id, name);
        }
    }

    /** The proxy port for an upstream node; opens a listener the first time a node is named. */
    int portFor(int nodeId, String host, int port) {
        if (host.length() != Addresses.LOOPBACK.length()) {
            inPlace = false;
        }
        Listener l = nodes.computeIfAbsent(nodeId, id -> new Listener(id, InetSocketAddress.createUnresolved(host, port)));
        l.retarget(InetSocketAddress.createUnresolved(host, port));
        return l.port();
    }

    /** One accept loop: a port on 127.0.0.1 that stands for one upstream address. */
    private final class Listener {
        private final int nodeId;
        private final ServerSocketChannel server;
        private volatile InetSocketAddress target;
        private final int port;

        Listener(int nodeId, InetSocketAddress target) {
            this.nodeId = nodeId;
            this.target = target;
            try {
                server = ServerSocketChannel.open();
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
                port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open a proxy port on 127.0.0.1", e);
            }
            Thread t = new Thread(this::acceptLoop, "wire-proxy-accept-" + (nodeId < 0 ? "bootstrap" : "node" + nodeId));
            t.setDaemon(true);
            t.start();
            log.debug("proxy port {} stands for {} ({})", port, target, nodeId < 0 ? "bootstrap" : "node " + nodeId);
        }

        int port() {
            return port;
        }

        void retarget(InetSocketAddress to) {
            if (!to.equals(target)) {
                log.info("node {} moved from {} to {}", nodeId, target, to);
                target = to;
            }
        }

        private void acceptLoop() {
            while (!closed) {
                SocketChannel client;
                try {
                    client = server.accept();
                } catch (IOException e) {
                    if (!closed) {
                        log.warn("proxy port {} stopped accepting: {}", port(), e.toString());
                    }
                    return;
                }
                InetSocketAddress to = target;
                SocketChannel upstream;
                try {
                    upstream = SocketChannel.open();
                } catch (IOException e) {
                    log.warn("cannot open a socket for a client on proxy port {}: {}", port(), e.toString());
                    closeQuietly(client);
                    continue;
                }
                try {
                    upstream.socket().connect(new InetSocketAddress(to.getHostString(), to.getPort()), 10_000);
                    client.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    upstream.setOption(StandardSocketOptions.TCP_NODELAY, true);
                } catch (IOException e) {
                    log.warn("cannot reach {} for a client on proxy port {}: {}", to, port(), e.toString());
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                upstreamConnects.incrementAndGet();
                Connection c = new Connection(connectionIds.incrementAndGet(), client, upstream, nodeId, WireProxy.this);
                connections.add(c);
                if (closed) {
                    c.close();
                    return;
                }
                c.start();
            }
        }

        void close() {
            closeQuietly(server);
        }
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing on the way out
        }
    }

    /** Snapshot of the held/forwarded commit history of every armed barrier (for tests and evidence). */
    public List<String> commitLog() {
        List<String> out = new ArrayList<>();
        gates.forEach(g -> out.addAll(g.log()));
        return out;
    }
}
