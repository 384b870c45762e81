package io.replaylab.harness.lab;

import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * How many experiment or part bodies run at once in a run, whatever their nesting: a body holds a
 * slot while it runs and lends it out while it waits for its own parts (which take slots of their
 * own), so waiting never holds one and a nesting cannot deadlock.
 */
final class Slots {
    private final Semaphore free;
    private final ThreadLocal<Boolean> holding = ThreadLocal.withInitial(() -> false);

    Slots(int n) {
        this.free = new Semaphore(n, true);
    }

    /** Runs {@code body} in a slot (waiting for one). */
    <T> T in(Callable<T> body) throws Exception {
        free.acquireUninterruptibly(); // a stop goes through LabStop, never by interrupt
        holding.set(true);
        try {
            return body.call();
        } finally {
            holding.set(false);
            free.release();
        }
    }

    /** Runs {@code wait} with this thread's slot lent out (when it holds one): the parts it waits for can use it. */
    <T> T lent(Supplier<T> wait) {
        if (!holding.get()) {
            return wait.get();
        }
        free.release();
        holding.set(false);
        try {
            return wait.get();
        } finally {
            free.acquireUninterruptibly();
            holding.set(true);
        }
    }
}
