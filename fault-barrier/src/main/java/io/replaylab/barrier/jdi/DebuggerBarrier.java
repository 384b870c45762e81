package io.replaylab.barrier.jdi;

import io.replaylab.barrier.HoldMode;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.sun.jdi.AbsentInformationException;
import com.sun.jdi.ClassType;
import com.sun.jdi.InterfaceType;
import com.sun.jdi.Bootstrap;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.Location;
import com.sun.jdi.Method;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.StringReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.IllegalConnectorArgumentsException;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.ExceptionEvent;
import com.sun.jdi.event.LocatableEvent;
import com.sun.jdi.event.MethodExitEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMStartEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.ExceptionRequest;
import com.sun.jdi.request.MethodExitRequest;
import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.Injector;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierSource;
import io.replaylab.barrier.MethodPoint;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.CommitFrontier;
import io.replaylab.barrier.CommitOffset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The external barrier: a debugger (JDI) attached to a running JVM holds it at a method's entry,
 * like a breakpoint, without any change to the program. After release it observes from outside
 * whether the method returned (accepted) or threw (rejected, with class and message).
 * Closing detaches, and detaching resumes everything: a dead controller never leaves the program
 * suspended (JDWP resumes all threads when its debugger goes away).
 *
 * <pre>{@code
 * try (DebuggerBarrier debugger = DebuggerBarrier.attach(proc.port(), Duration.ofSeconds(10))) {
 *     Barrier b = debugger.arm("offset-commit", MethodPoint.kafkaCommitSync(), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
 *     Arrival a = b.awaitArrival(Duration.ofSeconds(60));   // the consumer is held after its DB commit
 *     ...                                                    // let the partition move
 *     b.release();
 *     CallOutcome o = b.awaitOutcome(Duration.ofSeconds(30)).orElseThrow();
 * }
 * }</pre>
 */
public final class DebuggerBarrier implements BarrierSource<MethodPoint> {
    private static final Logger log = LoggerFactory.getLogger(DebuggerBarrier.class);

    private final VirtualMachine vm;
    private final Thread loop;
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "barrier-hold-watchdog");
        t.setDaemon(true);
        return t;
    });
    /** Reads an offsets map through its Map methods, off the event loop: the loop meanwhile lets the events those calls cause through. */
    private final ExecutorService mapReaders = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "barrier-map-reader");
        t.setDaemon(true);
        return t;
    });
    /** Event sets of other threads that came during such a read; the loop handles them, in order, before new ones (loop thread only). */
    private final Deque<EventSet> deferred = new ArrayDeque<>();
    /** Arrival event sets whose thread may still be in a Map method of a read that timed out. */
    private final Map<EventSet, MapRead> lateReads = Collections.synchronizedMap(new IdentityHashMap<>());
    private final List<Armed> armed = new ArrayList<>();
    private volatile boolean closed;

    private EventSet startSet;
    private boolean started;

    private DebuggerBarrier(VirtualMachine vm) {
        this.vm = vm;
        this.loop = new Thread(this::eventLoop, "jdi-barrier-events");
        this.loop.setDaemon(true);
        this.loop.start();
    }

    /** Attaches to a JVM listening for a debugger on 127.0.0.1:{@code port}. */
    public static DebuggerBarrier attach(int port, Duration timeout) {
        AttachingConnector socket = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst()
                .orElseThrow(() -> new IllegalStateException("this JDK has no com.sun.jdi.SocketAttach connector (module jdk.jdi)"));
        Map<String, Connector.Argument> args = socket.defaultArguments();
        args.get("hostname").setValue("127.0.0.1");
        args.get("port").setValue(Integer.toString(port));
        args.get("timeout").setValue(Long.toString(timeout.toMillis()));
        try {
            return new DebuggerBarrier(socket.attach(args));
        } catch (IOException | IllegalConnectorArgumentsException e) {
            throw new IllegalStateException("cannot attach a debugger to 127.0.0.1:" + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * Arms a one-shot barrier at {@code target}: the entry (or the normal return) of every overload
     * of the method, in the class or, for an interface, in every class that implements it
     * (deferred until such a class is loaded if none is yet). A call whose first argument is a
     * {@code Map} read as empty (a commit of no offsets), or carrying no partition past what the calls before it carried
     * ({@link CommitFrontier}), passes, and the barrier stays armed.
     */
    @Override
    public synchronized Barrier arm(String point, MethodPoint target, HoldMode mode, BarrierListener listener, BarrierOptions options) {
        Barrier barrier = Barrier.arm(point, listener, options);
        Armed a = new Armed(barrier, target, mode, options);
        armed.add(a);
        vm.suspend(); // install atomically with respect to the program
        try {
            List<ReferenceType> loaded = vm.classesByName(target.className());
            if (loaded.isEmpty()) {
                ClassPrepareRequest cpr = vm.eventRequestManager().createClassPrepareRequest();
                cpr.addClassFilter(target.className());
                cpr.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                cpr.putProperty("armed", a);
                cpr.enable();
            } else {
                loaded.forEach(t -> install(a, t));
            }
        } finally {
            vm.resume();
        }
        return barrier;
    }

    /** The point in {@code type}; for an interface, in every loaded class that implements it and in every one loaded later. */
    private void install(Armed a, ReferenceType type) {
        if (type instanceof InterfaceType api) {
            a.api = api;
            for (ReferenceType t : vm.allClasses()) {
                if (t instanceof ClassType c && c.allInterfaces().contains(api)) {
                    installIn(a, c, true);
                }
            }
            ClassPrepareRequest later = vm.eventRequestManager().createClassPrepareRequest();
            later.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            later.putProperty("armed", a);
            later.putProperty("implementations", Boolean.TRUE);
            later.enable();
            a.requests.add(later);
        } else {
            int before = a.requests.size();
            installIn(a, type, false);
            if (a.requests.size() == before) {
                log.warn("no method {} found in {}", a.target.methodName(), type.name());
            }
        }
    }

    private void installIn(Armed a, ReferenceType type, boolean declaredOnly) {
        EventRequestManager erm = vm.eventRequestManager();
        int policy = a.mode == HoldMode.PROCESS ? EventRequest.SUSPEND_ALL : EventRequest.SUSPEND_EVENT_THREAD;
        if (a.target.edge() == MethodPoint.Edge.RETURN) {
            // an exit is seen where its method is declared: for an interface, the class each implementation has the method from
            List<ReferenceType> declaring = declaredOnly
                    ? type.methodsByName(a.target.methodName()).stream().filter(m -> !m.isAbstract()).map(Method::declaringType).distinct()
                            .filter(a.exitWatched::add).toList()
                    : type.methodsByName(a.target.methodName()).isEmpty() ? List.of() : List.of(type);
            for (ReferenceType t : declaring) {
                MethodExitRequest exit = erm.createMethodExitRequest();
                exit.addClassFilter(t);
                exit.setSuspendPolicy(policy);
                exit.putProperty("armed", a);
                exit.putProperty("hold", Boolean.TRUE);
                exit.enable();
                a.requests.add(exit);
            }
            return;
        }
        for (Method m : type.methodsByName(a.target.methodName())) {
            // for an interface, the method as its implementation has it, inherited too from a superclass that does not implement
            // the interface itself (sqlite-jdbc's executeUpdate): once per method, and held only on an implementation's instance
            if (m.location() == null || m.isAbstract() || declaredOnly && !a.breakpointed.add(m)) {
                continue;
            }
            BreakpointRequest br = erm.createBreakpointRequest(m.location());
            br.setSuspendPolicy(policy);
            br.putProperty("armed", a);
            br.enable();
            a.requests.add(br);
        }
    }

    private void eventLoop() {
        try {
            while (!closed) {
                // no timeout: JDI starts a timer thread for every timed remove() that has to wait (7,718 in one
                // schedules run); close() ends the wait with dispose() and interrupt()
                EventSet set = deferred.isEmpty() ? vm.eventQueue().remove() : deferred.poll();
                boolean resume = true;
                for (Event e : set) {
                    if (e instanceof VMStartEvent && set.suspendPolicy() == EventRequest.SUSPEND_ALL) {
                        holdStart(set); // launched suspended: it runs when resumeProgram() says so, after arming
                        resume = false;
                    } else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                        releaseHeld("program-exit");
                        return;
                    }
                    if (e instanceof ClassPrepareEvent cpe) {
                        onClassPrepare(cpe);
                    } else if (e instanceof BreakpointEvent be) {
                        resume &= !onArrival(be.request(), be.thread(), be.location(), set);
                    } else if (e instanceof MethodExitEvent me && me.request().getProperty("hold") != null) {
                        resume &= !(me.method().name().equals(((Armed) me.request().getProperty("armed")).target.methodName())
                                && onArrival(me.request(), me.thread(), me.location(), set));
                    } else if (e instanceof MethodExitEvent me) {
                        onMethodExit(me);
                    } else if (e instanceof ExceptionEvent ee) {
                        onException(ee);
                    }
                }
                if (resume) {
                    resumeSet(set);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (com.sun.jdi.VMDisconnectedException e) {
            releaseHeld("program-exit");
        } catch (RuntimeException e) {
            log.error("debugger event loop failed: {}", e.toString(), e);
        }
    }

    private synchronized void holdStart(EventSet set) {
        startSet = set;
        notifyAll();
    }

    /**
     * Lets a program that was launched suspended (a {@link io.replaylab.evidence.process.ChildProcess} started with a suspended debugger agent) run,
     * once it has reported its start (waiting up to 10 s for that); arm first, so that its first call
     * of the point is held. Nothing happens for a program that was not launched suspended.
     */
    public synchronized void resumeProgram() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (startSet == null && !started && System.nanoTime() < deadline) {
            wait(100);
            if (startSet == null && vm.allThreads().stream().noneMatch(t -> t.suspendCount() > 0)) {
                break; // not launched suspended: it is running already
            }
        }
        if (startSet != null) {
            startSet.resume();
            startSet = null;
        }
        started = true;
    }

    /** Whether the method the thread entered runs on an instance of a class that implements {@code api} (a static one: yes). */
    private static boolean onAnImplementation(ThreadReference thread, InterfaceType api) {
        try {
            ObjectReference self = thread.frame(0).thisObject();
            return self == null || !(self.referenceType() instanceof ClassType c) || c.allInterfaces().contains(api);
        } catch (IncompatibleThreadStateException | RuntimeException x) {
            return true; // unreadable: held, as before an inherited method was watched
        }
    }

    private void onClassPrepare(ClassPrepareEvent cpe) {
        Armed a = (Armed) cpe.request().getProperty("armed");
        if (cpe.request().getProperty("implementations") != null) {
            if (a.barrier.state() == BarrierState.ARMED && cpe.referenceType() instanceof ClassType c && c.allInterfaces().contains(a.api)) {
                installIn(a, c, true);
            }
            return;
        }
        install(a, cpe.referenceType());
        cpe.request().disable();
    }

    /** A thread reached an armed point (a method's entry, or its normal return); true when the event set is held (not resumed). */
    private boolean onArrival(EventRequest request, ThreadReference thread, Location at, EventSet set) {
        Armed a = (Armed) request.getProperty("armed");
        if (a == null || a.barrier.state() != BarrierState.ARMED || a.api != null && !onAnImplementation(thread, a.api)) {
            return false;
        }
        Map<String, String> context = new TreeMap<>();
        List<CommitOffset> offsets = new ArrayList<>();
        List<String> stack = new ArrayList<>();
        int depth = -1;
        boolean commitsNothing = false;
        Arrival.Facts facts = Arrival.Facts.NONE;
        try {
            List<StackFrame> frames = thread.frames();
            depth = frames.size(); // now: a read through the map's methods below runs the thread, and may leave it running
            // the top 12 frames, without the JVM's generated lambda classes (no source, no line: a library that takes a lambda,
            // a retry policy say, would push the program's own frames out of view with them)
            for (int i = 0; i < frames.size() && stack.size() < 12; i++) {
                Location l = frames.get(i).location();
                if (!l.declaringType().name().contains("$$Lambda")) {
                    stack.add(l.declaringType().name() + "." + l.method().name() + lineOf(l));
                }
            }
            StackFrame top = frames.get(0);
            context.put("method", top.location().method().toString());
            if (a.target.edge() == MethodPoint.Edge.RETURN) {
                context.put("edge", "returned normally");
            }
            List<Value> argv = top.getArgumentValues();
            OffsetsReader reader = a.target.offsetsArgument().map(OffsetsReader::new).orElse(null);
            if (reader != null && !argv.isEmpty() && argv.get(0) instanceof ObjectReference map && OffsetsReader.isMap(map)) {
                String unreadable = OffsetsReader.knows(map) ? reader.readFields(map, offsets) : readThroughMethods(reader, map, thread, set, offsets);
                if (unreadable != null) {
                    offsets.clear(); // a part would pass for the whole
                    context.put("offsets", unreadable);
                    facts = Arrival.Facts.offsetsUnreadable(unreadable);
                } else {
                    commitsNothing = offsets.isEmpty();
                }
            } else if (reader != null) {
                // commitSync() or commitSync(Duration): the consumer commits its own positions, which are not in the call
                String none = "(no offsets in the call: " + top.location().method().name() + "() commits the consumer's own positions)";
                context.put("offsets", none);
                facts = Arrival.Facts.offsetsUnreadable(none);
            }
        } catch (IncompatibleThreadStateException | RuntimeException e) {
            context.put("inspect-error", e.toString());
        }
        if (commitsNothing) {
            // e.g. commitSync(Map.of()) of a poll that returned nothing: holding it would hold no commit; the next call may carry one
            log.debug("{}: {} commits no offsets; it passes, the barrier stays armed", a.barrier.point(), thread.name());
            return false;
        }
        if (!offsets.isEmpty() && !a.frontier.advances(offsets)) {
            log.debug("{}: {} commits {}, no partition past the commits before it; it passes, the barrier stays armed", a.barrier.point(),
                    thread.name(), CommitOffset.text(offsets));
            return false;
        }
        Arrival arrival = new Arrival(a.barrier.point(), thread.name(), Arrival.withOffsets(context, offsets), offsets, stack, Instant.now(),
                System.nanoTime(), facts);
        if (!a.injector.reach(arrival)) {
            return false;
        }
        // one-shot: later calls pass freely
        a.requests.forEach(EventRequest::disable);
        a.thread = thread;
        a.depth = depth >= 0 ? depth : frameDepth(thread);
        a.heldType = at.declaringType().name();
        if (a.target.edge() == MethodPoint.Edge.RETURN) {
            a.injector.onRelease(() -> {
                resumeSet(set);
                a.injector.recordOutcome(CallOutcome.accepted(a.barrier.point())); // held after it returned: it completed
            });
        } else {
            a.injector.onRelease(() -> resumeAndObserve(a, set));
        }
        watchdog.schedule(() -> {
            if (a.barrier.state() == BarrierState.HELD) {
                log.warn("barrier {} held for its safety timeout {}; releasing", a.barrier.point(), a.options.holdTimeout());
                a.injector.release("hold-timeout");
            }
        }, a.options.holdTimeout().toMillis(), TimeUnit.MILLISECONDS);
        return true;
    }

    /** Resumes an event set, and its thread once more if a timed-out map read's call was still running in it (see {@link MapRead}). */
    private void resumeSet(EventSet set) {
        try {
            MapRead late = lateReads.remove(set);
            if (late != null) {
                late.setResumed();
            }
            set.resume();
        } catch (com.sun.jdi.VMDisconnectedException e) {
            // the program is gone (crashed while held): nothing to resume
        }
    }

    /**
     * Reads the offsets through the map's own methods, run in the held program on the held thread
     * (for a map whose fields {@link OffsetsReader} does not know). They run on a reader thread, bounded by
     * {@link MapRead#TIMEOUT}: meanwhile this loop lets through the events those calls cause on the held
     * thread (a class they load would otherwise stop it for good) and keeps other threads' events for later.
     * Null, or what could not be read.
     */
    private String readThroughMethods(OffsetsReader reader, ObjectReference map, ThreadReference thread, EventSet set, List<CommitOffset> out) {
        String type = map.referenceType().name();
        MapRead read = new MapRead(reader, map, thread);
        Future<List<CommitOffset>> result = mapReaders.submit(read::entries);
        long deadline = System.nanoTime() + MapRead.TIMEOUT.toNanos();
        String reason;
        try {
            while (!result.isDone() && System.nanoTime() < deadline) {
                EventSet other = vm.eventQueue().remove(10);
                if (other != null) {
                    duringRead(other, thread);
                }
            }
            if (result.isDone()) {
                out.addAll(result.get());
                return null;
            }
            reason = "its methods did not return within " + MapRead.TIMEOUT.toSeconds() + " s (a lock that a suspended thread holds?)";
        } catch (ExecutionException e) {
            reason = e.getCause() instanceof IllegalStateException ise ? ise.getMessage() : e.getCause().toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // close(): the loop ends
            reason = "interrupted";
        }
        if (read.abandon()) {
            log.warn("gave up reading the offsets of {} on {} with a call of it still running there ({})", type, thread.name(), reason);
            lateReads.put(set, read);
        }
        return "(unreadable " + type + ": " + reason + ")";
    }

    /** An event set that came while {@code reading} runs a map read's calls; see {@link #readThroughMethods}. */
    private void duringRead(EventSet other, ThreadReference reading) {
        if (other.stream().noneMatch(e -> reading.equals(threadOf(e)))) {
            deferred.add(other);
            return;
        }
        // the debugger's own call ran into something watched, not the program: only a class it loaded needs handling
        for (Event e : other) {
            if (e instanceof ClassPrepareEvent cpe) {
                onClassPrepare(cpe);
            }
        }
        other.resume();
    }

    private static ThreadReference threadOf(Event e) {
        if (e instanceof LocatableEvent le) {
            return le.thread();
        }
        return e instanceof ClassPrepareEvent cpe ? cpe.thread() : null;
    }

    /** Before resuming, ask to see the held call return or throw (both requests filtered to its thread). */
    private void resumeAndObserve(Armed a, EventSet set) {
        try {
            EventRequestManager erm = vm.eventRequestManager();
            MethodExitRequest exit = erm.createMethodExitRequest();
            exit.addThreadFilter(a.thread);
            exit.addClassFilter(a.heldType); // the class whose method was entered (for an interface point, the implementation)
            exit.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            exit.putProperty("armed", a);
            exit.enable();
            ExceptionRequest ex = erm.createExceptionRequest(null, true, true);
            ex.addThreadFilter(a.thread);
            ex.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            ex.putProperty("armed", a);
            ex.enable();
            a.observers.add(exit);
            a.observers.add(ex);
            resumeSet(set);
        } catch (com.sun.jdi.VMDisconnectedException e) {
            log.debug("program gone before release of {}", a.barrier.point()); // e.g. killed while held: nothing to resume
        }
    }

    private void onMethodExit(MethodExitEvent me) {
        Armed a = (Armed) me.request().getProperty("armed");
        if (a == null || a.barrier.outcome().isPresent() || !me.method().name().equals(a.target.methodName())) {
            return;
        }
        if (frameDepth(me.thread()) != a.depth) {
            return; // an inner overload returned; wait for the held frame itself
        }
        finish(a, CallOutcome.accepted(a.barrier.point()));
    }

    private void onException(ExceptionEvent ee) {
        Armed a = (Armed) ee.request().getProperty("armed");
        if (a == null || a.barrier.outcome().isPresent()) {
            return;
        }
        if (!escapesHeldCall(ee, a.depth)) {
            return; // thrown and caught inside the held call (or deeper): not its outcome
        }
        ObjectReference exception = ee.exception();
        finish(a, CallOutcome.rejected(a.barrier.point(), exception.referenceType().name(), detailMessage(exception)));
    }

    private void finish(Armed a, CallOutcome outcome) {
        a.observers.forEach(r -> {
            try {
                vm.eventRequestManager().deleteEventRequest(r);
            } catch (RuntimeException ignored) {
                // already gone
            }
        });
        a.observers.clear();
        a.injector.recordOutcome(outcome);
    }

    /** True when the exception is uncaught, or caught by a frame below the held one on the stack (a caller). */
    private static boolean escapesHeldCall(ExceptionEvent ee, int heldDepth) {
        Location c = ee.catchLocation();
        if (c == null) {
            return true;
        }
        try {
            List<StackFrame> frames = ee.thread().frames();
            int count = frames.size();
            for (int i = 0; i < count; i++) {
                if (frames.get(i).location().method().equals(c.method())) {
                    return count - i < heldDepth;
                }
            }
        } catch (IncompatibleThreadStateException e) {
            return false;
        }
        return false;
    }

    private static int frameDepth(ThreadReference t) {
        try {
            return t.frameCount();
        } catch (IncompatibleThreadStateException e) {
            return -1;
        }
    }

    private static String detailMessage(ObjectReference throwable) {
        return OffsetsReader.get(throwable, "detailMessage") instanceof StringReference s ? s.value() : null;
    }

    private static String lineOf(Location l) {
        try {
            return "(" + l.sourceName() + ":" + l.lineNumber() + ")";
        } catch (AbsentInformationException e) {
            return "";
        }
    }

    /** Releases every held barrier, {@code by} the program's exit or a detach. */
    private synchronized void releaseHeld(String by) {
        for (Armed a : armed) {
            if (a.barrier.state() == BarrierState.HELD) {
                a.injector.release(by);
            }
        }
    }

    /** Detaches: every thread the debugger suspended runs again, and the barriers stop. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        releaseHeld("detach");
        try {
            vm.dispose();
        } catch (com.sun.jdi.VMDisconnectedException ignored) {
            // the program is gone
        }
        watchdog.shutdownNow();
        mapReaders.shutdownNow();
        loop.interrupt();
        try {
            loop.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Armed {
        final Barrier barrier;
        /** The debugger's side of it: holds and outcomes. */
        final Injector injector;
        final MethodPoint target;
        final HoldMode mode;
        final BarrierOptions options;
        /** What arms the point: breakpoints, method-exit requests, and for an interface the wait for classes that implement it. */
        final List<EventRequest> requests = new ArrayList<>();
        /** The methods an interface point has a breakpoint in: one each, however many implementations inherit it. */
        final java.util.Set<Method> breakpointed = java.util.concurrent.ConcurrentHashMap.newKeySet();
        /** The classes an interface point's return is watched in: one exit request each. */
        final java.util.Set<ReferenceType> exitWatched = java.util.concurrent.ConcurrentHashMap.newKeySet();
        volatile InterfaceType api;
        volatile String heldType;
        final List<EventRequest> observers = new ArrayList<>();
        volatile ThreadReference thread;
        volatile int depth;
        /** How far the calls' offsets carried each partition so far: a call that carries none past it has no record in flight. */
        final CommitFrontier frontier = new CommitFrontier();

        Armed(Barrier barrier, MethodPoint target, HoldMode mode, BarrierOptions options) {
            this.barrier = barrier;
            this.injector = Injector.of(barrier);
            this.target = target;
            this.mode = mode;
            this.options = options;
        }
    }
}
