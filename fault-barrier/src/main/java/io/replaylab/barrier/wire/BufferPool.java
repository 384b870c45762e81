package io.replaylab.barrier.wire;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Direct read buffers that outlive their connection. A client that opens a connection per task
 * (a consumer per drain) would otherwise have each new connection allocate and zero fresh native
 * memory for its first large answer, on that answer's way to the client: about a millisecond for
 * a 4 MB Fetch answer. Buffers are kept by exact capacity, up to a total, and handed out cleared.
 */
final class BufferPool {
    private final long maxKeptBytes;
    private final Map<Integer, Queue<ByteBuffer>> free = new ConcurrentHashMap<>();
    private final AtomicLong keptBytes = new AtomicLong();

    BufferPool(long maxKeptBytes) {
        this.maxKeptBytes = maxKeptBytes;
    }

    /** A cleared direct buffer of exactly {@code capacity} bytes: a kept one, else a new one. */
    ByteBuffer take(int capacity) {
        Queue<ByteBuffer> q = free.get(capacity);
        ByteBuffer b = q == null ? null : q.poll();
        if (b == null) {
            return ByteBuffer.allocateDirect(capacity);
        }
        keptBytes.addAndGet(-capacity);
        return b.clear();
    }

    /** Keeps a direct buffer that its reader no longer uses (dropped when the pool is full; heap buffers are never kept). */
    void give(ByteBuffer b) {
        if (!b.isDirect()) {
            return;
        }
        int capacity = b.capacity();
        if (keptBytes.addAndGet(capacity) > maxKeptBytes) {
            keptBytes.addAndGet(-capacity);
            return;
        }
        free.computeIfAbsent(capacity, c -> new ConcurrentLinkedQueue<>()).add(b);
    }

    /** Bytes kept now. */
    long keptBytes() {
        return keptBytes.get();
    }
}
