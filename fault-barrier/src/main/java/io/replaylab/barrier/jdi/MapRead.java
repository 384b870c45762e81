package io.replaylab.barrier.jdi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;

import com.sun.jdi.ArrayReference;
import com.sun.jdi.InvocationException;
import com.sun.jdi.Method;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import io.replaylab.barrier.CommitOffset;

/**
 * One read of an offsets map through its {@code Map} methods ({@code entrySet().toArray()}, then
 * {@code getKey()}/{@code getValue()} per entry), invoked on the held thread alone
 * ({@link ObjectReference#INVOKE_SINGLE_THREADED}: the other threads stay as the hold left them).
 * What it creates in the program is kept from its garbage collector until the read ends.
 *
 * <p>An invocation runs the thread and suspends it again when it returns. A read that timed out
 * (its call waits for a lock that a suspended thread holds, say) is abandoned with that call still
 * running: when the arrival's event set is resumed before the call returns, that resume misses the
 * thread and the return suspends it, so the reader resumes it once more.
 */
final class MapRead {
    /** Long enough for any commit's map in a loaded program; a commit whose map takes longer is held unread. */
    static final Duration TIMEOUT = Duration.ofSeconds(6); // 3 s was tight for several JDWP calls on a loaded 2-core machine

    private final OffsetsReader reader;
    private final ObjectReference map;
    private final ThreadReference thread;
    private final List<ObjectReference> pinned = new ArrayList<>();
    private boolean inCall;
    private boolean abandoned;
    private boolean resumed;
    private boolean resumeOwed;

    MapRead(OffsetsReader reader, ObjectReference map, ThreadReference thread) {
        this.reader = reader;
        this.map = map;
        this.thread = thread;
    }

    List<CommitOffset> entries() throws Exception {
        VirtualMachine vm = map.virtualMachine();
        Method entrySet = method(vm, "java.util.Map", "entrySet", "()Ljava/util/Set;");
        Method toArray = method(vm, "java.util.Collection", "toArray", "()[Ljava/lang/Object;");
        Method getKey = method(vm, "java.util.Map$Entry", "getKey", "()Ljava/lang/Object;");
        Method getValue = method(vm, "java.util.Map$Entry", "getValue", "()Ljava/lang/Object;");
        try {
            if (!(call(map, entrySet) instanceof ObjectReference entries) || !(call(entries, toArray) instanceof ArrayReference array)) {
                throw new IllegalStateException("no entries");
            }
            List<CommitOffset> out = new ArrayList<>();
            for (Value e : array.getValues()) {
                if (!(e instanceof ObjectReference entry)) {
                    throw new IllegalStateException("a null entry");
                }
                String bad = reader.put(out, call(entry, getKey), call(entry, getValue));
                if (bad != null) {
                    throw new IllegalStateException(bad);
                }
            }
            return out;
        } finally {
            for (ObjectReference o : pinned) {
                try {
                    o.enableCollection();
                } catch (RuntimeException ignored) {
                    // the program is gone
                }
            }
        }
    }

    private static Method method(VirtualMachine vm, String type, String name, String signature) {
        return vm.classesByName(type).stream().flatMap(t -> t.methodsByName(name, signature).stream()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + type + "." + name + " in the program"));
    }

    private Value call(ObjectReference target, Method m) throws Exception {
        synchronized (this) {
            if (abandoned || resumed) {
                throw new CancellationException("abandoned");
            }
            inCall = true;
        }
        try {
            Value v = target.invokeMethod(thread, m, List.of(), ObjectReference.INVOKE_SINGLE_THREADED);
            if (v instanceof ObjectReference o) {
                o.disableCollection(); // the thread runs during the next call: only this read refers to it
                pinned.add(o);
            }
            return v;
        } catch (InvocationException e) {
            throw new IllegalStateException("its " + m.name() + "() threw " + e.exception().referenceType().name(), e);
        } finally {
            boolean owed;
            synchronized (this) {
                inCall = false;
                owed = resumeOwed;
                resumeOwed = false;
            }
            if (owed) {
                try {
                    thread.resume();
                } catch (RuntimeException ignored) {
                    // the program is gone
                }
            }
        }
    }

    /** Gives the read up; true when a call of it is still running in the program. */
    synchronized boolean abandon() {
        abandoned = true;
        return inCall;
    }

    /** The arrival's event set is about to be resumed: a call still running then owes its thread a resume. */
    synchronized void setResumed() {
        resumed = true;
        resumeOwed = inCall;
    }
}
