package io.replaylab.evidence;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A module's own event kinds ({@link Payload.Extension} records), found with {@link java.util.ServiceLoader}:
 * the module lists its implementation in {@code META-INF/services/io.replaylab.evidence.PayloadTypes}.
 * Evidence read in a JVM without them still reads: their events become {@link Payload.Unregistered}.
 */
public interface PayloadTypes {
    /** The record classes, each named in JSON by its simple name in kebab case. */
    List<Class<? extends Payload.Extension>> types();

    /**
     * The records of a sealed group of kinds, through its sub-groups: a module that groups its kinds
     * under one sealed interface lists them all with {@code recordsOf(MyEvent.class)}.
     */
    @SuppressWarnings("unchecked")
    static <T> List<Class<? extends T>> recordsOf(Class<T> sealedGroup) {
        List<Class<? extends T>> out = new ArrayList<>();
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(sealedGroup.getPermittedSubclasses()));
        while (!todo.isEmpty()) {
            Class<?> c = todo.pop();
            if (c.isSealed()) {
                todo.addAll(List.of(c.getPermittedSubclasses()));
            } else if (c.isRecord()) {
                out.add((Class<? extends T>) c);
            }
        }
        return out;
    }
}
