package io.replaylab.barrier.wire;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the proxy saw of the groups' traffic, whether or not a barrier is armed: every OffsetCommit
 * with the broker's answer per partition ({@link WitnessedCommit}), the generation (or member
 * epoch) each member last used on the wire, and the client ids and members that talked through
 * the proxy at all. It tells a commit the broker rejected from one the client never sent.
 *
 * <pre>{@code
 * WireWitness w = proxy.witness();
 * w.onCommit(c -> log.info("{}", c.summary()));          // each commit once its fate is known
 * Optional<WitnessedCommit> stale = w.await(c -> c.memberId().equals(member) && c.generation() == g, Duration.ofSeconds(30));
 * }</pre>
 */
public final class WireWitness {
    private static final Logger log = LoggerFactory.getLogger(WireWitness.class);

    private final WireProxy proxy;
    private final AtomicLong seq = new AtomicLong();
    /** Appended as fates become known (not in send order); read sorted. Guarded by itself. */
    private final WitnessLog<WitnessedCommit> commits = new WitnessLog<>(WitnessedCommit::summary, java.util.Comparator.comparingLong(WitnessedCommit::seq));
    private final Set<Entry> open = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> generations = new ConcurrentHashMap<>();
    private final Set<String> clientIds = ConcurrentHashMap.newKeySet();
    private final Set<String> members = ConcurrentHashMap.newKeySet();
    /** The timeouts each member asked for, by group and member id; the newest join wins. */
    private final Map<String, MemberTimeouts> timeouts = new ConcurrentHashMap<>();
    /** The heartbeat interval the coordinator last gave each consumer-protocol member: a withheld heartbeat's own answer repeats it. */
    private final Map<String, Integer> heartbeatIntervals = new ConcurrentHashMap<>();

    /** Every reset to a log end a client made, confirmed by its next Fetch of the partition starting there; in that order. */
    private final List<WitnessedReset> resets = new CopyOnWriteArrayList<>();
    /** Log ends a client asked for, until its next Fetch of the partition says whether it moved there or only asked (lag, say). */
    private final List<WitnessedReset> asked = new CopyOnWriteArrayList<>();

    /** Open fetch watches by topic. */
    private final Map<String, List<FetchWatch>> fetchWatches = new ConcurrentHashMap<>();

    private final ShareWitness share;

    WireWitness(WireProxy proxy) {
        this.proxy = proxy;
        this.share = new ShareWitness(proxy);
    }

    /** What the proxy saw of share groups: the records each member acquired, with their delivery counts, and each acknowledgement's fate. */
    public ShareWitness share() {
        return share;
    }

    /**
     * From now on, the lowest offset any subject fetches from each partition of {@code topic} (see
     * {@link FetchWatch}); close it when done.
     */
    public FetchWatch watchFetches(String topic) {
        FetchWatch w = new FetchWatch(this, java.util.Objects.requireNonNull(topic, "topic"));
        fetchWatches.computeIfAbsent(topic, t -> new CopyOnWriteArrayList<>()).add(w);
        return w;
    }

    void unwatch(FetchWatch w) {
        fetchWatches.computeIfPresent(w.topic(), (t, l) -> {
            l.remove(w);
            return l.isEmpty() ? null : l;
        });
    }

    /** Whether a Fetch request is worth reading: only while a watch is open. */
    boolean watchingFetches() {
        return !fetchWatches.isEmpty();
    }

    /** A Fetch answer delivered the batches of {@code topic}-{@code partition} covering {@code [first, end)}. */
    void delivered(String topic, int partition, long first, long end) {
        fetchWatches.getOrDefault(topic, List.of()).forEach(w -> w.delivered(partition, first, end));
    }

    /** A Fetch answer naming {@code topic} could not be read. */
    void fetchAnswerUnreadable(String topic, String why) {
        fetchWatches.getOrDefault(topic, List.of()).forEach(w -> w.unreadable(why));
    }

    /** A Fetch answer could not be read at all: every open watch may have missed what it delivered. */
    void fetchAnswersUnreadable(String why) {
        fetchWatches.values().forEach(ws -> ws.forEach(w -> w.unreadable(why)));
    }

