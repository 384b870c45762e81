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
 * The oracle's scratch files, written and read without locks. A record is
 * {@code [i64 identity hash][u16 id length][id][amount]} and a source record adds
 * {@code [i32 partition][i64 offset]}. An amount is {@code [0][i64]} for an integer or
 * {@code [1][u16 length][exact decimal text]}: one canonical form per value, so equal amounts are
 * equal bytes. The hash is taken once, when a record is written, and reused by the join.
 */
final class Spill {
    static final int BUFFER = 1 << 14;
    private static final byte INTEGER = 0;
    private static final byte DECIMAL = 1;

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

    /** The bucket of an identity hash: from its high bits, since a join's table slot uses the low ones. */
    static int bucket(long hash, int buckets) {
        return (int) Math.floorMod(hash >>> 40, (long) buckets);
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

    /** Where the id of the record at {@code at} starts. */
    static int idAt(int at) {
        return at + 10;
    }

    static int idLength(byte[] b, int at) {
        return u16(b, at + 8);
    }

    /** Where the amount of the record at {@code at} starts. */
    static int amountAt(byte[] b, int at) {
        return at + 10 + u16(b, at + 8);
    }

    /** The encoded length of the amount starting at {@code a}. */
    static int amountLength(byte[] b, int a) {
        return b[a] == INTEGER ? 9 : 3 + u16(b, a + 1);
    }

    static boolean sameAmount(byte[] x, int a, byte[] y, int c) {
        return Arrays.equals(x, a, a + amountLength(x, a), y, c, c + amountLength(y, c));
    }

    /** The amount as exact text, for examples. */
    static String amountText(byte[] b, int a) {
        return b[a] == INTEGER ? Long.toString(i64(b, a + 1)) : new String(b, a + 3, u16(b, a + 1), java.nio.charset.StandardCharsets.UTF_8);
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

        void record(long hash, byte[] id, long amount) throws IOException {
            head(hash, id, 9);
            putAmount(amount);
        }

        /**
         * An amount as its exact text. The join writes integers through the {@code long} overloads,
         * so each value keeps one form there; the snapshot diff writes every amount as text.
         */
        void record(long hash, byte[] id, byte[] decimal) throws IOException {
            head(hash, id, 3 + decimal.length);
            buf[len++] = DECIMAL;
            put16(decimal.length);
            put(decimal);
        }

        void record(long hash, byte[] id, long amount, int partition, long offset) throws IOException {
            head(hash, id, 9 + 12);
            putAmount(amount);
            put32(partition);
            put64(offset);
        }

        private void head(long hash, byte[] id, int rest) throws IOException {
            if (len + 10 + id.length + rest > buf.length) {
                flush();
            }
            put64(hash);
            put16(id.length);
            put(id);
            if (len + rest > buf.length) {
                flush(); // an id longer than the buffer went out directly
            }
        }

        private void putAmount(long amount) {
            buf[len++] = INTEGER;
            put64(amount);
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

        private void put64(long v) {
            put32((int) (v >>> 32));
            put32((int) v);
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

    /** Streams a spill file of (id, amount) records through one reusable buffer (bounded memory, no locks). */
    static final class Reader implements AutoCloseable {
        private final InputStream in;
        byte[] buf = new byte[1 << 16];
        private int start;
        private int end;
        /** The current record's identity hash, and where its id and amount start in {@link #buf}. */
        long hash;
        int id;
        int idLen;
        int amount;

        Reader(Path file) throws IOException {
            this.in = Files.newInputStream(file);
        }

        /** Positions on the next record; false at the end of the file. */
        boolean next() throws IOException {
            if (!fill(10)) {
                return false;
            }
            int il = u16(buf, start + 8);
            require(10 + il + 3);
            int a = start + 10 + il;
            int al = buf[a] == INTEGER ? 9 : 3 + u16(buf, a + 1);
            require(10 + il + al);
            hash = i64(buf, start);
            id = start + 10;
            idLen = il;
            amount = id + il;
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
