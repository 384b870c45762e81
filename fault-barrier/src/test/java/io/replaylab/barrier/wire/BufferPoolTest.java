package io.replaylab.barrier.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

class BufferPoolTest {

    @Test
    void aBufferGivenBackIsHandedOutAgainClearedAndOnlyForItsOwnCapacity() {
        BufferPool pool = new BufferPool(1 << 20);
        ByteBuffer b = pool.take(4096);
        assertThat(b.isDirect()).isTrue();
        b.put(new byte[100]).flip();

        pool.give(b);
        assertThat(pool.keptBytes()).isEqualTo(4096);
        ByteBuffer other = pool.take(8192);
        assertThat(other).isNotSameAs(b);
        assertThat(pool.keptBytes()).as("a buffer of another size is left kept").isEqualTo(4096);

        ByteBuffer again = pool.take(4096);
        assertThat(again).isSameAs(b);
        assertThat(again.position()).isZero();
        assertThat(again.limit()).isEqualTo(4096);
        assertThat(pool.keptBytes()).isZero();
    }

    @Test
    void thePoolKeepsNoMoreThanItsLimitAndNoHeapBuffer() {
        BufferPool pool = new BufferPool(10_000);
        pool.give(ByteBuffer.allocateDirect(6_000));
        pool.give(ByteBuffer.allocateDirect(6_000)); // over the limit: dropped
        pool.give(ByteBuffer.allocate(1_000)); // a heap buffer: never kept
        assertThat(pool.keptBytes()).isEqualTo(6_000);

        pool.take(6_000);
        assertThat(pool.keptBytes()).isZero();
        assertThat(pool.take(6_000).isDirect()).as("a new one when none is kept").isTrue();
    }
}