    /** Whether a watch is open on {@code topic}. */
    boolean watching(String topic) {
        return fetchWatches.containsKey(topic);
    }

    /** A Fetch request asked for {@code topic}-{@code partition} from {@code offset}. */
    void fetched(String topic, int partition, long offset) {
        fetchWatches.getOrDefault(topic, List.of()).forEach(w -> w.fetched(partition, offset));
    }

    /** Every commit whose fate is known, in the order the proxy read them. */
    public List<WitnessedCommit> commits() {
        return commits.all();
    }

    /** The commits of one group. */
    public List<WitnessedCommit> commits(String group) {
        return commits.all(c -> c.group().equals(group));
    }

    /** The commits on their way now (held, or their answer not back yet), fate {@link WitnessedCommit.Fate#IN_FLIGHT}. */
    public List<WitnessedCommit> inFlight() {
        return open.stream().map(Entry::inFlight).sorted(java.util.Comparator.comparingLong(WitnessedCommit::seq)).toList();
    }

    /** Called with each commit once its fate is known (on a proxy thread: keep it short, never block). */
    public void onCommit(Consumer<WitnessedCommit> listener) {
        commits.onEach(listener);
    }

    /** The first commit (known so far or still to come) that {@code which} accepts, waiting up to {@code timeout}. */
    public Optional<WitnessedCommit> await(Predicate<WitnessedCommit> which, Duration timeout) throws InterruptedException {
        return commits.await(which, timeout);
    }

    /** The generation (classic) or member epoch (consumer protocol) {@code member} of {@code group} last used on the wire. */
    public OptionalInt generation(String group, String member) {
        Integer g = generations.get(key(group, member));
        return g == null ? OptionalInt.empty() : OptionalInt.of(g);
    }

    /** The timeouts {@code member} of {@code group} asked for when it last joined, as its client sent them. */
    public Optional<MemberTimeouts> timeouts(String group, String member) {
        return Optional.ofNullable(timeouts.get(key(group, member)));
    }

    /** The timeouts every member of {@code group} asked for when it last joined, oldest join first. */
    public List<MemberTimeouts> timeouts(String group) {
        return timeouts.values().stream().filter(t -> t.group().equals(group)).sorted(java.util.Comparator.comparing(MemberTimeouts::seen)).toList();
    }

    /**
     * The resets to the log end on partitions of {@code topic}, oldest first: a client asked for the log end (ListOffsets
     * LATEST) and its next Fetch of the partition started there (one that fetched below it only asked, e.g. for its lag).
     */
    public List<WitnessedReset> resetsToEnd(String topic) {
        return resets.stream().filter(r -> r.topic().equals(topic)).toList();
    }

    /** A request with this client id came through the proxy. */
    public boolean sawClient(String clientId) {
        return clientIds.contains(clientId);
    }

    /** A group request (heartbeat, sync, commit) named this member id. */
    public boolean sawMember(String memberId) {
        return members.contains(memberId);
    }

    // ---- package-private: fed by the connections

    void client(String clientId) {
        if (clientId != null && !clientId.isEmpty()) {
            clientIds.add(clientId);
        }
    }

    /** A member used this generation or epoch on the wire (epochs below 1 are the consumer protocol's join and leave markers). */
    void member(String group, String member, int generation) {
        if (group == null || member == null || member.isEmpty()) {
            return;
        }
        members.add(member);
        if (generation >= 0) {
            generations.put(key(group, member), generation);
        }
    }

    void askedForEnd(WitnessedReset r) {
        asked.add(r);
    }

    /**
     * Whether a Fetch request is worth reading for a log end asked for and not yet fetched from. A client's Fetch follows its
     * reset within moments; an ask no Fetch followed within {@link #ASK_EXPIRES} was a question, and stops costing each Fetch.
     */
    boolean awaitingFetchAfterReset() {
        if (asked.isEmpty()) {
            return false;
        }
        Instant expired = Instant.now().minus(ASK_EXPIRES);
        asked.removeIf(r -> r.at().isBefore(expired));
        return !asked.isEmpty();
    }

    private static final Duration ASK_EXPIRES = Duration.ofSeconds(30);

    /** A member of a group, as the maps key it. */
    private static String key(String group, String member) {
        return group + "\u0000" + member;
    }

