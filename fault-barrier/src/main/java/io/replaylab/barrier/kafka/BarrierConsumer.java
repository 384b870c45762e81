package io.replaylab.barrier.kafka;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.CommitFrontier;
import io.replaylab.barrier.CommitOffset;
import io.replaylab.barrier.Injector;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A {@link Consumer} decorator for tests that build their own clients: {@code commitSync} and
 * {@code commitAsync} stop at the barrier before the request leaves (the context's {@code offsets}
 * are the ones about to be committed), and the barrier records whether the commit returned or threw.
 * A commit that carries no partition past the commits before it ({@link CommitFrontier}: a first
 * commit of offset 0, the same positions again) passes, and the barrier stays armed.
 */
public final class BarrierConsumer {
    private BarrierConsumer() {
    }

    @SuppressWarnings("unchecked")
    public static <K, V> Consumer<K, V> wrap(Consumer<K, V> delegate, Barrier beforeCommit) {
        CommitFrontier frontier = new CommitFrontier();
        InvocationHandler h = (proxy, method, args) -> {
            String name = method.getName();
            List<CommitOffset> offsets = args != null && args.length > 0 && args[0] instanceof Map<?, ?> m ? offsets(m) : List.of();
            // a commit that carries no partition past the ones before it has no record in flight: it passes, as on the wire
            if (!name.equals("commitSync") && !name.equals("commitAsync") || !offsets.isEmpty() && !frontier.advances(offsets)) {
                try {
                    return method.invoke(delegate, args);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                }
            }
            Map<String, String> ctx = new TreeMap<>();
            ctx.put("method", name);
            if (offsets.isEmpty()) {
                ctx.put("offsets", "(all consumed)");
            }
            return Injector.around(beforeCommit, ctx, offsets, () -> method.invoke(delegate, args));
        };
        return (Consumer<K, V>) Proxy.newProxyInstance(BarrierConsumer.class.getClassLoader(), new Class<?>[] {Consumer.class}, h);
    }

    private static List<CommitOffset> offsets(Map<?, ?> offsets) {
        List<CommitOffset> out = new ArrayList<>();
        offsets.forEach((k, v) -> {
            if (k instanceof TopicPartition tp && v instanceof OffsetAndMetadata om) {
                out.add(new CommitOffset(tp.topic(), tp.partition(), om.offset()));
            }
        });
        return out;
    }
}
