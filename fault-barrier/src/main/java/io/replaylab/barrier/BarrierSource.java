package io.replaylab.barrier;

/**
 * One technology that holds a program at a {@link Point} of its kind: a JVM debugger
 * ({@code DebuggerBarrier}, method points), gdb ({@code NativeDebugger}, native points) or the Kafka
 * protocol proxy ({@code WireProxy}, wire points). Arming returns a one-shot {@link Barrier}; closing
 * the source lets everything it still holds go.
 *
 * @param <P> the kind of point this technology can hold
 */
public interface BarrierSource<P extends Point> extends AutoCloseable {
    /**
     * Arms a one-shot barrier at {@code point}, named {@code name} in the evidence: the first call
     * that reaches it is held ({@code mode}: its thread or the whole process, where the technology
     * can tell them apart) and reported to {@code listener}.
     */
    Barrier arm(String name, P point, HoldMode mode, BarrierListener listener, BarrierOptions options);

    @Override
    void close();
}
