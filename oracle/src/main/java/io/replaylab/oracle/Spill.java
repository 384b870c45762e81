package io.replaylab.oracle;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * The oracle's scratch files: records of {@code [u16 id length][id][u16 amount length][amount]}
 * (a source record adds {@code [i32 partition][i64 offset]}), written and read without locks, and
 * the identity hash that spreads them over buckets.
 */
final class Spill {
    static final int BUFFER = 1 << 14;

    private Spill() {
    }

    static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // a scratch file: nothing to save
            }
        }
    }

    /** Deletes a scratch directory and the files in it. */
    static void delete(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(f -> f.toFile().delete());
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // temp files: the OS cleans up what is left
        }
    }

    /** FNV-1a over the bytes, then a 64-bit finalizer so both the high (bucket) and low (slot) bits mix. */
    static long hash(byte[] b, int off, int len) {
        long h = 0xcbf29ce484222325L;
        for (int i = off; i < off + len; i++) {
            h ^= b[i] & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    static int u16(byte[] b, int i) {
        return ((b[i] & 0xff) << 8) | (b[i + 1] & 0xff);
    }

    static int i32(byte[] b, int i) {
        return ((b[i] & 0xff) << 24) | ((b[i + 1] & 0xff) << 16) | ((b[i + 2] & 0xff) << 8) | (b[i + 3] & 0xff);
    }

    static long i64(byte[] b, int i) {
        return ((long) i32(b, i) << 32) | (i32(b, i + 4) & 0xffffffffL);
    }

    /**
     * One spill file, buffered without locks: one thread writes it, so the synchronized JDK
     * streams (a lock per {@code writeShort}) would only cost time.
     */
    static final class Writer implements AutoCloseable {
        private final OutputStream out;
        private final byte[] buf = new byte[BUFFER];
        private int len;
        private boolean closed;

        Writer(Path file) throws IOException {
            this.out = Files.newOutputStream(file);
        }

        void record(byte[] id, byte[] amount) throws IOException {
            room(4 + id.length + amount.length);
            put16(id.length);
            put(id);
            put16(amount.length);
            put(amount);
        }

        /** An integer amount, written as its decimal digits (the same bytes as its exact text) without making a String. */
        void record(byte[] id, long amount) throws IOException {
            room(4 + id.length + 20);
            put16(id.length);
            put(id);
            putDecimal(amount);
        }

        void record(byte[] id, long amount, int partition, long offset) throws IOException {
            room(16 + id.length + 20);
            put16(id.length);
            put(id);
            putDecimal(amount);
            put32(partition);
            put32((int) (offset >>> 32));
            put32((int) offset);
        }

        private void putDecimal(long v) {
            if (v == Long.MIN_VALUE) {
                byte[] min = Long.toString(v).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                put16(min.length);
                System.arraycopy(min, 0, buf, len, min.length);
                len += min.length;
                return;
            }
            boolean negative = v < 0;
            long u = negative ? -v : v;
            int digits = 1;
            for (long t = u; t >= 10; t /= 10) {
                digits++;
            }
            int n = digits + (negative ? 1 : 0);
            put16(n);
            int end = len + n;
            for (int i = end - 1; i >= end - digits; i--) {
                buf[i] = (byte) ('0' + (u % 10));
                u /= 10;
            }
            if (negative) {
                buf[len] = '-';
            }
            len = end;
        }

        private void room(int need) throws IOException {
            if (len + need > buf.length) {
                flush();
            }
        }

        private void put(byte[] b) throws IOException {
            if (b.length > buf.length - len) {
                flush();
                out.write(b); // a field longer than the buffer
            } else {
                System.arraycopy(b, 0, buf, len, b.length);
                len += b.length;
            }
        }

        private void put16(int v) {
            buf[len++] = (byte) (v >>> 8);
            buf[len++] = (byte) v;
        }

        private void put32(int v) {
            buf[len++] = (byte) (v >>> 24);
            buf[len++] = (byte) (v >>> 16);
            buf[len++] = (byte) (v >>> 8);
            buf[len++] = (byte) v;
        }

        private void flush() throws IOException {
            out.write(buf, 0, len);
            len = 0;
        }

        @Override
        public void close() throws IOException {
            if (!closed) {
                closed = true;
                try {
                    flush();
                } finally {
                    out.close();
                }
            }
        }
    }

    /** Streams an (id, amount) spill file record by record through one reusable buffer (bounded memory, no locks). */
    static final class Reader implements AutoCloseable {
        private final InputStream in;
        byte[] buf = new byte[1 << 16];
        private int start;
        private int end;
        int id;
        int idLen;
        int amount;
        int amountLen;

        Reader(Path file) throws IOException {
            this.in = Files.newInputStream(file);
        }

        /** Positions on the next record; false at the end of the file. */
        boolean next() throws IOException {
            if (!fill(2)) {
                return false;
            }
            int il = u16(buf, start);
            require(2 + il + 2);
            int al = u16(buf, start + 2 + il);
            require(2 + il + 2 + al);
            id = start + 2;
            idLen = il;
            amount = id + il + 2;
            amountLen = al;
            start = amount + al;
            return true;
        }

        private void require(int n) throws IOException {
            if (!fill(n)) {
                throw new EOFException("a cut record in the oracle's scratch file");
            }
        }

        /** Makes {@code n} bytes available from {@code start}, growing the buffer if one record needs it. */
        private boolean fill(int n) throws IOException {
            if (end - start >= n) {
                return true;
            }
            if (start > 0) {
                System.arraycopy(buf, start, buf, 0, end - start);
                end -= start;
                start = 0;
            }
            if (n > buf.length) {
                buf = Arrays.copyOf(buf, Integer.highestOneBit(n) << 1);
            }
            while (end < n) {
                int r = in.read(buf, end, buf.length - end);
                if (r < 0) {
                    if (end == 0) {
                        return false;
                    }
                    throw new EOFException("a cut record in the oracle's scratch file");
                }
                end += r;
            }
            return true;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
