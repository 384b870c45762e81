package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link WireFault} armed on a proxy: it counts the requests that match its target and fires on
 * the one it aims at (or on every one), until {@link #disarm}ed or the proxy closes. Each firing is
 * recorded with what the request said, what the proxy did, and what the client sent next.
 */
public final class ArmedFault {
    private static final Logger log = LoggerFactory.getLogger(ArmedFault.class);

    /** How many of the client's next requests a firing keeps. */
    public static final int AFTER = 8;

    private final WireFault fault;
    private final List<Firing> firings = new ArrayList<>();
    private final List<Consumer<FaultFiring>> listeners = new CopyOnWriteArrayList<>();
    private int matched;
    private volatile boolean disarmed;
    /** Set with the first firing: until then {@link #observe} has nothing to do, and takes no lock to know it. */
    private volatile boolean fired;

    private final Runnable onDisarm;

    ArmedFault(WireFault fault, Runnable onDisarm) {
        this.fault = Objects.requireNonNull(fault, "fault");
        this.onDisarm = onDisarm;
    }

    public WireFault fault() {
        return fault;
    }

    /** Requests that matched the target so far (fired or not). */
    public synchronized int matched() {
        return matched;
    }

    /** Every firing so far, with what the client did next as far as seen; one whose effect is still under way says {@code pending}. */
    public synchronized List<FaultFiring> firings() {
        return firings.stream().map(Firing::snapshot).toList();
    }

    /** The first firing whose effect is done (the client got the error, the answer was dropped, held or rewound), waiting up to {@code timeout}. */
    public Optional<FaultFiring> awaitFiring(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (true) {
                Optional<FaultFiring> done = firings.stream().map(Firing::snapshot).filter(x -> !x.done().equals(PENDING)).findFirst();
                long left = deadline - System.nanoTime();
                if (done.isPresent() || left <= 0) {
                    return done;
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** What a firing's {@link FaultFiring#done()} says while its effect is under way. */
    public static final String PENDING = "pending";

    /** Called once per firing, when the proxy has done what the effect says (on a proxy thread: keep it short). */
    public void onFiring(Consumer<FaultFiring> listener) {
        listeners.add(listener);
    }

    /** Fires no more, and the proxy stops asking it; what it fired stays recorded. */
    public void disarm() {
        disarmed = true;
        onDisarm.run();
    }

    public boolean disarmed() {
        return disarmed;
    }

    // ---- package-private: the connections' side

    /** What a connection does with a request this fault fired on. */
    record Action(ArmedFault fault, Firing firing, WireFault.Effect effect, ByteBuffer answer) {
    }

    /** This fault's decision on a request: null when it does not fire. */
    Action match(Connection c, Connection.Frame f, String clientId) {
        WireFault.Target t = fault.target();
        if (disarmed || f.key() != t.api().key || t.clientId() != null && !t.clientId().equals(clientId)) {
            return null;
        }
        ByteBuffer body = f.body();
        Named named = t.api().namesGroup() || t.memberId() != null ? namedIn(f, body) : Named.NONE;
        String group = t.api().namesGroup() ? named.group() : null;
        if (t.group() != null && t.api().namesGroup() && !t.group().equals(group)) {
            return null;
        }
        if (t.memberId() != null && !t.memberId().equals(named.member())) {
            return null;
        }
        int n;
        synchronized (this) {
            n = ++matched;
            if (t.nth() != 0 && n != t.nth()) {
                return null;
            }
        }
        String request = f.key().name + " v" + f.version() + " correlation " + f.correlationId() + (group == null ? "" : " group " + group)
                + (f.commit() == null ? "" : " member " + f.commit().memberId() + " generation " + f.commit().generation() + " " + f.commit().offsetsText());
        ByteBuffer answer = null;
        Optional<Errors> error = fault.effect().answeredError();
        if (fault.effect().answersAsALiveMember()) {
            answer = liveAnswer(f, body, c.proxy().witness());
        } else if (error.isPresent()) {
            answer = errorAnswer(f, body, error.get()); // first: a request that takes no answer (acks=0 Produce) is no firing
            if (answer == null) {
                log.info("fault {} passes {} on {}: that request takes no answer to replace", fault.spec(), request, c);
                return null;
            }
        }
        Firing firing = new Firing(n, Instant.now(), c.toString(), clientId == null ? "" : clientId, f.key(), request, c.proxy().newestConnection());
        synchronized (this) {
            firings.add(firing);
            fired = true;
        }
        log.info("fault {} fired at {} on {}", fault.spec(), request, c);
        return new Action(this, firing, fault.effect(), answer);
    }

    /** After a firing, the client's next requests; the first on a connection opened after the firing says so. */
    void observe(String clientId, Connection c, Connection.Frame f) {
        if (!fired) {
            return;
        }
        List<Firing> mine;
        synchronized (this) {
            mine = List.copyOf(firings);
        }
        for (Firing x : mine) {
            if (x.clientId.equals(clientId == null ? "" : clientId)) {
                x.newConnection(c);
                x.after(new FaultFiring.Step.RequestSent(f.key(), f.version(), f.commit() == null ? "" : f.commit().offsetsText(), 1));
            }
        }
    }

    /** After a firing, a connection of the client closed. */
    void closed(String clientId, String connection, boolean byProxy) {
        List<Firing> mine;
        synchronized (this) {
            mine = List.copyOf(firings);
        }
        for (Firing x : mine) {
            if (x.clientId.equals(clientId == null ? "" : clientId)) {
                x.after(new FaultFiring.Step.ConnectionClosed(connection, byProxy));
            }
        }
    }

    /** The proxy did what the effect says: the firing is complete, and listeners hear of it. */
    void done(Firing firing, String what) {
        firing.done(what);
        synchronized (this) {
            notifyAll();
        }
        FaultFiring s = firing.snapshot();
        for (Consumer<FaultFiring> l : listeners) {
            try {
                l.accept(s);
            } catch (RuntimeException e) {
                log.warn("a fault listener failed on {}: {}", s.summary(), e.toString());
            }
        }
    }

    /** The error answer, built by the request's own class for its version (per partition where the API answers so), with the request's correlation id. */
    private static ByteBuffer errorAnswer(Connection.Frame f, ByteBuffer body, Errors error) {
        AbstractRequest request = AbstractRequest.parseRequest(f.key(), f.version(), new ByteBufferAccessor(body.duplicate())).request;
        AbstractResponse response = request.getErrorResponse(0, error.exception());
        if (response == null) {
            return null;
        }
        return frame(f.correlationId(), f.key().responseHeaderVersion(f.version()), response.data(), f.version());
    }

    /**
     * The answer the coordinator gives a live member's heartbeat: no error; for the consumer
     * protocol the member's own id and epoch, the heartbeat interval it was last given, and no
     * assignment (null: unchanged).
     */
    private static ByteBuffer liveAnswer(Connection.Frame f, ByteBuffer body, WireWitness witness) {
        ApiMessage answer;
        if (f.key() == org.apache.kafka.common.protocol.ApiKeys.CONSUMER_GROUP_HEARTBEAT) {
            ConsumerGroupHeartbeatRequestData d = new ConsumerGroupHeartbeatRequestData(new ByteBufferAccessor(body.duplicate()), f.version());
            answer = new ConsumerGroupHeartbeatResponseData().setMemberId(d.memberId()).setMemberEpoch(d.memberEpoch())
                    .setHeartbeatIntervalMs(witness.heartbeatInterval(d.groupId(), d.memberId(), 5000));
        } else {
            answer = new HeartbeatResponseData();
        }
        return frame(f.correlationId(), f.key().responseHeaderVersion(f.version()), answer, f.version());
    }

    /** A whole response frame: size, header, body. */
    static ByteBuffer frame(int correlationId, short headerVersion, ApiMessage body, short version) {
        ByteBuffer h = MessageUtil.toByteBufferAccessor(new ResponseHeaderData().setCorrelationId(correlationId), headerVersion).buffer();
        ByteBuffer b = MessageUtil.toByteBufferAccessor(body, version).buffer();
        h.rewind();
        b.rewind();
        ByteBuffer out = ByteBuffer.allocate(4 + h.remaining() + b.remaining());
        out.putInt(h.remaining() + b.remaining()).put(h).put(b);
        return out.flip();
    }

    /** The group and the member a request names (null: none, or unreadable), read once. */
    private record Named(String group, String member) {
        static final Named NONE = new Named(null, null);
    }

    private static Named namedIn(Connection.Frame f, ByteBuffer body) {
        if (f.commit() != null) {
            return new Named(f.commit().group(), f.commit().memberId());
        }
        try {
            ByteBufferAccessor in = new ByteBufferAccessor(body.duplicate());
            return switch (f.key()) {
                case OFFSET_FETCH -> {
                    OffsetFetchRequestData d = new OffsetFetchRequestData(in, f.version());
                    yield new Named(d.groups().isEmpty() ? d.groupId() : d.groups().get(0).groupId(), null);
                }
                case HEARTBEAT -> {
                    HeartbeatRequestData d = new HeartbeatRequestData(in, f.version());
                    yield new Named(d.groupId(), d.memberId());
                }
                case JOIN_GROUP -> {
                    JoinGroupRequestData d = new JoinGroupRequestData(in, f.version());
                    yield new Named(d.groupId(), d.memberId());
                }
                case SYNC_GROUP -> {
                    SyncGroupRequestData d = new SyncGroupRequestData(in, f.version());
                    yield new Named(d.groupId(), d.memberId());
                }
                case CONSUMER_GROUP_HEARTBEAT -> {
                    ConsumerGroupHeartbeatRequestData d = new ConsumerGroupHeartbeatRequestData(in, f.version());
                    yield new Named(d.groupId(), d.memberId());
                }
                case FIND_COORDINATOR -> {
                    FindCoordinatorRequestData d = new FindCoordinatorRequestData(in, f.version());
                    // a transaction coordinator's key is no group
                    yield d.keyType() != 0 ? Named.NONE : new Named(d.coordinatorKeys().isEmpty() ? d.key() : d.coordinatorKeys().get(0), null);
                }
                default -> Named.NONE;
            };
        } catch (RuntimeException e) {
            return Named.NONE;
        }
    }

    /** One firing while it is filled in. */
    static final class Firing {
        private final int match;
        private final Instant at;
        private final String connection;
        private final String clientId;
        private final org.apache.kafka.common.protocol.ApiKeys api;
        private final String request;
        private final List<FaultFiring.Step> after = new ArrayList<>();
        /** Connections with a higher id were opened after the firing. */
        private final int newestAtFiring;
        private final Set<Integer> opened = new HashSet<>();
        private String done = PENDING;

        Firing(int match, Instant at, String connection, String clientId, org.apache.kafka.common.protocol.ApiKeys api, String request, int newestAtFiring) {
            this.match = match;
            this.at = at;
            this.connection = connection;
            this.clientId = clientId;
            this.api = api;
            this.request = request;
            this.newestAtFiring = newestAtFiring;
        }

        /** The client's first request on a connection opened after the firing. */
        synchronized void newConnection(Connection c) {
            if (c.id > newestAtFiring && opened.add(c.id)) {
                after(new FaultFiring.Step.ConnectionOpened(c.toString()));
            }
        }

        /** The same request again right after itself is counted, not listed: a subject that commits per record sends hundreds. */
        synchronized void after(FaultFiring.Step step) {
            int last = after.size() - 1;
            if (last >= 0 && after.get(last) instanceof FaultFiring.Step.RequestSent prev && step instanceof FaultFiring.Step.RequestSent next
                    && prev.repeats(next)) {
                after.set(last, prev.again());
                return;
            }
            if (after.size() < AFTER) {
                after.add(step);
            }
        }

        synchronized void done(String what) {
            done = what;
        }

        synchronized FaultFiring snapshot() {
            return new FaultFiring(match, at, connection, clientId, api, request, done, after);
        }
    }
}
