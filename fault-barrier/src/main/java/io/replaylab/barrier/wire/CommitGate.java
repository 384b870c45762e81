package io.replaylab.barrier.wire;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.Injector;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.CommitFrontier;
import io.replaylab.barrier.WirePoint;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The barrier side of the proxy for one group: decides which OffsetCommit frames (or, for a share
 * group, which frames carrying acknowledgements) are held, keeps the held member's retries with them,
 * forwards them on release and reads the broker's answer.
 */
final class CommitGate {
    private static final Logger log = LoggerFactory.getLogger(CommitGate.class);

    /** What the request side does with a commit frame: hold it (this gate), or forward it (observed by the gate, or not). */
    record Decision(CommitGate hold, Consumer<ApiMessage> observer) {
        static final Decision PASS = new Decision(null, null);
    }

    private final String group;
    /** What it holds: a consumer group's OffsetCommits or a share group's acknowledgements. */
    private final WirePoint.Request request;
    private final BarrierListener listener;
    private final WireProxy proxy;
    private final Barrier barrier;
    /** The proxy's side of the barrier: holds and outcomes. */
    private final Injector injector;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "wire-barrier-timer");
        t.setDaemon(true);
        return t;
    });
    private final long holdTimeoutMillis;
    private final Set<Connection> holding = new LinkedHashSet<>();
    private final List<String> history = new ArrayList<>();
    /** Hold the broker's answer to the commit (the offset is stored, the client has not seen it) instead of the request. */
    private final boolean answers;
    private String heldMember;
    private int framesDropped;
    private int framesForwarded;
    /** How far into the hold (from the arrival) the client first closed a held connection; null: it did not. */
    private Duration droppedAfter;
    /** When (nanoTime) the client last closed a connection that held a frame of the held member's; null: never. */
    private Long lastDropped;
    /** How far the group's OffsetCommits have carried each partition so far, before the hold. */
    private final CommitFrontier frontier = new CommitFrontier();

    CommitGate(String point, WirePoint at, BarrierListener listener, BarrierOptions options, WireProxy proxy) {
        this.group = at.group();
        this.request = at.request();
        this.answers = at.edge() == WirePoint.Edge.ANSWER;
        this.listener = listener;
        this.proxy = proxy;
        this.barrier = Barrier.arm(point, listener, options);
        this.injector = Injector.of(barrier);
        this.holdTimeoutMillis = options.holdTimeout().toMillis();
        injector.onRelease(this::released);
    }

    Barrier barrier() {
        return barrier;
    }

    /** What it holds, in a message's words. */
    private String held() {
        return request == WirePoint.Request.SHARE_ACKNOWLEDGEMENT ? "acknowledgement" : "OffsetCommit";
    }

    synchronized List<String> log() {
        return List.copyOf(history);
    }

    /** The first gate that holds or observes this commit decides; a commit no gate wants passes unobserved. */
    static Decision decide(List<CommitGate> gates, Connection c, Connection.Frame f) {
        for (CommitGate g : gates) {
            Decision d = g.decide(c, f);
            if (d != Decision.PASS) {
                return d;
            }
        }
        return Decision.PASS;
    }

    private Decision decide(Connection c, Connection.Frame f) {
        CommitRequest r = f.commit();
        if (!group.equals(r.group()) || r.isOffsetCommit() != (request == WirePoint.Request.OFFSET_COMMIT)) {
            return Decision.PASS;
        }
        if (request == WirePoint.Request.OFFSET_COMMIT && barrier.state() == BarrierState.ARMED && !frontier.advances(r.offsets())) {
            note(c, f, "passed: it moves no partition past what the group's commits carried so far, so no record is in flight");
            return Decision.PASS;
        }
        if (answers) {
            if (!injector.wouldReach(arrival(c, f))) {
                return Decision.PASS;
            }
            c.defer(this);
            return new Decision(null, answerHold(c, f));
        }
        synchronized (this) {
            switch (barrier.state()) {
                case ARMED -> {
                    if (!injector.reach(arrival(c, f))) {
                        return Decision.PASS;
                    }
                    heldMember = r.memberId();
                    hold(c, f, "held");
                    timer.schedule(this::holdTimeout, holdTimeoutMillis, TimeUnit.MILLISECONDS);
                    return new Decision(this, null);
                }
                case HELD -> {
                    if (!r.memberId().equals(heldMember)) {
                        return Decision.PASS;
                    }
                    hold(c, f, "held with it (the same member's commit again)");
                    listener.onObservation(barrier.point(), "the same member sent its " + r.api().name + " again on " + c + " (correlation "
                            + f.correlationId() + ", " + r.offsetsText() + "); held as well");
                    return new Decision(this, null);
                }
                case RELEASED -> {
                    if (r.memberId().equals(heldMember) && barrier.outcome().isEmpty()) {
                        return new Decision(null, observerFor(c, f)); // sent after the release: its answer is the outcome
                    }
                    return Decision.PASS;
                }
                default -> {
                    return Decision.PASS;
                }
            }
        }
    }

    private void hold(Connection c, Connection.Frame f, String what) {
        holding.add(c);
        c.hold(this, f);
        note(c, f, what);
    }

    private void note(Connection c, Connection.Frame f, String what) {
        CommitRequest r = f.commit();
        String line = Instant.now() + " " + c + " correlation " + f.correlationId() + " " + r.describe() + " " + r.offsetsText() + ": " + what;
        history.add(line);
        log.info(line);
    }

    private Arrival arrival(Connection c, Connection.Frame f) {
        CommitRequest r = f.commit();
        Map<String, String> ctx = new TreeMap<>();
        ctx.put("group", r.group());
        ctx.put("member", r.memberId());
        if (r.isOffsetCommit()) {
            ctx.put("generation", Integer.toString(r.generation()));
        } else {
            ctx.put("session.epoch", Integer.toString(r.generation()));
            ctx.put("acknowledgements", r.offsetsText());
            ctx.put("api", r.api().name);
        }
        ctx.put("client.id", r.clientId() == null ? "" : r.clientId());
        ctx.put("api.version", Short.toString(r.version()));
        ctx.put("connection", c.toString());
        ctx.put("correlation.id", Integer.toString(f.correlationId()));
        return new Arrival(barrier.point(), "client " + (r.clientId() == null ? "?" : r.clientId()), Arrival.withOffsets(ctx, r.offsets()), r.offsets(),
                List.of(r.api().name + " v" + r.version() + " on " + c), Instant.now(), System.nanoTime(),
                Arrival.Facts.sentBy(new Arrival.Requester(r.group(), r.memberId(), r.generation())));
    }

    /** A connection that kept frames for this gate closed; its frames are gone. */
    void dropped(Connection c, List<Connection.Frame> frames) {
        if (barrier.state() == BarrierState.ARMED) {
            return; // kept only while a commit's answer was awaited: nothing was held
        }
        synchronized (this) {
            holding.remove(c);
            for (Connection.Frame f : frames) {
                if (f.commit() != null && f.commit().memberId().equals(heldMember)) {
                    if (droppedAfter == null && barrier.state() == BarrierState.HELD) {
                        droppedAfter = barrier.arrival().map(a -> Duration.ofNanos(System.nanoTime() - a.monoNanos())).orElse(null);
                    }
                    framesDropped++;
                    lastDropped = System.nanoTime();
                    note(c, f, "dropped: the client closed the connection while it was held");
                }
            }
        }
        listener.onObservation(barrier.point(), "the client closed " + c + " while its " + held()
                + " was held; that frame was never sent");
    }

    /**
     * The answer side: when the broker accepted the commit (every partition NONE), the answer and
     * every later response on that connection wait here, on the connection's response thread, until
     * release; the outcome is ACCEPTED (the broker stored the offsets). A refused commit passes.
     */
    private Consumer<ApiMessage> answerHold(Connection c, Connection.Frame f) {
        return response -> {
            List<String> errors = errorsOf(response);
            if (!errors.isEmpty()) {
                note(c, f, "the broker refused it " + errors + "; its answer passes");
                c.flow(this);
                return;
            }
            if (!injector.reach(arrival(c, f))) {
                c.flow(this);
                return; // another commit reached the point first
            }
            c.holdDeferred(this);
            java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
            injector.onRelease(released::countDown);
            synchronized (this) {
                heldMember = f.commit().memberId();
                note(c, f, "the broker accepted it (offsets stored); its answer is held");
            }
            timer.schedule(this::holdTimeout, holdTimeoutMillis, TimeUnit.MILLISECONDS);
            boolean interrupted = false;
            while (released.getCount() > 0) {
                try {
                    released.await();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            injector.recordOutcome(CallOutcome.accepted(barrier.point()));
            synchronized (this) {
                note(c, f, "released: its answer goes to the client" + (c.isClosed() ? ", which has closed the connection (it never sees it)" : ""));
            }
            c.releaseHeld(this); // the requests held behind it go to the broker: their answers follow the held one
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /**
     * The partitions the broker refused, {@code topic-p ERROR (message)}: an OffsetCommit's per partition; a share
     * acknowledgement's top-level error (for the whole request) or per partition (a ShareFetch's acknowledge error code).
     */
    private List<String> errorsOf(ApiMessage m) {
        List<String> errors = new ArrayList<>();
        if (m instanceof ShareAcknowledgeResponseData r) {
            addError(errors, "request-level", r.errorCode());
            r.responses().forEach(t -> t.partitions().forEach(p -> addError(errors, proxy.topicName(t.topicId()) + "-" + p.partitionIndex(),
                    p.errorCode())));
            return errors;
        }
        if (m instanceof ShareFetchResponseData r) {
            addError(errors, "request-level", r.errorCode());
            r.responses().forEach(t -> t.partitions().forEach(p -> addError(errors, proxy.topicName(t.topicId()) + "-" + p.partitionIndex(),
                    p.acknowledgeErrorCode())));
            return errors;
        }
        for (OffsetCommitResponseData.OffsetCommitResponseTopic t : ((OffsetCommitResponseData) m).topics()) {
            String topic = t.name() == null || t.name().isEmpty() ? proxy.topicName(t.topicId()) : t.name();
            t.partitions().forEach(p -> addError(errors, topic + "-" + p.partitionIndex(), p.errorCode()));
        }
        return errors;
    }

    private static void addError(List<String> errors, String where, short code) {
        Errors e = Errors.forCode(code);
        if (e != Errors.NONE) {
            errors.add(where + " " + e.name() + " (" + e.message() + ")");
        }
    }

    private void released() {
        if (answers) {
            return; // the held answer's thread goes on by itself
        }
        List<Connection> live;
        synchronized (this) {
            live = new ArrayList<>(holding);
            holding.clear();
        }
        boolean any = false;
        for (Connection c : live) {
            any |= c.releaseHeld(this);
        }
        if (!any) {
            // a client's retry follows its close by its reconnect back-off, not the release it knows nothing of: the grace runs from the close
            Long closed;
            synchronized (this) {
                closed = lastDropped;
            }
            long since = closed == null ? 0 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed);
            long left = Math.max(0, proxy.retryGrace().toMillis() - since);
            listener.onObservation(barrier.point(), "released with no held frame left on a live connection; waiting up to " + left / 1000.0
                    + " s more for the client to send the commit again (" + proxy.retryGrace().toSeconds() + " s from its last close of one)");
            timer.schedule(this::notDeliveredUnlessAnswered, left, TimeUnit.MILLISECONDS);
        }
    }

    private void notDeliveredUnlessAnswered() {
        int dropped;
        int forwarded;
        Duration after;
        synchronized (this) {
            dropped = framesDropped;
            forwarded = framesForwarded;
            after = droppedAfter;
        }
        if (barrier.outcome().isEmpty() && forwarded == 0) {
            // a client gives a request up after its request timeout: a hold longer than that ends here, whatever the consumer's code
            String when = after == null ? "" : "; it first closed one " + after.toMillis() / 1000.0 + " s into the hold, before the release (a "
                    + "client gives a request up after its request.timeout.ms, 30 s by default for Java clients: a longer hold ends this way)";
            injector.recordOutcome(CallOutcome.notDelivered(barrier.point(), "the client closed the connection(s) carrying its held "
                    + held() + " ("
                    + dropped + " frame(s) dropped) and sent no retry within " + proxy.retryGrace().toSeconds() + " s of its last close of one, "
                    + "nor by the release" + when));
        }
    }

    /** Observes the broker's answer to a released (or later) commit of the held member: the first answer is the outcome. */
    Consumer<ApiMessage> observerFor(Connection c, Connection.Frame f) {
        if (!f.commit().memberId().equals(heldMember) || !group.equals(f.commit().group())) {
            return null;
        }
        synchronized (this) {
            framesForwarded++;
        }
        note(c, f, "forwarded to the broker");
        return response -> {
            List<String> errors = errorsOf(response);
            String where = f.commit().api().name + " v" + f.version() + " correlation " + f.correlationId() + " on " + c;
            synchronized (this) {
                String line = Instant.now() + " " + where + ": broker answered " + (errors.isEmpty() ? "NONE" : errors);
                history.add(line);
                log.info(line);
            }
            if (errors.isEmpty()) {
                injector.recordOutcome(CallOutcome.accepted(barrier.point()));
            } else {
                String names = errors.stream().map(s -> s.split(" ")[1]).distinct().reduce((a, b) -> a + "," + b).orElse("");
                injector.recordOutcome(CallOutcome.rejected(barrier.point(), names, "the broker answered " + where + ": " + String.join("; ", errors)));
            }
        };
    }

    private void holdTimeout() {
        if (barrier.state() == BarrierState.HELD) {
            log.warn("barrier {} held for its safety timeout of {} ms; releasing", barrier.point(), holdTimeoutMillis);
            injector.release("hold-timeout");
        }
    }

    /** The proxy is closing: a held commit goes out first (a close never leaves a client stuck). */
    void releaseOnClose() {
        if (barrier.state() == BarrierState.HELD) {
            injector.release("close");
        }
    }

    void shutdown() {
        timer.shutdownNow();
    }
}