    /** A client's Fetch asked for a partition from {@code offset}: a log end it asked for is a reset when it fetches from there on. */
    void fetchedBy(String clientId, String topic, int partition, long offset) {
        for (WitnessedReset r : asked) {
            if (r.clientId().equals(clientId == null ? "" : clientId) && r.topic().equals(topic) && r.partition() == partition && asked.remove(r)) {
                if (offset >= r.offset()) {
                    resets.add(r);
                    log.debug("witnessed {}", r.summary());
                }
            }
        }
    }

    /** A member joined (or joined again) asking for these timeouts. */
    void joined(MemberTimeouts t) {
        if (!t.memberId().isEmpty()) {
            members.add(t.memberId());
            timeouts.put(key(t.group(), t.memberId()), t);
            log.debug("member timeouts: {} {}: {}", t.group(), t.memberId(), t.summary());
        }
    }

    void gaveHeartbeatInterval(String group, String member, int ms) {
        if (group != null && member != null && ms > 0) {
            heartbeatIntervals.put(key(group, member), ms);
        }
    }

    /** The heartbeat interval the coordinator last gave a consumer-protocol member, or {@code fallback}. */
    int heartbeatInterval(String group, String member, int fallback) {
        return heartbeatIntervals.getOrDefault(key(group, member), fallback);
    }

    /** A commit read from a client: its fate is told to the entry. */
    Entry sent(Connection c, CommitRequest r) {
        member(r.group(), r.memberId(), r.generation());
        Entry e = new Entry(seq.incrementAndGet(), c.toString(), r);
        open.add(e);
        return e;
    }

    private void done(Entry entry, WitnessedCommit c) {
        synchronized (commits) { // a waiter wakes once the commit is known and no longer in flight
            commits.keep(List.of(c));
            open.remove(entry);
        }
        commits.tell(List.of(c));
    }

    /** One commit on its way: told once what became of it (later news is ignored). */
    final class Entry extends Witnessed {
        private final long seq;
        private final CommitRequest request;

        private Entry(long seq, String connection, CommitRequest request) {
            super(connection);
            this.seq = seq;
            this.request = request;
        }

        @Override
        public void answered(org.apache.kafka.common.protocol.ApiMessage m) {
            OffsetCommitResponseData response = (OffsetCommitResponseData) m;
            Map<String, String> answers = new TreeMap<>();
            for (OffsetCommitResponseData.OffsetCommitResponseTopic t : response.topics()) {
                String topic = t.name() == null || t.name().isEmpty() ? proxy.topicName(t.topicId()) : t.name();
                for (OffsetCommitResponseData.OffsetCommitResponsePartition p : t.partitions()) {
                    answers.put(topic + "-" + p.partitionIndex(), Errors.forCode(p.errorCode()).name());
                }
            }
            end(WitnessedCommit.Fate.ANSWERED, Instant.now(), answers);
        }

        @Override
        public void notSent() {
            end(WitnessedCommit.Fate.NOT_SENT, null, Map.of());
        }

        /** A fault answered it with {@code error} for every partition (null: it closed the connection at it). */
        @Override
        public void faulted(String error) {
            Map<String, String> answers = new TreeMap<>();
            if (error != null) {
                request.offsets().forEach(o -> answers.put(o.partitionName(), error));
            }
            end(WitnessedCommit.Fate.FAULTED, answers.isEmpty() ? null : Instant.now(), answers);
        }

        @Override
        public void unanswered() {
            end(WitnessedCommit.Fate.UNANSWERED, null, Map.of());
        }

        private void end(WitnessedCommit.Fate fate, Instant answered, Map<String, String> answers) {
            if (endOnce()) {
                done(this, snapshot(fate, answered, answers));
            }
        }

        WitnessedCommit inFlight() {
            return snapshot(WitnessedCommit.Fate.IN_FLIGHT, null, Map.of());
        }

        private WitnessedCommit snapshot(WitnessedCommit.Fate fate, Instant answered, Map<String, String> answers) {
            return new WitnessedCommit(seq, sent, connection, request.clientId() == null ? "" : request.clientId(), request.group(),
                    request.memberId(), request.generation(), request.version(), request.offsets(), wasHeld(), fate, answered, answers);
        }
    }
}
