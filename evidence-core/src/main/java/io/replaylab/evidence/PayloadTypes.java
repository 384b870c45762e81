package io.replaylab.evidence;

import java.util.List;

/**
 * A lab's own event kinds ({@link Payload.Extension} records), found with {@link java.util.ServiceLoader}:
 * the lab lists its implementation in {@code META-INF/services/io.replaylab.evidence.PayloadTypes}.
 * Evidence read in a JVM without them still reads: their events become {@link Payload.Unregistered}.
 */
public interface PayloadTypes {
    /** The record classes, each named in JSON by its simple name in kebab case. */
    List<Class<? extends Payload.Extension>> types();
}
