package io.replaylab.barrier.wire;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection and its own upstream connection. The request side reads whole frames and
 * forwards them (or keeps them while a barrier holds the connection); the response side matches
 * each answer to its request by correlation id (responses keep the broker's order, which is the
 * request order) and rewrites broker addresses where the answer carries them.
 */
final class Connection {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);

    /** A request frame as read ({@code length} bytes of {@code bytes}, size prefix included), with what its header says. */
    record Frame(ApiKeys key, short version, int correlationId, byte[] bytes, int length, CommitRequest commit) {
        /** A copy that owns its bytes: for a frame kept while held (the read buffer is reused for the next frame). */
        Frame kept() {
            return new Frame(key, version, correlationId, Arrays.copyOf(bytes, length), length, commit);
        }
    }

    /** Frames up to this size are read into a buffer reused per connection (no allocation, no zeroing per frame). */
    private static final int REUSED_BUFFER_BYTES = 8 * 1024 * 1024;

    /** What the response side needs to know about a forwarded request. */
    private record Pending(ApiKeys key, short version, Consumer<OffsetCommitResponseData> observer) {
    }

    final int id;
    private final Socket client;
    private final Socket upstream;
    private final int nodeId;
    private final WireProxy proxy;
    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
    private final Object upstreamWrite = new Object();
    private final Object clientWrite = new Object();
    private OutputStream toUpstream;
    private OutputStream toClient;
    /** Frames kept while a barrier holds this connection; null when it flows. Guarded by this. */
    private List<Frame> held;
    private CommitGate holder;
    private byte[] requestBuffer = new byte[16 * 1024];
    private byte[] responseBuffer = new byte[16 * 1024];
    private volatile boolean closed;

    Connection(int id, Socket client, Socket upstream, int nodeId, WireProxy proxy) {
        this.id = id;
        this.client = client;
        this.upstream = upstream;
        this.nodeId = nodeId;
        this.proxy = proxy;
    }

    void start() {
        try {
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            toUpstream = upstream.getOutputStream();
            toClient = client.getOutputStream();
        } catch (IOException e) {
            log.warn("connection {}: cannot set up: {}", id, e.toString());
            close();
            return;
        }
        Thread requests = new Thread(this::requestLoop, "wire-proxy-c" + id + "-requests");
        Thread responses = new Thread(this::responseLoop, "wire-proxy-c" + id + "-responses");
        requests.setDaemon(true);
        responses.setDaemon(true);
        requests.start();
        responses.start();
    }

    @Override
    public String toString() {
        return "connection " + id + " (" + (nodeId < 0 ? "bootstrap" : "node " + nodeId) + ", client port " + client.getPort() + ")";
    }

    private void requestLoop() {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream(), 64 * 1024))) {
            while (!closed) {
                Frame f = readRequest(in);
                if (f == null) {
                    return;
                }
                proxy.countRequest();
                synchronized (this) {
                    if (held != null) {
                        held.add(f.kept());
                        continue;
                    }
                }
                Consumer<OffsetCommitResponseData> observer = null;
                if (f.commit() != null) {
                    CommitGate.Decision d = CommitGate.decide(proxy.gates(), this, f);
                    if (d.hold() != null) {
                        continue;
                    }
                    observer = d.observer();
                }
                forward(f, observer);
            }
        } catch (EOFException e) {
            log.debug("{}: client closed", this);
        } catch (IOException e) {
            if (!closed) {
                log.debug("{}: client side ended: {}", this, e.toString());
            }
        } finally {
            close();
        }
    }

    /** One whole request frame, or null (connection closed with a log line) when it is not a Kafka request. */
    private Frame readRequest(DataInputStream in) throws IOException {
        int size = in.readInt();
        if (size < 8 || size > proxy.maxFrameBytes()) {
            log.warn("{}: closing: a request frame of {} bytes is outside 8..{} (not a Kafka client, or a frame larger than the limit)",
                    this, size, proxy.maxFrameBytes());
            return null;
        }
        byte[] bytes = requestBuffer.length >= 4 + size ? requestBuffer : buffer(4 + size);
        if (bytes.length <= REUSED_BUFFER_BYTES) {
            requestBuffer = bytes;
        }
        ByteBuffer.wrap(bytes).putInt(size);
        in.readFully(bytes, 4, size);
        ByteBuffer buf = ByteBuffer.wrap(bytes, 4, size).slice();
        RequestHeader h;
        try {
            h = RequestHeader.parse(buf);
        } catch (RuntimeException e) {
            log.warn("{}: closing: unparsable request header (api key {}, version {}): {}", this,
                    ByteBuffer.wrap(bytes, 4, 2).getShort(), ByteBuffer.wrap(bytes, 6, 2).getShort(), e.toString());
            return null;
        }
        CommitRequest commit = null;
        if (h.apiKey() == ApiKeys.OFFSET_COMMIT) {
            try {
                commit = CommitRequest.parse(buf, h, proxy::topicName);
            } catch (RuntimeException e) {
                log.warn("{}: closing: unparsable OffsetCommit v{} (correlation {}): {}", this, h.apiVersion(), h.correlationId(), e.toString());
                return null;
            }
        }
        return new Frame(h.apiKey(), h.apiVersion(), h.correlationId(), bytes, 4 + size, commit);
    }

    /** A read buffer of at least {@code n} bytes: doubling, so a connection settles on its largest frame size quickly. */
    private static byte[] buffer(int n) {
        return new byte[n > REUSED_BUFFER_BYTES ? n : Math.min(REUSED_BUFFER_BYTES, Math.max(n, Integer.highestOneBit(n - 1) << 1))];
    }

    private void forward(Frame f, Consumer<OffsetCommitResponseData> observer) throws IOException {
        pending.put(f.correlationId(), new Pending(f.key(), f.version(), observer));
        synchronized (upstreamWrite) {
            toUpstream.write(f.bytes(), 0, f.length());
            toUpstream.flush();
        }
    }

    /** Called by a gate: from now on this connection keeps every frame, starting with {@code first}. */
    synchronized void hold(CommitGate gate, Frame first) {
        held = new ArrayList<>(List.of(first.kept()));
        holder = gate;
        if (closed) {
            dropHeld();
        }
    }

    /**
     * Called by a gate on release: sends the kept frames in order (each commit observed as the gate
     * says), then flows. False when there was nothing to send (the client closed this connection).
     */
    synchronized boolean releaseHeld(CommitGate gate) {
        if (held == null || holder != gate) {
            return false;
        }
        List<Frame> frames = held;
        held = null;
        holder = null;
        try {
            for (Frame f : frames) {
                forward(f, f.commit() == null ? null : gate.observerFor(this, f));
            }
        } catch (IOException e) {
            log.warn("{}: the released frames could not be sent upstream: {}", this, e.toString());
            close();
        }
        return true;
    }

    private void responseLoop() {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(upstream.getInputStream(), 64 * 1024))) {
            while (!closed || awaitsObservedAnswer()) {
                int size = in.readInt();
                if (size < 4 || size > proxy.maxFrameBytes()) {
                    log.warn("{}: closing: a response frame of {} bytes is outside 4..{}", this, size, proxy.maxFrameBytes());
                    return;
                }
                byte[] bytes = responseBuffer.length >= 4 + size ? responseBuffer : buffer(4 + size);
                if (bytes.length <= REUSED_BUFFER_BYTES) {
                    responseBuffer = bytes;
                }
                ByteBuffer.wrap(bytes).putInt(size);
                in.readFully(bytes, 4, size);
                int length = 4 + size;
                int correlationId = ByteBuffer.wrap(bytes, 4, 4).getInt(); // the first field of every response header
                Pending p = pending.remove(correlationId);
                if (p == null) {
                    log.warn("{}: a response with correlation id {} that no forwarded request carries; passed on unchanged", this, correlationId);
                } else {
                    byte[] rewritten = answer(p, bytes, length);
                    if (rewritten != null) {
                        bytes = rewritten;
                        length = rewritten.length;
                    }
                }
                try {
                    synchronized (clientWrite) {
                        toClient.write(bytes, 0, length);
                        toClient.flush();
                    }
                } catch (IOException e) {
                    if (!closed) {
                        throw e;
                    } // the client is gone; the broker's answer to a released commit was still read above
                }
            }
        } catch (EOFException e) {
            log.debug("{}: broker closed", this);
        } catch (IOException e) {
            if (!closed) {
                log.debug("{}: broker side ended: {}", this, e.toString());
            }
        } finally {
            close();
            WireProxy.closeQuietly(upstream);
        }
    }

    /** A commit the gate observes was forwarded and its answer has not come yet. */
    private boolean awaitsObservedAnswer() {
        return pending.values().stream().anyMatch(p -> p.observer() != null);
    }

    /**
     * Shows a commit's answer to its observer and rewrites broker addresses where the answer names
     * them: the rewritten frame, or null when the client gets the bytes as read.
     */
    private byte[] answer(Pending p, byte[] bytes, int length) {
        if (p.observer() == null && !Addresses.mayCarryAddresses(p.key(), p.version())) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes, 4, length - 4).slice();
        try {
            ResponseHeader.parse(buf, p.key().responseHeaderVersion(p.version()));
            int headerEnd = buf.position();
            if (p.observer() != null) {
                p.observer().accept(new OffsetCommitResponseData(new ByteBufferAccessor(buf.duplicate()), p.version()));
            }
            if (Addresses.mayCarryAddresses(p.key(), p.version())) {
                ByteBuffer body = Addresses.rewrite(p.key(), p.version(), buf, proxy);
                if (body != null) {
                    byte[] out = new byte[4 + headerEnd + body.remaining()];
                    ByteBuffer o = ByteBuffer.wrap(out);
                    o.putInt(out.length - 4);
                    o.put(bytes, 4, headerEnd);
                    o.put(body);
                    return out;
                }
            }
        } catch (RuntimeException e) {
            log.warn("{}: could not read a {} v{} response ({}); passed on unchanged", this, p.key(), p.version(), e.toString());
        }
        return null;
    }

    boolean isClosed() {
        return closed;
    }

    /** Frames kept for a barrier are dropped with the connection; the gate hears which. */
    private void dropHeld() {
        List<Frame> frames;
        CommitGate gate;
        synchronized (this) {
            frames = held;
            gate = holder;
            held = null;
            holder = null;
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
        if (closed) {
            return;
        }
        closed = true;
        WireProxy.closeQuietly(client);
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
            t.start();
        }
    }

    /** Closes both sides at once (the proxy is closing). */
    void closeNow() {
        close();
        WireProxy.closeQuietly(upstream);
    }
}
