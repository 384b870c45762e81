package io.replaylab.barrier.wire;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.replaylab.barrier.CommitOffset;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection and its own upstream connection. The request side reads whole frames and
 * forwards them (or keeps them while a barrier holds the connection); the response side matches
 * each answer to its request by correlation id (responses keep the broker's order, which is the
 * request order). An answer that names no broker and that no gate observes is piped through as
 * it arrives; one that may name brokers is read whole and rewritten, except that a large Produce
 * or Fetch answer (whose broker names come last) has its front sent while the rest arrives and is
 * rewritten in place when the proxy's names are as long as the broker's.
 */
final class Connection {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);

    /** Bytes at the end of a large Produce or Fetch answer kept back until the whole answer is read and its broker names rewritten. */
    static final int KEPT_TAIL_BYTES = 64 * 1024;

    /** A request frame ({@code bytes}: the whole frame, size prefix included, from position 0), with what its header says. */
    record Frame(ApiKeys key, short version, int correlationId, ByteBuffer bytes, int bodyAt, CommitRequest commit, Witnessed witnessed,
            Consumer<ApiMessage> answerWitness) {
        /** A copy that owns its bytes: for a frame kept while held (the read buffer is reused for the next frame). */
        Frame kept() {
            ByteBuffer copy = ByteBuffer.allocate(bytes.remaining());
            copy.put(bytes.duplicate()).flip();
            return new Frame(key, version, correlationId, copy, bodyAt, commit, witnessed, answerWitness);
        }

        /** The request body, after its header. */
        ByteBuffer body() {
            return bytes.duplicate().position(bodyAt).slice();
        }
    }

    /**
     * What the response side needs to know about a forwarded request: who reads its answer (null: nobody), the commit it carries,
     * and (ApiVersions) whether the client asked in a version newer than the proxy reads, so that its answer is UNSUPPORTED_VERSION.
     */
    private record Pending(ApiKeys key, short version, Consumer<ApiMessage> observer, Witnessed witnessed, ArmedFault.Action fault,
            boolean refuseVersion) {
    }

    final int id;
    private final SocketChannel client;
    private final SocketChannel upstream;
    private final int nodeId;
    private final WireProxy proxy;
    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
    private final Object upstreamWrite = new Object();
    /** What this connection keeps for a gate instead of sending it (held, or waiting for a commit's answer). Guarded by this. */
    private final Kept kept = new Kept();
    private volatile boolean closed;
    private final java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
    /** The response loop has ended: a commit forwarded from now on gets no answer read. */
    private volatile boolean answersDone;
    /** The thread that keeps the upstream side open for a commit's answer after the client closed; interrupted when the answers end. */
    private volatile Thread linger;
    /** A fault closed this connection (not the client). */
    private volatile boolean closedByFault;
    /** The last client id told to the witness (a client sends the same one on every request). */
    private String clientId;
    /**
     * Where answers go: the client, or nowhere once it has closed (the broker's answer to a
     * released commit is still read, so the gate learns what the broker did with it).
     */
    private final WritableByteChannel toClient = new WritableByteChannel() {
        @Override
        public int write(ByteBuffer b) throws IOException {
            if (!closed) {
                try {
                    return client.write(b);
                } catch (IOException e) {
                    if (!closed) {
                        throw e;
                    }
                }
            }
            int n = b.remaining();
            b.position(b.limit());
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
            // the connection closes the socket
        }
    };

    Connection(int id, SocketChannel client, SocketChannel upstream, int nodeId, WireProxy proxy) {
        this.id = id;
        this.client = client;
        this.upstream = upstream;
        this.nodeId = nodeId;
        this.proxy = proxy;
    }

    void start() {
        proxy.run("wire-proxy-c" + id + "-requests", this::requestLoop);
        proxy.run("wire-proxy-c" + id + "-responses", this::responseLoop);
    }

    /** A side's read loop ended: its peer closed (EOF), or a socket error that is news only while the connection is open. */
    private void ended(String side, IOException e) {
        if (e instanceof EOFException) {
            log.debug("{}: {} closed: {}", this, side, e.getMessage());
        } else if (!closed) {
            log.debug("{}: {} side ended: {}", this, side, e.toString());
        }
    }

    @Override
    public String toString() {
        return "connection " + id + " (" + (nodeId < 0 ? "bootstrap" : "node " + nodeId) + ", client port " + client.socket().getPort() + ")";
    }

    private void requestLoop() {
        FrameReader in = new FrameReader(client, proxy.buffers());
        try {
            while (!closed) {
                Frame f = readRequest(in);
                if (f == null) {
                    return;
                }
                proxy.countRequest();
                synchronized (this) {
                    if (kept.keeping()) {
                        kept.add(f);
                        continue;
                    }
                }
                if (!send(f)) {
                    return;
                }
            }
        } catch (IOException e) {
            ended("client", e);
        } finally {
            close();
            in.release();
        }
    }

    /** What the request side does with a frame no barrier keeps: false when a fault closed the connection at it. */
    private boolean send(Frame f) throws IOException {
        if (ApiVersionsClamp.tooNew(f.key(), f.version())) {
            // the broker's ranges are still wanted (clamped, in the refusal): it is asked in version 0, which every broker reads
            askApiVersionsUpstream(f.correlationId(), new Pending(ApiKeys.API_VERSIONS, (short) 0, null, null, null, true));
            return true;
        }
        if (!proxy.faults().isEmpty()) {
            ArmedFault.Action fault = faultOn(proxy.faults(), this, f, clientId);
            if (fault != null) {
                WireFault.AtRequest at = fault.effect().atRequest();
                if (at == WireFault.AtRequest.DISCONNECT) {
                    if (f.witnessed() != null) {
                        f.witnessed().faulted(null);
                    }
                    fault.fault().done(fault.firing(), "closed the connection at it; the request was never forwarded");
                    closedByFault = true;
                    return false;
                }
                if (at == WireFault.AtRequest.ANSWER_IN_ITS_PLACE) {
                    if (f.witnessed() != null) {
                        // the request's answer is the fault's: its error for every partition
                        f.witnessed().faulted(fault.effect().answeredError().map(Enum::name).orElse(fault.effect().spec()));
                    }
                    substitute(f, fault);
                } else {
                    forward(f, null, fault);
                }
                return true;
            }
        }
        Consumer<ApiMessage> observer = null;
        if (f.commit() != null) {
            if (proxy.checkingCommits()) {
                CommitRequest r = f.commit();
                List<CommitOffset> checked = r.isOffsetCommit() ? r.offsets() : r.accepted();
                if (!checked.isEmpty() && proxy.check(new CommitCheck.Pending(r.isOffsetCommit() ? CommitCheck.Kind.OFFSET_COMMIT
                        : CommitCheck.Kind.ACKNOWLEDGEMENT, r.group(), r.memberId(), r.generation(), r.clientId() == null ? "" : r.clientId(),
                        client.socket().getPort(), toString(), checked)) == CommitCheck.After.SENDER_STOPPED) {
                    forward(f, null, null); // its sender is gone: held, it would be dropped with its connection
                    return true;
                }
            }
            CommitGate.Decision d = CommitGate.decide(proxy.gates(), this, f);
            if (d.hold() != null) {
                return true;
            }
            observer = d.observer();
        }
        forward(f, observer, null);
        return true;
    }

    /** One whole request frame, or null when the client closed or (with a log line) when it is not a Kafka request. */
    private Frame readRequest(FrameReader in) throws IOException {
        if (!in.fill(4)) {
            log.debug("{}: client closed", this);
            return null;
        }
        int size = in.peekInt(0);
        if (size < 8 || size > proxy.maxFrameBytes()) {
            log.warn("{}: closing: a request frame of {} bytes is outside 8..{} (not a Kafka client, or a frame larger than the limit)",
                    this, size, proxy.maxFrameBytes());
            return null;
        }
        in.fill(4 + size);
        ByteBuffer bytes = in.take(4 + size);
        ByteBuffer buf = bytes.slice(4, size);
        RequestHeader h;
        try {
            h = RequestHeader.parse(buf);
        } catch (RuntimeException e) {
            log.warn("{}: closing: unparsable request header (api key {}, version {}): {}", this, bytes.getShort(4), bytes.getShort(6), e.toString());
            return null;
        }
        if (h.clientId() != null && !h.clientId().equals(clientId)) {
            clientId = h.clientId();
            proxy.witness().client(clientId);
        }
        CommitRequest commit = null;
        Witnessed witnessed = null;
        Consumer<ApiMessage> answerWitness = null;
        if (h.apiKey() == ApiKeys.SHARE_FETCH || h.apiKey() == ApiKeys.SHARE_ACKNOWLEDGE) {
            try {
                ShareRequest share = ShareRequest.parse(buf, h, proxy::topicName);
                ShareWitness.Exchange exchange = proxy.witness().share().sent(this, share);
                if (share.acks().isEmpty()) {
                    answerWitness = exchange::answered; // the records it acquires
                } else {
                    commit = CommitRequest.of(share); // a share acknowledgement: a gate may hold it
                    witnessed = exchange;
                }
            } catch (RuntimeException e) {
                log.warn("{}: the share witness could not read a {} v{} request (correlation {}); forwarded unwatched: {}", this, h.apiKey(),
                        h.apiVersion(), h.correlationId(), e.toString());
            }
        } else if (h.apiKey() == ApiKeys.OFFSET_COMMIT) {
            try {
                commit = CommitRequest.parse(buf, h, proxy::topicName);
            } catch (RuntimeException e) {
                log.warn("{}: closing: unparsable OffsetCommit v{} (correlation {}): {}", this, h.apiVersion(), h.correlationId(), e.toString());
                return null;
            }
            witnessed = proxy.witness().sent(this, commit);
        }
        if (answerWitness == null) {
            answerWitness = WitnessedRequests.of(proxy, h, buf, this);
        }
        in.shrink();
        return new Frame(h.apiKey(), h.apiVersion(), h.correlationId(), bytes, 4 + buf.position(), commit, witnessed, answerWitness);
    }

    /**
     * The armed faults hear of this request (what a client sends after a firing), and the first that
     * fires on it decides. Static, on its inputs alone: {@code ArmedFaultCheckBenchmark} measures this
     * very path, what an armed fault that does not fire costs each request.
     */
    static ArmedFault.Action faultOn(List<ArmedFault> faults, Connection c, Frame f, String clientId) {
        for (ArmedFault af : faults) {
            af.observe(clientId, c, f);
        }
        for (ArmedFault af : faults) {
            try {
                ArmedFault.Action a = af.match(c, f, clientId);
                if (a != null) {
                    return a;
                }
            } catch (RuntimeException e) {
                log.warn("{}: fault {} could not act on a {} v{} request; forwarded as it is: {}", c, af.fault().spec(), f.key(), f.version(), e.toString());
            }
        }
        return null;
    }

    /**
     * An error fault: the broker gets an ApiVersions request under the same correlation id instead
     * (harmless, and its answer keeps this connection's answers in order), and the client gets the
     * fault's error answer in its place.
     */
    private void substitute(Frame f, ArmedFault.Action fault) throws IOException {
        askApiVersionsUpstream(f.correlationId(), new Pending(ApiKeys.API_VERSIONS, (short) 0, null, null, fault, false));
    }

    /** Sends the broker an ApiVersions v0 request under {@code correlationId}: its answer takes that request's place in the answers' order. */
    private void askApiVersionsUpstream(int correlationId, Pending answer) throws IOException {
        RequestHeader h = new RequestHeader(ApiKeys.API_VERSIONS, (short) 0, clientId, correlationId);
        ByteBuffer header = org.apache.kafka.common.protocol.MessageUtil.toByteBufferAccessor(h.data(), h.headerVersion()).buffer();
        header.rewind();
        ByteBuffer frame = ByteBuffer.allocate(4 + header.remaining());
        frame.putInt(header.remaining()).put(header).flip();
        pending.put(correlationId, answer);
        synchronized (upstreamWrite) {
            FrameReader.writeFully(upstream, frame);
        }
    }

    private void forward(Frame f, Consumer<ApiMessage> gate, ArmedFault.Action fault) throws IOException {
        Consumer<ApiMessage> observer = f.answerWitness();
        if (f.witnessed() != null) {
            Witnessed w = f.witnessed();
            observer = m -> {
                w.answered(m); // first: a gate may hold this thread with the answer
                if (gate != null) {
                    gate.accept(m);
                }
            };
        }
        pending.put(f.correlationId(), new Pending(f.key(), f.version(), observer, f.witnessed(), fault, false));
        try {
            synchronized (upstreamWrite) {
                FrameReader.writeFully(upstream, f.bytes().duplicate());
            }
        } catch (IOException e) {
            if (f.witnessed() != null) {
                f.witnessed().unanswered();
            }
            throw e;
        }
        if (answersDone && f.witnessed() != null) {
            f.witnessed().unanswered(); // the response loop ended while this was on its way: nobody reads its answer
        }
    }

    /**
     * Called by a gate that will hold the broker's answer to the commit this connection forwards next, if the broker accepts it:
     * until that answer, the later frames wait, so that none reaches the broker (a heartbeat above all) in the commit's round
     * trip and then is held from the client behind its answer, as a connection stalled both ways would not let it.
     */
    synchronized void defer(CommitGate gate) {
        kept.defer(gate);
    }

    /** The gate holds the answer: the frames kept meanwhile are held with it, until {@link #releaseHeld}. */
    synchronized void holdDeferred(CommitGate gate) {
        kept.holdDeferred(gate);
    }

    /** The gate does not hold the answer: the frames kept meanwhile go on, in order, as if they had just been read. */
    synchronized void flow(CommitGate gate) {
        List<Frame> frames = kept.deferringFor(gate) ? kept.take(gate) : null;
        if (frames == null) {
            return;
        }
        try {
            for (Frame f : frames) {
                if (kept.keeping()) {
                    kept.add(f); // one of them began another wait
                } else if (!send(f)) {
                    close();
                    return;
                }
            }
        } catch (IOException e) {
            log.warn("{}: the frames kept for a commit's answer could not be sent upstream: {}", this, e.toString());
            close();
        }
    }

    /** Called by a gate: from now on this connection keeps every frame, starting with {@code first}. */
    synchronized void hold(CommitGate gate, Frame first) {
        kept.hold(gate, first);
        if (closed) {
            dropHeld();
        }
    }

    /**
     * Called by a gate on release: sends the kept frames in order (each commit observed as the gate
     * says), then flows. False when there was nothing to send (the client closed this connection).
     */
    synchronized boolean releaseHeld(CommitGate gate) {
        List<Frame> frames = kept.take(gate);
        if (frames == null) {
            return false;
        }
        try {
            for (Frame f : frames) {
                forward(f, f.commit() == null ? null : gate.observerFor(this, f), null);
            }
        } catch (IOException e) {
            log.warn("{}: the released frames could not be sent upstream: {}", this, e.toString());
            close();
        }
        return true;
    }

    /** The answer the response loop is reading (its pending entry is already taken), or null. Response thread only. */
    private Pending reading;

    private void responseLoop() {
        FrameReader in = new FrameReader(upstream, proxy.buffers());
        try {
            while (!closed || awaitsObservedAnswer()) {
                if (!in.fill(8)) {
                    log.debug("{}: broker closed", this);
                    return;
                }
                int size = in.peekInt(0);
                if (size < 4 || size > proxy.maxFrameBytes()) {
                    log.warn("{}: closing: a response frame of {} bytes is outside 4..{}", this, size, proxy.maxFrameBytes());
                    return;
                }
                int length = 4 + size;
                int correlationId = in.peekInt(4); // the first field of every response header
                Pending p = pending.remove(correlationId);
                reading = p;
                if (p == null) {
                    log.warn("{}: a response with correlation id {} that no forwarded request carries; passed on unchanged", this, correlationId);
                }
                if (p != null && p.fault() != null) {
                    in.fill(length);
                    faulted(p, in.take(length));
                    in.shrink();
                    reading = null;
                    continue;
                }
                if (p == null || p.observer() == null && !Addresses.mayCarryAddresses(p.key(), p.version()) && p.key() != ApiKeys.API_VERSIONS) {
                    in.pipe(length, toClient);
                    continue;
                }
                int sent = 0;
                if (p.observer() == null && Addresses.namesBrokersLast(p.key()) && length > KEPT_TAIL_BYTES && proxy.rewritesInPlace()) {
                    sent = in.fillSending(length, KEPT_TAIL_BYTES, toClient);
                } else {
                    in.fill(length);
                }
                ByteBuffer frame = in.take(length);
                ByteBuffer rewritten = answer(p, frame);
                ByteBuffer rest = Addresses.restAfter(frame, rewritten, sent);
                if (rest == null) {
                    log.warn("{}: closing: a {} v{} answer of {} bytes names a broker whose address does not fit in place"
                            + " and its first {} bytes were already sent; the client reconnects and asks again", this, p.key(), p.version(), length, sent);
                    return;
                }
                if (rewritten != null && sent > 0) {
                    proxy.countInPlaceRewrite();
                }
                FrameReader.writeFully(toClient, rest);
                in.shrink();
                reading = null;
            }
        } catch (IOException e) {
            ended("broker", e);
        } finally {
            close();
            WireProxy.closeQuietly(upstream);
            in.release();
            answersDone = true;
            if (reading != null && reading.witnessed() != null) {
                reading.witnessed().unanswered(); // the broker closed in the middle of its answer
            }
            pending.values().stream().map(Pending::witnessed).filter(java.util.Objects::nonNull).forEach(Witnessed::unanswered);
            Thread l = linger;
            if (l != null) {
                l.interrupt();
            }
        }
    }

    /** The answer to a request a fault fired on: replaced, dropped, held, or rewound, as the effect says. */
    private void faulted(Pending p, ByteBuffer frame) throws IOException {
        try {
            ByteBuffer answer = frame.duplicate();
            p.fault().effect().atAnswer(new AnsweredFault(this, p.fault(), p.key(), p.version(), answer, () -> answer(p, answer)));
        } catch (RuntimeException e) {
            log.warn("{}: fault {} could not act on a {} v{} answer; passed on as it came: {}", this, p.fault().fault().fault().spec(), p.key(),
                    p.version(), e.toString());
            p.fault().fault().done(p.fault().firing(), "could not act on the answer (" + e + "); it was passed on as it came");
            if (p.fault().effect().atRequest() == WireFault.AtRequest.FORWARD) { // the broker's answer is still the client's
                FrameReader.writeFully(toClient, frame);
            }
        }
    }

    /** Sends {@code out} to the client as the answer in its turn. */
    void sendToClient(ByteBuffer out) throws IOException {
        FrameReader.writeFully(toClient, out);
    }

    /** A fault's effect closes this connection (the client's side with it). */
    void closeByFault() {
        closedByFault = true;
        close();
    }

    WireProxy proxy() {
        return proxy;
    }

    /** A commit was forwarded and its answer has not come yet. */
    private boolean awaitsObservedAnswer() {
        return pending.values().stream().anyMatch(p -> p.witnessed() != null);
    }

    /**
     * Shows a commit's answer to its observer and rewrites broker addresses where the answer names
     * them: the rewritten frame, or null when the client gets the bytes as read.
     */
    private ByteBuffer answer(Pending p, ByteBuffer frame) {
        if (p.observer() != null) {
            try {
                ByteBuffer body = frame.slice(4, frame.remaining() - 4);
                ResponseHeader.parse(body, p.key().responseHeaderVersion(p.version()));
                ApiMessage response = ApiMessageType.fromApiKey(p.key().id).newResponse();
                response.read(new ByteBufferAccessor(body), p.version());
                p.observer().accept(response);
            } catch (RuntimeException e) {
                log.warn("{}: could not read a {} v{} response ({}); passed on unchanged", this, p.key(), p.version(), e.toString());
                if (p.key() == ApiKeys.FETCH) {
                    // what this answer delivered is unknown: no watch may judge a replay on what it did not see
                    proxy.witness().fetchAnswersUnreadable("a Fetch v" + p.version() + " answer on " + this + ": " + e);
                }
            }
        }
        if (p.key() == ApiKeys.API_VERSIONS) {
            try {
                return ApiVersionsClamp.clampFrame(p.version(), frame, p.refuseVersion());
            } catch (RuntimeException e) {
                log.warn("{}: could not read an ApiVersions v{} response ({}); passed on unchanged", this, p.version(), e.toString());
                return null;
            }
        }
        try {
            // apart from the observer: an answer it could not read still has its broker addresses rewritten
            return Addresses.mayCarryAddresses(p.key(), p.version()) ? Addresses.rewriteFrame(p.key(), p.version(), frame, proxy) : null;
        } catch (RuntimeException e) {
            log.warn("{}: could not read a {} v{} response ({}); passed on unchanged", this, p.key(), p.version(), e.toString());
            return null;
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Frames kept for a barrier are dropped with the connection; the gate hears which. */
    private void dropHeld() {
        List<Frame> frames;
        CommitGate gate;
        synchronized (this) {
            gate = kept.gate();
            frames = kept.take(gate);
        }
        if (frames != null) {
            frames.stream().map(Frame::witnessed).filter(java.util.Objects::nonNull).forEach(Witnessed::notSent);
        }
        if (frames != null && gate != null) {
            gate.dropped(this, frames); // outside this lock: the gate locks itself, then a connection
        }
    }

    /**
     * Closes the client side and drops kept frames. The upstream side stays open while the broker's
     * answer to a forwarded commit the gate observes is still due (at most 10 s): a client that went
     * away after its commit left does not hide what the broker did with it.
     */
    void close() {
        if (!closing.compareAndSet(false, true)) {
            return; // the request loop, the response loop (a lost-answer fault) and the proxy may all close it
        }
        closed = true;
        WireProxy.closeQuietly(client);
        for (ArmedFault af : proxy.faults()) {
            af.closed(clientId, toString(), closedByFault);
        }
        dropHeld();
        proxy.forget(this);
        if (!awaitsObservedAnswer()) {
            WireProxy.closeQuietly(upstream);
        } else {
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(10_000);
                } catch (InterruptedException ignored) {
                    // closing now
                }
                WireProxy.closeQuietly(upstream);
            }, "wire-proxy-c" + id + "-linger");
            t.setDaemon(true);
            linger = t;
            t.start();
        }
    }

    /** Closes both sides at once (the proxy is closing). */
    void closeNow() {
        close();
        WireProxy.closeQuietly(upstream);
    }
}
