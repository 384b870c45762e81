package io.replaylab.barrier.wire;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Reads size-prefixed Kafka frames from one blocking channel through one direct buffer: a read
 * takes whatever the socket has (often several small frames at once), and bytes go from the socket
 * to the other socket without a copy on the Java heap. A frame is either taken whole (to be read
 * or rewritten), piped through as it arrives, or stored whole while its front is already sent.
 * Its direct buffers come from, and go back to, the proxy's {@link BufferPool}.
 */
final class FrameReader {
    /** A buffer up to this size stays with the connection; a larger frame gets one of its own for the time it is read. */
    static final int KEPT_BUFFER_BYTES = 8 * 1024 * 1024;
    private static final int FIRST_BUFFER_BYTES = 64 * 1024;

    private final ReadableByteChannel in;
    private final BufferPool pool;
    /** In read mode: the bytes between position and limit are read from the socket and not yet used. */
    private ByteBuffer buf;

    FrameReader(ReadableByteChannel in, BufferPool pool) {
        this.in = in;
        this.pool = pool;
        this.buf = pool.take(FIRST_BUFFER_BYTES).flip();
    }

    /** Gives the buffer back to the pool: the reader's last call (views from {@link #take} are no longer used). */
    void release() {
        ByteBuffer b = buf;
        buf = null;
        if (b != null) {
            pool.give(b);
        }
    }

    /**
     * Makes at least {@code n} bytes readable at {@link #peekInt} offset 0. False when the stream
     * ends before any byte of them; an end in the middle throws {@link EOFException}.
     */
    boolean fill(int n) throws IOException {
        if (buf.remaining() >= n) {
            return true;
        }
        room(n);
        int start = buf.remaining();
        buf.compact();
        try {
            while (buf.position() < n) {
                if (in.read(buf) < 0) {
                    if (buf.position() == start && start == 0) {
                        return false;
                    }
                    throw new EOFException("the stream ended " + buf.position() + " bytes into a frame of " + n);
                }
            }
        } finally {
            buf.flip();
        }
        return true;
    }

    /** The int at {@code offset} of the unread bytes (after {@link #fill} made them readable). */
    int peekInt(int offset) {
        return buf.getInt(buf.position() + offset);
    }

    /** The next {@code n} bytes (filled before) as a view that is valid until the next read. */
    ByteBuffer take(int n) {
        ByteBuffer out = buf.slice(buf.position(), n);
        buf.position(buf.position() + n);
        return out;
    }

    /** Sends the next {@code n} bytes on as they arrive, without keeping them. */
    void pipe(int n, WritableByteChannel out) throws IOException {
        int left = n;
        while (true) {
            int k = Math.min(left, buf.remaining());
            writeFully(out, take(k));
            left -= k;
            if (left == 0) {
                return;
            }
            buf.clear();
            try {
                if (in.read(buf) < 0) {
                    throw new EOFException("the stream ended " + (n - left) + " bytes into a frame of " + n);
                }
            } finally {
                buf.flip();
            }
        }
    }

    /**
     * Reads a whole frame of {@code n} bytes, sending its first {@code n - tail} bytes on as they
     * arrive; the caller sends the rest. Returns how many bytes were sent (the frame is then
     * available to {@link #take}).
     */
    int fillSending(int n, int tail, WritableByteChannel out) throws IOException {
        room(n);
        buf.compact(); // the frame starts at index 0
        int sent = 0;
        int sendable = Math.max(0, n - tail);
        try {
            while (true) {
                int upTo = Math.min(buf.position(), sendable);
                if (upTo > sent) {
                    writeFully(out, buf.slice(sent, upTo - sent));
                    sent = upTo;
                }
                if (buf.position() >= n) {
                    return sent;
                }
                if (in.read(buf) < 0) {
                    throw new EOFException("the stream ended " + buf.position() + " bytes into a frame of " + n);
                }
            }
        } finally {
            buf.flip();
        }
    }

    /** Gives back a buffer grown past {@link #KEPT_BUFFER_BYTES} for one large frame, once it is used up. */
    void shrink() {
        if (buf.capacity() > KEPT_BUFFER_BYTES && !buf.hasRemaining()) {
            buf = pool.take(FIRST_BUFFER_BYTES).flip();
        }
    }

    /** A buffer that holds at least {@code n} bytes from its start, the unread bytes kept (doubling, so a connection settles quickly). */
    private void room(int n) {
        if (buf.capacity() >= n) {
            return;
        }
        int size = n > KEPT_BUFFER_BYTES ? n : Math.min(KEPT_BUFFER_BYTES, Math.max(n, Integer.highestOneBit(n - 1) << 1));
        ByteBuffer bigger = n > KEPT_BUFFER_BYTES ? ByteBuffer.allocate(size) : pool.take(size);
        bigger.put(buf);
        pool.give(buf);
        buf = bigger.flip();
    }

    static void writeFully(WritableByteChannel out, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            out.write(b);
        }
    }
}
