package io.replaylab.barrier.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Frames read off a real loopback socket that delivers them in uneven pieces, as TCP may. */
class FrameReaderTest {
    private ServerSocketChannel server;
    private SocketChannel writer;
    private SocketChannel reader;
    private final BufferPool pool = new BufferPool(64L << 20);

    @BeforeEach
    void connect() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        writer = SocketChannel.open(server.getLocalAddress());
        reader = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        writer.close();
        reader.close();
        server.close();
    }

    /** Writes the bytes in pieces of 1..maxPiece bytes on another thread, then closes the writing side if asked. */
    private CompletableFuture<Void> send(byte[] bytes, int maxPiece, boolean thenClose) {
        return CompletableFuture.runAsync(() -> {
            Random r = new Random(42);
            try {
                for (int at = 0; at < bytes.length;) {
                    int n = Math.min(bytes.length - at, 1 + r.nextInt(maxPiece));
                    FrameReader.writeFully(writer, ByteBuffer.wrap(bytes, at, n));
                    at += n;
                    if (r.nextInt(8) == 0) {
                        Thread.sleep(1);
                    }
                }
                if (thenClose) {
                    writer.shutdownOutput();
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static byte[] frame(int size, int seed) {
        byte[] f = new byte[4 + size];
        new Random(seed).nextBytes(f);
        ByteBuffer.wrap(f).putInt(size);
        return f;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static byte[] array(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    @Test
    void framesArriveWholeAndInOrderWhateverPiecesTheSocketDeliversThemIn() throws Exception {
        byte[] small = frame(10, 1);
        byte[] large = frame(300_000, 2); // larger than the first buffer: it grows
        byte[] tiny = frame(4, 3);
        CompletableFuture<Void> sending = send(concat(small, large, tiny), 7_000, true);
        FrameReader in = new FrameReader(reader, pool);

        for (byte[] expected : new byte[][] {small, large, tiny}) {
            assertThat(in.fill(4)).isTrue();
            int size = in.peekInt(0);
            assertThat(size).isEqualTo(expected.length - 4);
            in.fill(4 + size);
            assertThat(array(in.take(4 + size))).isEqualTo(expected);
        }
        assertThat(in.fill(4)).as("the stream ended between frames").isFalse();
        sending.get();
    }

    @Test
    void aPipedFrameGoesOnByteForByteAndTheNextFrameStaysReadable() throws Exception {
        byte[] piped = frame(500_000, 4);
        byte[] next = frame(20, 5);
        CompletableFuture<Void> sending = send(concat(piped, next), 50_000, true);
        FrameReader in = new FrameReader(reader, pool);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WritableByteChannel sink = Channels.newChannel(out);

        assertThat(in.fill(8)).isTrue();
        in.pipe(piped.length, sink);
        assertThat(out.toByteArray()).isEqualTo(piped);
        in.fill(4);
        in.fill(4 + in.peekInt(0));
        assertThat(array(in.take(next.length))).isEqualTo(next);
        sending.get();
    }

    @Test
    void aFrameReadWholeWhileItsFrontIsSentKeepsTheTailBackForTheCaller() throws Exception {
        byte[] f = frame(200_000, 6);
        CompletableFuture<Void> sending = send(f, 9_000, true);
        FrameReader in = new FrameReader(reader, pool);
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertThat(in.fill(8)).isTrue();
        int sent = in.fillSending(f.length, 64 * 1024, Channels.newChannel(out));
        ByteBuffer whole = in.take(f.length);

        assertThat(sent).isEqualTo(f.length - 64 * 1024);
        assertThat(out.toByteArray()).isEqualTo(java.util.Arrays.copyOf(f, sent));
        assertThat(array(whole)).isEqualTo(f);
        sending.get();
    }

    @Test
    void aFrameLargerThanTheKeptBufferIsReadInABufferOfItsOwnThatIsGivenBack() throws Exception {
        byte[] huge = frame(FrameReader.KEPT_BUFFER_BYTES + 1_000, 7);
        byte[] next = frame(8, 8);
        CompletableFuture<Void> sending = send(concat(huge, next), 1 << 20, true);
        FrameReader in = new FrameReader(reader, pool);

        in.fill(4);
        in.fill(4 + in.peekInt(0));
        assertThat(array(in.take(huge.length))).isEqualTo(huge);
        in.fill(4);
        in.fill(4 + in.peekInt(0));
        assertThat(array(in.take(next.length))).isEqualTo(next);
        in.shrink();
        assertThat(in.fill(4)).isFalse();
        sending.get();
    }

    @Test
    void aReaderGivesItsGrownBufferBackAndTheNextReaderReadsALargeFrameInItWithoutANewOne() throws Exception {
        byte[] large = frame(300_000, 10); // grows the first 64 KB buffer to 512 KB
        long pooledAfterGrowth = 64 * 1024; // the outgrown first buffer
        // each reader gets its frame only once the one before has read its own: no read-ahead into the next
        for (String which : new String[] {"the first reader", "the next reader (the pooled 512 KB taken, its 64 KB given back)"}) {
            CompletableFuture<Void> sending = send(large, 40_000, false);
            FrameReader in = new FrameReader(reader, pool);
            in.fill(4);
            in.fill(4 + in.peekInt(0));
            assertThat(array(in.take(large.length))).isEqualTo(large);
            assertThat(pool.keptBytes()).as(which).isEqualTo(pooledAfterGrowth);
            in.release();
            assertThat(pool.keptBytes()).isEqualTo(64 * 1024 + 512 * 1024);
            sending.get();
        }
    }

    @Test
    void aStreamThatEndsInsideAFrameIsAnErrorNotAShortFrame() throws Exception {
        byte[] f = frame(1_000, 9);
        CompletableFuture<Void> sending = send(java.util.Arrays.copyOf(f, 600), 100, true);
        FrameReader in = new FrameReader(reader, pool);

        assertThat(in.fill(4)).isTrue();
        assertThatThrownBy(() -> in.fill(4 + in.peekInt(0))).isInstanceOf(EOFException.class).hasMessageContaining("of 1004");
        sending.get();
    }
}
