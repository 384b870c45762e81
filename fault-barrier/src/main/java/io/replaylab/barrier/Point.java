package io.replaylab.barrier;

/**
 * Where a barrier holds a program: a method of a JVM ({@link MethodPoint}, held by a debugger), a
 * native function ({@link NativePoint}, held by gdb) or a request on the Kafka protocol
 * ({@link WirePoint}, held by the proxy). Each point carries what only it knows (how a native call's
 * result reads, what a method's argument holds), so the technology that arms it stays generic.
 */
public sealed interface Point permits MethodPoint, NativePoint, WirePoint, PgPoint {
    /** What the point is, for a person (the evidence's words). */
    String describe();
}
