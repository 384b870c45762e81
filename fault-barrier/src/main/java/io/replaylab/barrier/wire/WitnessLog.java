package io.replaylab.barrier.wire;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a witness saw of one kind, in order: kept, waited for, and told to listeners as it comes (a
 * consumer group's commits, a share group's deliveries and acknowledgements tell the same story).
 */
final class WitnessLog<T> {
    private static final Logger log = LoggerFactory.getLogger(WitnessLog.class);

    private final Function<T, String> summary;
    private final Comparator<T> order;
    /** Guarded by this. */
    private final List<T> seen = new ArrayList<>();
    private final List<Consumer<T>> listeners = new CopyOnWriteArrayList<>();

    /** {@code order}: how {@link #all} sorts what was told (null: as told); {@code summary}: one line of each, for the log. */
    WitnessLog(Function<T, String> summary, Comparator<T> order) {
        this.summary = summary;
        this.order = order;
    }

    /** Everything seen so far, in order. */
    synchronized List<T> all() {
        List<T> out = new ArrayList<>(seen);
        if (order != null) {
            out.sort(order);
        }
        return out;
    }

    /** What {@code which} accepts, in order. */
    List<T> all(Predicate<T> which) {
        return all().stream().filter(which).toList();
    }

    /** The first one (seen so far or still to come) that {@code which} accepts, waiting up to {@code timeout}. */
    synchronized Optional<T> await(Predicate<T> which, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<T> got = all().stream().filter(which).findFirst();
            long left = deadline - System.nanoTime();
            if (got.isPresent() || left <= 0) {
                return got;
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** Called with each one as it is told (on a proxy thread: keep it short, never block). */
    void onEach(Consumer<T> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Keeps what was seen and wakes the waits. */
    synchronized void keep(List<T> items) {
        seen.addAll(items);
        notifyAll();
    }

    /** Tells the listeners (a listener that fails is logged, never the proxy's end). */
    void tell(List<T> items) {
        for (T item : items) {
            String line = summary.apply(item);
            log.debug("witnessed {}", line);
            for (Consumer<T> l : listeners) {
                try {
                    l.accept(item);
                } catch (RuntimeException e) {
                    log.warn("a witness listener failed on {}: {}", line, e.toString());
                }
            }
        }
    }
}
